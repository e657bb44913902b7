import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { invoicesEnv, upload, reading, type InvoicesEnv } from '../invoices/helpers.ts';
import { post, get } from '../../http.ts';
import { connectMcp } from '../../surfaces/mcp/client.ts';
import { ZIP_LIFETIME_MS } from '../../../functions/src/core/files.ts';

let env: InvoicesEnv;
let origin: string;
const ids: Record<string, string> = {};
/** The service's clock: the export's link lifetime is checked by moving it. */
let now = Date.now();

/**
 * Known invoices of March–April 2025 (plus one in May, out of range):
 * A ILS 118.00 (VAT 18.00) software · B ILS 50.00 (no VAT) software · C USD 20.00 (no VAT) software   — March
 * D ILS 234.00 (VAT 34.00) rent, paid by transfer · E credit note ILS 11.80 (VAT 1.80) software · F rent, no total read — April
 */
before(async () => {
  env = await invoicesEnv({ now: () => now });
  origin = await env.h.listen();
  const docs: [string, Parameters<typeof reading>[0], string][] = [
    ['A', { date: '2025-03-05', totalMinor: 11_800, vatMinor: 1_800, currency: 'ILS' }, 'software'],
    ['B', { date: '2025-03-20', totalMinor: 5_000, vatMinor: null, currency: 'ILS' }, 'software'],
    ['C', { date: '2025-03-25', totalMinor: 2_000, vatMinor: null, currency: 'USD' }, 'software'],
    ['D', { date: '2025-04-02', totalMinor: 23_400, vatMinor: 3_400, currency: 'ILS' }, 'rent'],
    ['E', { date: '2025-04-10', totalMinor: 1_180, vatMinor: 180, currency: 'ILS', docType: 'credit_note' }, 'software'],
    ['F', { date: '2025-04-15', totalMinor: null, vatMinor: null }, 'rent'],
    ['G', { date: '2025-05-01', totalMinor: 99_900, vatMinor: 0, currency: 'ILS' }, 'software'],
  ];
  for (const [name, r, category] of docs) {
    const up = await upload(env, reading(r));
    ids[name] = up.docId;
    await env.h.call('invoiceSetCategory', { docIds: [up.docId], category, remember: false });
  }
  await env.h.call('updateInvoiceDoc', { docId: ids.D, payMark: 'paid_transfer' });
});
after(() => env.close());

const range = { from: '2025-03-01', to: '2025-04-30' };
const pick = (rows: any[], m: Record<string, unknown>) => rows.filter((r) => Object.entries(m).every(([k, v]) => r[k] === v));

test('spendSummary totals by month and category, per currency, with VAT and net only where read, credit notes negative', async () => {
  const s = await env.h.call('spendSummary', { ...range, by: 'category' });
  const row = (month: string, key: string, currency: string) => {
    const found = pick(s.rows, { month, key, currency });
    assert.equal(found.length, 1, `one row ${month} ${key} ${currency}`);
    const { count, totalMinor, vatMinor, netMinor, withoutVat } = found[0];
    return { count, totalMinor, vatMinor, netMinor, withoutVat };
  };
  assert.deepEqual(row('2025-03', 'software', 'ILS'), { count: 2, totalMinor: 16_800, vatMinor: 1_800, netMinor: 10_000, withoutVat: 1 });
  assert.deepEqual(row('2025-03', 'software', 'USD'), { count: 1, totalMinor: 2_000, vatMinor: 0, netMinor: 0, withoutVat: 1 });
  assert.deepEqual(row('2025-04', 'rent', 'ILS'), { count: 1, totalMinor: 23_400, vatMinor: 3_400, netMinor: 20_000, withoutVat: 0 });
  assert.deepEqual(row('2025-04', 'software', 'ILS'), { count: 1, totalMinor: -1_180, vatMinor: -180, netMinor: -1_000, withoutVat: 0 });
  assert.equal(s.rows.length, 4, 'May is out of range');
  assert.deepEqual(
    s.totals.map((t: any) => [t.currency, t.count, t.totalMinor, t.vatMinor, t.netMinor, t.withoutVat]),
    [
      ['ILS', 4, 39_020, 5_020, 29_000, 1],
      ['USD', 1, 2_000, 0, 0, 1],
    ],
  );
  assert.deepEqual(
    pick(s.byKey, { key: 'software', currency: 'ILS' }).map((r: any) => [r.count, r.totalMinor, r.label]),
    [[3, 15_620, 'תוכנות ומנויים']],
  );
  assert.deepEqual(
    s.byMonth.map((r: any) => [r.month, r.currency, r.totalMinor]),
    [
      ['2025-03', 'ILS', 16_800],
      ['2025-03', 'USD', 2_000],
      ['2025-04', 'ILS', 22_220],
    ],
  );
  assert.equal(s.withoutAmount, 1, 'F has no total read');
  assert.equal(s.duplicates, 0);
});

