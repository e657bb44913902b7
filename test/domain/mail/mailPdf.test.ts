import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailToPdf, israelTime } from '../../../functions/src/domain/mail/mailPdf.ts';
import { mailBlocks, type MailBlock } from '../../../functions/src/domain/mail/mailLayout.ts';

/** pdftotext -layout keeps columns apart with spaces, as a reader sees them. */
function layoutText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'bfo-mailpdf-'));
  try {
    writeFileSync(join(dir, 'm.pdf'), pdf);
    // Without the bidi embedding marks pdftotext puts around right-to-left runs.
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', join(dir, 'm.pdf'), '-']).toString().replace(/[\u202a-\u202e\u2066-\u2069]/g, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A receipt as shops send it: a layout table around a data table, Hebrew headers, styles and a script.
const RECEIPT = `<html><head><style>td{padding:4px}</style></head><body>
<table width="100%"><tr><td>
  <p>שלום דנה, תודה על הקנייה</p>
  <table border="1"><tr><th>פריט</th><th>כמות</th><th>מחיר</th></tr>
    <tr><td>מקלדת</td><td>2</td><td>₪100.00</td></tr>
    <tr><td>Wireless mouse</td><td>1</td><td>₪50.00</td></tr></table>
  <p>סה"כ לתשלום: ₪250.00</p>
</td></tr></table><script>document.write('x')</script></body></html>`;

test('a receipt table is laid out as a table: its cells stay apart, on one line per row', async () => {
  const pdf = await mailToPdf({ from: 'shop@example.com', subject: 'קבלה 1001', date: '2026-10-03T21:30:00.000Z', text: 'fallback', html: RECEIPT });
  const text = layoutText(pdf);
  const lines = text.split('\n');
  const header = lines.find((l) => l.includes('פריט'));
  assert.ok(header, text);
  assert.doesNotMatch(text, /פריטכמות|כמותמחיר|מקלדת2/, 'cells glued together');
  // The three header cells are separate words on one row, and each item row keeps its quantity and price.
  for (const w of ['פריט', 'כמות', 'מחיר']) assert.match(header!, new RegExp(`(^|\\s)${w}(\\s|$)`), header);
  const mouse = lines.find((l) => l.includes('Wireless mouse'));
  assert.ok(mouse && /\s1\s/.test(` ${mouse} `) && mouse.includes('50.00'), mouse);
  assert.match(text, /שלום דנה/);
  assert.doesNotMatch(text, /document\.write|padding/);
});

test('the date is the mail\'s moment in Israel time, not a UTC stamp', async () => {
  // 21:30 UTC on 3 October is 00:30 on 4 October in Israel (summer time, UTC+3).
  assert.equal(israelTime('2026-10-03T21:30:00.000Z'), '04.10.2026 00:30 (Israel)');
  assert.equal(israelTime('2026-12-01T10:00:00.000Z'), '01.12.2026 12:00 (Israel)');
  const text = layoutText(await mailToPdf({ from: 'a@example.com', subject: 's', date: '2026-10-03T21:30:00.000Z', text: 'hello' }));
  assert.match(text, /Date: 04\.10\.2026 00:30 \(Israel\)/);
  assert.doesNotMatch(text, /2026-10-03T21:30/);
});

test('layout tables and one-column tables print as paragraphs, in the order of the mail', () => {
  const blocks = mailBlocks(RECEIPT);
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ['text', 'table', 'text'],
  );
  const table = blocks[1] as Extract<MailBlock, { kind: 'table' }>;
  assert.deepEqual({ ...table, rows: table.rows.map((r) => r.map((c) => c.text)) }, { kind: 'table', header: true, cols: 3, rows: [['פריט', 'כמות', 'מחיר'], ['מקלדת', '2', '₪100.00'], ['Wireless mouse', '1', '₪50.00']] });
  assert.deepEqual(mailBlocks('<table><tr><td>one</td></tr><tr><td>two</td></tr></table>'), [{ kind: 'text', text: 'one\ntwo' }]);
});

