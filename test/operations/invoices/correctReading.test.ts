import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import yauzl from 'yauzl';
import { invoicesEnv, pdf, reading, storedDoc, upload, uploadBody, type InvoicesEnv } from './helpers.ts';
import { post } from '../../http.ts';
import { connectMcp } from '../../surfaces/mcp/client.ts';
import { engines } from '../../engines.ts';
import type { InvoiceReading } from '../../../functions/src/domain/invoices/invoices.ts';
import { sha256Bytes } from '../../../functions/src/domain/invoices/invoiceDocs.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';

/** Correcting an AI reading by hand (issue 35 item 4): updateInvoiceDoc's `reading`. */
let env: InvoicesEnv;
let origin: string;
before(async () => {
  env = await invoicesEnv();
  origin = await env.h.listen();
});
after(() => env.close());

const owner = () => env.h.owner;
/** Through the HTTP surface, as the dashboard and API clients call it. */
const correct = async (docId: string, fields: Record<string, unknown>, key = owner().apiKey) => post(origin, '/v1/updateInvoiceDoc', { docId, reading: fields }, key);

async function uploadRead(r: InvoiceReading) {
  const bytes = await pdf();
  env.ai.script(bytes, r);
  const doc = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  return { doc, bytes };
}

test('a corrected total is marked, kept by a later analyzeInvoice that updates the other fields, and null gives the AI value back', async () => {
  const { doc, bytes } = await uploadRead(reading({ number: 'R-1', totalMinor: 10_000, vatMinor: 1_500 }));
  const res = await correct(doc.docId, { totalAgorot: 12_345 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const fixed = res.body.result;
  assert.equal(fixed.totalMinor, 12_345);
  assert.equal(fixed.reading.totalMinor, 12_345);
  assert.equal(fixed.corrections.totalAgorot.by, owner().email);
  assert.equal(fixed.corrections.totalAgorot.ai, 10_000);
  assert.ok(Date.parse(fixed.corrections.totalAgorot.at) > 0);
  assert.deepEqual(Object.keys(fixed.corrections), ['totalAgorot']);

  env.ai.script(bytes, reading({ number: 'R-2', totalMinor: 99_000, vatMinor: 2_000, issuer: { name: 'Acme Renamed' } }));
  const again = await env.h.call('analyzeInvoice', { docId: doc.docId });
  assert.equal(again.totalMinor, 12_345, 'the correction stays');
  assert.deepEqual([again.number, again.issuerName, again.reading.vatMinor], ['R-2', 'Acme Renamed', 2_000], 'the other fields follow the new reading');
  assert.equal(again.corrections.totalAgorot.ai, 99_000, 'what the AI read now');
  // invoiceGet and the list row say so too.
  assert.equal((await env.h.call('invoiceGet', { docId: doc.docId })).corrections.totalAgorot.by, owner().email);
  const row = (await env.h.call('invoicesList', { q: 'R-2' })).items.find((i: any) => i.docId === doc.docId);
  assert.deepEqual([row.totalMinor, row.corrections.totalAgorot.ai], [12_345, 99_000]);

  const back = (await correct(doc.docId, { totalAgorot: null })).body.result;
  assert.deepEqual([back.totalMinor, back.corrections], [99_000, {}]);
});

test('a document not read yet can be corrected; its reading then keeps the correction', async () => {
  const bytes = await pdf();
  const doc = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  assert.equal(doc.readingStatus, 'failed');
  const fixed = (await correct(doc.docId, { issuerName: 'Hand Made', date: '2024-02-29', totalAgorot: 5_000, currency: 'ILS', issuerId: '51-512345-6' })).body.result;
  assert.deepEqual([fixed.issuerName, fixed.date, fixed.totalMinor, fixed.currency, fixed.reading.issuer.vatId, fixed.vendorKey], ['Hand Made', '2024-02-29', 5_000, 'ILS', '515123456', 'vat:515123456']);
  env.ai.script(bytes, reading({ issuer: { name: 'AI Name', vatId: null }, date: '2024-03-01', totalMinor: 7_000, number: 'LATE-1' }));
  const read = await env.h.call('analyzeInvoice', { docId: doc.docId });
  assert.deepEqual([read.issuerName, read.date, read.totalMinor, read.number], ['Hand Made', '2024-02-29', 5_000, 'LATE-1']);
  assert.equal(read.corrections.issuerName.ai, 'AI Name');
});

test('the spend report counts the corrected total, and flags (never refuses) a reading whose VAT equals its total', async () => {
  const range = { from: '2023-01-01', to: '2023-01-31' };
  const { doc } = await uploadRead(reading({ date: '2023-01-05', totalMinor: 10_000, vatMinor: 10_000, currency: 'ILS' }));
  assert.equal(doc.vatIsTotal, true);
  let s = await env.h.call('spendSummary', range);
  assert.deepEqual([s.totals[0].totalMinor, s.totals[0].vatIsTotal, s.vatIsTotal], [10_000, 1, [doc.docId]]);
  assert.equal(s.rows[0].vatIsTotal, 1);

  const fixed = (await correct(doc.docId, { totalAgorot: 11_800, vatAgorot: 1_800 })).body.result;
  assert.equal(fixed.vatIsTotal, false);
  s = await env.h.call('spendSummary', range);
  assert.deepEqual([s.totals[0].totalMinor, s.totals[0].vatMinor, s.totals[0].vatIsTotal, s.vatIsTotal], [11_800, 1_800, 0, []]);
  // A correction may itself make VAT equal the total: flagged, not refused.
  assert.equal((await correct(doc.docId, { vatAgorot: 11_800 })).body.result.vatIsTotal, true);
});

/** The entry names of a ZIP. */
function zipNames(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out: string[] = [];
      zip.on('entry', (e) => {
        out.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

test("the accountant ZIP names the file by the corrected issuer, number and total", async () => {
  const { doc } = await uploadRead(reading({ issuer: { name: 'Zeta' }, number: 'Z-1', date: '2022-06-10', totalMinor: 11_800 }));
  await correct(doc.docId, { issuerName: 'Zeta Fixed', number: 'Z-9', totalAgorot: 22_000 });
  await env.h.call('accFolderCreate', { name: 'Invoices', source: { kind: 'invoices' } });
  const z = await env.h.call('accZip', { from: '2022-06', to: '2022-06' });
  const res = await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin));
  const names = await zipNames(Buffer.from(await res.arrayBuffer()));
  assert.ok(names.includes('Invoices/2022-06-10 Zeta Fixed Z-9 ₪220.00.pdf'), names.join('\n'));
});

test("a corrected total names a payment's invoice in the ZIP, though it differs from the payment", async () => {
  const p = await env.h.call('createPayment', { amountAgorot: 50_000, vatIncluded: true, description: 'Design', supplierName: 'Dana Design', supplierPhone: '050-555-0001', channel: 'link' });
  const bytes = await pdf();
  const ref = await env.h.app.services.files.save(owner().businessId, { fileName: 'dana.pdf', contentType: 'application/pdf', bytes });
  const file = { fileId: ref.fileId, fileName: ref.fileName, contentType: 'application/pdf', size: bytes.length, sha256: sha256Bytes(bytes), uploadedAt: new Date().toISOString() };
  await env.h.app.services.store.update(paymentsPath(owner().businessId, p.id), { invoices: [file] });
  env.ai.script(bytes, reading({ issuer: { name: 'Dana Design' }, number: 'DD-5', date: '2022-07-10', totalMinor: 50_000 }));
  const doc = await env.h.call('analyzeInvoice', { paymentId: p.id });
  const fixed = (await correct(doc.docId, { totalAgorot: 40_000 })).body.result;
  assert.equal(fixed.readingMismatch.total, true, 'the invoice page still says it differs from the payment');
  await env.h.call('accFolderCreate', { name: 'July', source: { kind: 'invoices' } });
  const z = await env.h.call('accZip', { from: '2022-07', to: '2022-07' });
  const names = await zipNames(Buffer.from(await (await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin))).arrayBuffer()));
  assert.ok(names.includes('July/2022-07-10 Dana Design DD-5 ₪400.00.pdf'), names.join('\n'));
});

test('validation errors name the field (HTTP 400 invalid-argument); another business cannot correct', async () => {
  const doc = await upload(env, reading({ totalMinor: 1_000, vatMinor: 100 }));
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ date: '2025-02-30' }, /^reading\.date:/],
    [{ date: '14/03/2025' }, /^reading\.date:/],
    [{ totalAgorot: -1 }, /^reading\.totalAgorot:/],
    [{ totalAgorot: 12.5 }, /^reading\.totalAgorot:/],
    [{ vatAgorot: 1_001 }, /^reading\.vatAgorot:/],
    [{ totalAgorot: 99 }, /^reading\.totalAgorot:/],
    [{ currency: 'GBP' }, /^reading\.currency:/],
    [{ issuerId: '12ab' }, /^reading\.issuerId:/],
    [{ issuerName: '  ' }, /^reading\.issuerName:/],
    [{}, /^reading:/],
  ];
  for (const [fields, message] of cases) {
    const res = await correct(doc.docId, fields);
    assert.equal(res.status, 400, JSON.stringify(fields));
    assert.equal(res.body.error.code, 'invalid-argument');
    assert.match(res.body.error.message, message, JSON.stringify(fields));
  }
  // VAT above the total as the AI read it does not block correcting another field.
  const misread = await upload(env, reading({ totalMinor: 900, vatMinor: 5_000 }));
  const ok = await correct(misread.docId, { number: 'OK-1' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const other = await env.h.newBusiness('Other');
  const res = await correct(doc.docId, { totalAgorot: 1 }, other.apiKey);
  assert.equal(res.body.error.code, 'not-found');
  assert.equal((await storedDoc(env.h, doc.docId)).reading!.totalMinor, 1_000);
});

