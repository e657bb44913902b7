import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { csvFile, safeCell } from '../../functions/src/core/csv.ts';

/** The one CSV rule (issue 20 item 7, issue 17 item 13), read back with a real CSV parser. */

const COLUMNS = [
  { he: 'תיאור', en: 'Description' },
  { he: 'סכום', en: 'Amount' },
];

const parsed = (bytes: Buffer): string[][] => parse(bytes.toString('utf8').replace(/^\uFEFF/, ''), { relax_column_count: false });

test('a file starts with the UTF-8 BOM, its header names each column in Hebrew and English, and rows round-trip', () => {
  const bytes = csvFile(COLUMNS, [
    ['Invoice for Dana, "week 1"\nline two', '-250.00'],
    ['דנה לוי', 12.5],
  ]);
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.ok(bytes.toString('utf8').endsWith('\r\n'));
  const rows = parsed(bytes);
  assert.deepEqual(rows[0], ['תיאור / Description', 'סכום / Amount']);
  assert.deepEqual(rows[1], ['Invoice for Dana, "week 1"\nline two', '-250.00']);
  assert.deepEqual(rows[2], ['דנה לוי', '12.5']);
});

test('cells a spreadsheet would run as a formula are neutralised; plain numbers stay numbers', () => {
  const hostile = ['=HYPERLINK("http://evil.example/x","click")', '+cmd|\' /C calc\'!A0', '@SUM(1+1)', '-2+3', '\t=1+1', '\r=1+1', '=1', '-', '+'];
  const rows = parsed(csvFile(COLUMNS, hostile.map((v) => [v, 1])));
  for (const [i, v] of hostile.entries()) assert.equal(rows[i + 1][0], `'${v}`, JSON.stringify(v));
  for (const n of ['-12.50', '-250', '0', '0.27', '100.00', '+5'.slice(1)]) assert.equal(safeCell(n), n, n);
  assert.equal(safeCell(-3.5), '-3.5');
});

test('values a spreadsheet would mangle are written in the ="…" text form; ISO days and ordinary text are left alone', () => {
  const cases: [string, string][] = [
    ['0042', '="0042"'],
    ['0501234567', '="0501234567"'],
    ['1/3', '="1/3"'],
    ['3-1', '="3-1"'],
    ['1.5.2026', '="1.5.2026"'],
    ['12/2026', '="12/2026"'],
    ['4580123412341234', '="4580123412341234"'],
    ['1E5', '="1E5"'],
    ['2026-03', '="2026-03"'],
    ['2026-03-05', '2026-03-05'],
    ['Visa', 'Visa'],
    ['ILS', 'ILS'],
    ['42', '42'],
  ];
  for (const [v, want] of cases) assert.equal(safeCell(v), want, v);
  // A number too long for a spreadsheet's precision is kept as text too.
  assert.equal(safeCell(12345678901234567), '="12345678901234568"');
  // The ="…" form only ever wraps digits and separators: it can carry no formula of its own.
  for (const [, want] of cases) if (want.startsWith('=')) assert.match(want, /^="[0-9/.\-eE]+"$/);
  // Through RFC 4180 quoting and back.
  const rows = parsed(csvFile(COLUMNS, [['0042', '1/3']]));
  assert.deepEqual(rows[1], ['="0042"', '="1/3"']);
});