/** pdftotext -bbox: every word with its box (points from the page's top left); right-to-left words come out in drawing order. */
function words(pdf: Buffer): { text: string; xMin: number; xMax: number; yMin: number }[] {
  const dir = mkdtempSync(join(tmpdir(), 'bfo-mailpdf-'));
  try {
    writeFileSync(join(dir, 'm.pdf'), pdf);
    const html = execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', join(dir, 'm.pdf'), '-']).toString();
    return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)].map((m) => ({
      text: m[4].replace(/&quot;/g, '"').replace(/&amp;/g, '&'),
      xMin: Number(m[1]),
      yMin: Number(m[2]),
      xMax: Number(m[3]),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Issue 34 B9: an invoice mail whose totals are labelled by a cell spanning the item columns, and a
// Hebrew one (right to left); the printed total must sit under the amount column, not under quantity.
const INVOICE = `<html><body><p>Hi Dana, your invoice 2041 is below.</p>
<table border="1" cellpadding="4" style="width:100%">
  <tr><th>Description</th><th>Qty</th><th>Unit price</th><th>Amount</th></tr>
  <tr><td>Logo design</td><td>1</td><td>₪1,000.00</td><td>₪1,000.00</td></tr>
  <tr><td>Business cards</td><td>2</td><td>₪10.00</td><td>₪20.00</td></tr>
  <tr><td colspan="3" align="right">Subtotal</td><td>₪1,020.00</td></tr>
  <tr><td colspan="3" align="right">VAT 18%</td><td>₪183.60</td></tr>
  <tr><td colspan="3" align="right"><b>Total</b></td><td><b>₪1,203.60</b></td></tr>
</table>
<table border="1" dir="rtl">
  <tr><th>פריט</th><th>כמות</th><th>סכום</th></tr>
  <tr><td>מקלדת</td><td>2</td><td>₪180.00</td></tr>
  <tr><td colspan="2">סה"כ לתשלום</td><td>₪236.00</td></tr>
</table>
<table border="1">
  <tr><th>Service</th><th>Months</th><th>Charge</th></tr>
  <tr><td rowspan="2">Hosting</td><td>1</td><td>$50.00</td></tr>
  <tr><td>3</td><td>$75.00</td></tr>
</table></body></html>`;

test('a total labelled by a colspan cell prints under the amount column, in English and in Hebrew; a rowspan keeps the next row in its columns', async () => {
  const w = words(await mailToPdf({ from: 'billing@studio.example', subject: 'Invoice 2041', date: '2026-10-03T21:30:00.000Z', text: '', html: INVOICE }));
  const one = (text: string) => {
    const found = w.filter((x) => x.text === text);
    assert.equal(found.length, 1, `${text} once in ${w.map((x) => x.text).join(' ')}`);
    return found[0];
  };
  // Left to right: each cell's text starts at its column's left edge.
  const [amount, qty] = [one('Amount'), one('Qty')];
  for (const figure of ['₪1,020.00', '₪183.60', '₪1,203.60']) {
    assert.ok(Math.abs(one(figure).xMin - amount.xMin) < 0.5, `${figure} starts where Amount does (${one(figure).xMin} vs ${amount.xMin}), not under Qty (${qty.xMin})`);
  }
  assert.ok(Math.abs(one('Total').xMin - one('Description').xMin) < 0.5, 'the label starts in the first column');
  // Right to left: each cell's text ends at its column's right edge (pdftotext gives Hebrew words in drawing order).
  const he = (word: string) => one([...word].reverse().join(''));
  assert.ok(Math.abs(one('₪236.00').xMax - he('סכום').xMax) < 0.5, 'the Hebrew total is under סכום');
  assert.ok(Math.abs(one('₪236.00').xMax - he('כמות').xMax) > 20, 'not under כמות');
  // The row below a rowspan cell starts in the second column.
  assert.ok(Math.abs(one('3').xMin - one('Months').xMin) < 0.5, 'the months under Months');
  assert.ok(Math.abs(one('$75.00').xMin - one('Charge').xMin) < 0.5, 'the charge under Charge');
});

test('colspan and rowspan place cells on the table grid', () => {
  const [table] = mailBlocks('<table><tr><td rowspan="2">a</td><td colspan="2">b</td></tr><tr><td>c</td><td>d</td></tr><tr><td colspan="2">e</td><td>f</td></tr></table>');
  assert.equal(table.kind, 'table');
  const t = table as Extract<MailBlock, { kind: 'table' }>;
  assert.equal(t.cols, 3);
  assert.deepEqual(
    t.rows.map((r) => r.map((c) => `${c.text}@${c.col}+${c.colspan}`)),
    [['a@0+1', 'b@1+2'], ['c@1+1', 'd@2+1'], ['e@0+2', 'f@2+1']],
  );
});