test('MCP: updateInvoiceDoc takes reading', async () => {
  const doc = await upload(env, reading({ number: 'M-1' }));
  const { client, call } = await connectMcp(origin, owner().apiKey, 'correct-reading-test');
  try {
    const r = await call('updateInvoiceDoc', { docId: doc.docId, reading: { number: 'M-2', currency: 'USD' } });
    assert.equal(r.isError, false, JSON.stringify(r.body));
    assert.deepEqual([r.body.number, r.body.currency, Object.keys(r.body.corrections).sort()], ['M-2', 'USD', ['currency', 'number']]);
  } finally {
    await client.close();
  }
});

// Duplicate detection queries the stored reading: both engines.
for (const engine of engines) {
  describe(`duplicates use corrected values on ${engine.name}`, { skip: engine.skip }, () => {
    let e: InvoicesEnv;
    before(async () => {
      e = await invoicesEnv({ env: await engine.env() });
    });
    after(() => e.close());

    test('a corrected total (or number) that matches an earlier invoice of the issuer makes it a duplicate; undoing it clears that', async () => {
      const issuer = { name: 'Dup Co', vatId: '516000001' };
      const first = await upload(e, reading({ issuer, date: '2024-05-01', totalMinor: 5_000, number: 'D-1' }));
      const second = await upload(e, reading({ issuer, date: '2024-05-01', totalMinor: 6_000, number: 'D-2' }));
      assert.equal(second.duplicateOf, null);
      const dup = await e.h.call('updateInvoiceDoc', { docId: second.docId, reading: { totalAgorot: 5_000 } });
      assert.equal(dup.duplicateOf, first.docId);
      const undone = await e.h.call('updateInvoiceDoc', { docId: second.docId, reading: { totalAgorot: null } });
      assert.deepEqual([undone.totalMinor, undone.duplicateOf], [6_000, null]);
      // A later upload is compared with the corrected values stored.
      await e.h.call('updateInvoiceDoc', { docId: first.docId, reading: { number: 'D-77' } });
      const third = await upload(e, reading({ issuer, date: '2024-06-01', totalMinor: 1, number: 'D-77' }), { skipDuplicates: false });
      assert.equal(third.duplicateOf, first.docId);
    });
  });
}