test("each row's filter lists its invoices in invoicesList; exact says when the list holds no others", async () => {
  const s = await env.h.call('spendSummary', { ...range, by: 'category' });
  const credit = pick(s.rows, { month: '2025-04', key: 'software' })[0];
  assert.deepEqual(credit.filter, { from: '2025-04-01', to: '2025-04-30', category: 'software' });
  assert.equal(credit.exact, true);
  assert.deepEqual((await env.h.call('invoicesList', credit.filter)).items.map((i: any) => i.docId), [ids.E]);
  // March software in ILS: invoicesList has no currency filter, so it also shows the USD invoice.
  const march = pick(s.rows, { month: '2025-03', key: 'software', currency: 'ILS' })[0];
  assert.equal(march.exact, false);
  assert.deepEqual((await env.h.call('invoicesList', march.filter)).items.map((i: any) => i.docId).sort(), [ids.A, ids.B, ids.C].sort());
  // April rent: the list also shows F, whose total was not read.
  const rent = pick(s.rows, { month: '2025-04', key: 'rent' })[0];
  assert.equal(rent.exact, false);
  assert.equal((await env.h.call('invoicesList', rent.filter)).total, 2);

  const byPay = await env.h.call('spendSummary', { ...range, by: 'payMethod' });
  const transfer = pick(byPay.byKey, { key: 'paid_transfer' });
  assert.deepEqual(transfer.map((r: any) => [r.currency, r.count, r.totalMinor, r.filter, r.exact]), [['ILS', 1, 23_400, { ...range, payMark: 'paid_transfer' }, true]]);
  assert.deepEqual((await env.h.call('invoicesList', transfer[0].filter)).items.map((i: any) => i.docId), [ids.D]);

  const bySupplier = await env.h.call('spendSummary', { ...range, by: 'supplier' });
  const none = pick(bySupplier.byKey, { key: '', currency: 'ILS' })[0];
  assert.equal(none.label, 'ללא ספק');
  assert.deepEqual(none.filter, range, 'invoicesList cannot filter "no supplier": the row links to the range');
  assert.equal(none.count, 4);
});

test('spendSummary refuses bad ranges naming the field, and ranges over two years', async () => {
  await assert.rejects(env.h.call('spendSummary', { from: '2025-04-01', to: '2025-03-01' }), { code: 'invalid-argument', message: /^from:/ });
  await assert.rejects(env.h.call('spendSummary', { from: '2025-02-30', to: '2025-03-01' }), { code: 'invalid-argument', message: /^from:/ });
  await assert.rejects(env.h.call('spendSummary', { from: '2025-03-01' }), { code: 'invalid-argument', message: /^to:/ });
  await assert.rejects(env.h.call('spendSummary', { from: '2023-01-01', to: '2025-01-01' }), { code: 'invalid-argument', message: /^to: .*731/ });
  await assert.rejects(env.h.call('spendSummary', { ...range, by: 'issuer' }), { code: 'invalid-argument', message: /^by:/ });
  // Exactly two years (a leap year in them) is allowed.
  assert.equal((await env.h.call('spendSummary', { from: '2024-01-01', to: '2025-12-31' })).totals.length, 2);
});

