import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { invoicesEnv, pdf, reading, upload, uploadBody, docExists, type InvoicesEnv } from './helpers.ts';
import { invoiceHashPath } from '../../../functions/src/domain/invoices/duplicates.ts';
import { issuerId, suggestionsPath } from '../../../functions/src/domain/invoices/issuers.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const b = () => env.h.owner.businessId;
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;

test('is flagged dangerous', () => {
  assert.equal(env.h.registry.get('deleteInvoiceDoc')!.flags.dangerous, true);
});

test('removes the document, its hash marker, its file (the link dies) and its id from the suggestion', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading({ issuer: { name: 'Gone Co', vatId: '560000001' } }));
  const doc = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  const r = await env.h.call('deleteInvoiceDoc', { docId: doc.docId });
  assert.deepEqual(r, { docId: doc.docId, fileName: 'invoice.pdf', deleted: true, fileRemoved: true });
  assert.equal(await docExists(env.h, doc.docId), false);
  assert.equal(await env.h.app.services.store.get(invoiceHashPath(b(), doc.sha256)), null);
  assert.equal(await env.h.app.services.files.open(tokenOf(doc.url)), null);
  assert.deepEqual((await env.h.app.services.store.get(suggestionsPath(b(), issuerId('vat:560000001'))))?.data.docIds, []);
  // The same file can be uploaded again.
  assert.equal((await env.h.call('uploadInvoiceDoc', uploadBody(bytes))).skipped, false);
  await assert.rejects(env.h.call('deleteInvoiceDoc', { docId: doc.docId }), { code: 'not-found' });
});

test('deleting an original leaves a kept copy findable as a duplicate of the bytes', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading());
  const first = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  const copy = await env.h.call('uploadInvoiceDoc', uploadBody(bytes, { skipDuplicates: false }));
  await env.h.call('deleteInvoiceDoc', { docId: first.docId });
  const again = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  assert.deepEqual(again, { skipped: true, duplicateOf: copy.docId, reason: 'sha256' });
});

test("a supplier attachment's document goes, its file stays with the payment", async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading());
  const p = await env.h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Y', supplierPhone: '050-555-0101', channel: 'link' });
  const ref = await env.h.app.services.files.save(b(), { fileName: 's.pdf', contentType: 'application/pdf', bytes });
  await env.h.app.services.store.update(paymentsPath(b(), p.id), {
    invoices: [{ fileId: ref.fileId, fileName: 's.pdf', contentType: 'application/pdf', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), uploadedAt: new Date().toISOString() }],
  });
  const doc = await env.h.call('analyzeInvoice', { paymentId: p.id });
  const r = await env.h.call('deleteInvoiceDoc', { docId: doc.docId });
  assert.equal(r.fileRemoved, false);
  assert.ok(await env.h.app.services.files.ref(b(), ref.fileId), 'the payment keeps its invoice file');
});

test("another business's document is not-found and stays", async () => {
  const doc = await upload(env, reading());
  const other = await env.h.newBusiness('Other');
  await assert.rejects(env.h.call('deleteInvoiceDoc', { docId: doc.docId }, other), { code: 'not-found' });
  assert.equal(await docExists(env.h, doc.docId), true);
});