test('spendExport: a CSV with a BOM, Hebrew and English headers, ISO days and major-unit numbers', async () => {
  const out = await env.h.call('spendExport', { ...range, by: 'category' });
  assert.equal(out.rows, 4);
  const res = await fetch(out.url.replace(/^https?:\/\/[^/]+/, origin));
  assert.equal(res.status, 200);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
  const [header, ...rows] = parse(bytes, { bom: true }) as string[][];
  assert.deepEqual(header, [
    'מתאריך / From',
    'עד תאריך / To',
    'מזהה / Key',
    'קטגוריה / Category',
    'מטבע / Currency',
    'חשבוניות / Invoices',
    'סכום / Total',
    'מע"מ / VAT',
    'לפני מע"מ / Net',
    'בלי מע"מ ידוע / Without VAT',
    'מע"מ = סכום / VAT = total',
  ]);
  assert.deepEqual(rows, [
    ['2025-03-01', '2025-03-31', 'software', 'תוכנות ומנויים', 'ILS', '2', '168.00', '18.00', '100.00', '1', '0'],
    ['2025-03-01', '2025-03-31', 'software', 'תוכנות ומנויים', 'USD', '1', '20.00', '0.00', '0.00', '1', '0'],
    ['2025-04-01', '2025-04-30', 'rent', 'שכירות', 'ILS', '1', '234.00', '34.00', '200.00', '0', '0'],
    ['2025-04-01', '2025-04-30', 'software', 'תוכנות ומנויים', 'ILS', '1', '-11.80', '-1.80', '-10.00', '0', '0'],
  ]);
  // Every amount cell is a plain number a spreadsheet sums (no apostrophe, no ="…").
  for (const r of rows) for (const cell of r.slice(6, 9)) assert.match(cell, /^-?\d+\.\d{2}$/);
  await assert.rejects(env.h.call('spendExport', { from: '2025-04-01', to: '2025-03-01' }), { code: 'invalid-argument', message: /^from:/ });
});

test("spendExport's link lives as long as a generated ZIP's (ZIP_LIFETIME_MS), then answers 410 and the file is deleted", async () => {
  const start = now;
  const out = await env.h.call('spendExport', { ...range, by: 'supplier' });
  assert.equal(Date.parse(out.expiresAt) - start, ZIP_LIFETIME_MS);
  const zip = await env.h.call('accZip', {});
  assert.equal(Date.parse(out.expiresAt) - start, Date.parse(zip.expiresAt) - start, 'the same lifetime as the accountant ZIP');
  const local = out.url.replace(/^https?:\/\/[^/]+/, origin);
  try {
    now = start + ZIP_LIFETIME_MS - 60_000;
    assert.equal((await fetch(local)).status, 200, 'still valid a minute before the end');
    now = start + ZIP_LIFETIME_MS + 60_000;
    assert.ok((await env.h.app.services.files.purgeExpired()) >= 1);
    assert.equal(await env.h.app.services.files.read(env.h.owner.businessId, out.fileId), null, 'the CSV is deleted');
    const res = await fetch(local);
    assert.equal(res.status, 410);
    assert.match(await res.text(), /This link has expired/);
  } finally {
    now = start;
  }
});

test('over HTTP and MCP: the same totals', async () => {
  const http = await post(origin, '/v1/spendSummary', { ...range, by: 'category' }, env.h.owner.apiKey);
  assert.equal(http.status, 200);
  assert.deepEqual(http.body.result.totals.map((t: any) => [t.currency, t.totalMinor]), [['ILS', 39_020], ['USD', 2_000]]);
  const read = await get(origin, `/v1/spendSummary?from=${range.from}&to=${range.to}&by=payMethod`, env.h.owner.apiKey);
  assert.equal(read.status, 200);
  assert.equal(read.body.result.by, 'payMethod');
  const bad = await post(origin, '/v1/spendSummary', { from: '2025-13-01', to: '2025-03-01' }, env.h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^from:/);

  const { client, call } = await connectMcp(origin, env.h.owner.apiKey, 'spend-test');
  try {
    const r = await call('spendSummary', { ...range, by: 'category' });
    assert.equal(r.isError, false);
    assert.deepEqual(r.body.totals.map((t: any) => [t.currency, t.totalMinor]), [['ILS', 39_020], ['USD', 2_000]]);
    const x = await call('spendExport', { ...range });
    assert.equal(x.isError, false);
    assert.equal(x.body.rows, 4);
  } finally {
    await client.close();
  }
});
