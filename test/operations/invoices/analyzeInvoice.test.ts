import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { invoicesEnv, pdf, reading, storedDoc, upload, uploadBody, type InvoicesEnv } from './helpers.ts';
import { paymentsPath, type PaymentFile } from '../../../functions/src/domain/payments/payments.ts';
import { supplierDocId } from '../../../functions/src/domain/invoices/invoiceDocs.ts';
import { folderRulesPath, whenSchema, type FolderRuleRecord } from '../../../functions/src/domain/invoices/folderRules.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const b = () => env.h.owner.businessId;
const analyze = (input: Record<string, unknown>, user = env.h.owner) => env.h.call('analyzeInvoice', input, user);

/** A payment (sent by link) with supplier invoice files attached, as the supplier page would leave it. */
async function paymentWithInvoices(...files: Buffer[]) {
  const p = await env.h.call('createPayment', { amountAgorot: 50_000, vatIncluded: true, description: 'Design work', supplierName: 'Dana Design', supplierPhone: '050-555-0001', channel: 'link' });
  const invoices: PaymentFile[] = [];
  for (const [i, bytes] of files.entries()) {
    const ref = await env.h.app.services.files.save(b(), { fileName: `supplier-${i}.pdf`, contentType: 'application/pdf', bytes });
    invoices.push({ fileId: ref.fileId, fileName: ref.fileName, contentType: 'application/pdf', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), uploadedAt: new Date().toISOString() });
  }
  await env.h.app.services.store.update(paymentsPath(b(), p.id), { invoices });
  return { paymentId: p.id as string, invoices };
}

test('re-reads an uploaded document: reading, issuer key, supplier match, pay mark and folder are derived again', async () => {
  const bytes = await pdf();
  const first = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  assert.equal(first.readingStatus, 'failed');
  await env.h.call('createSupplier', { name: 'Known Supplier', email: 'ap@known.example' });
  env.ai.script(bytes, reading({ issuer: { name: 'Known', vatId: null, email: 'ap@known.example' }, payMethod: 'paypal', number: 'RR-1' }));
  const r = await analyze({ docId: first.docId });
  assert.equal(r.docId, first.docId);
  assert.deepEqual([r.readingStatus, r.readingError, r.number], ['read', null, 'RR-1']);
  assert.equal(r.vendorKey, 'email:ap@known.example');
  assert.deepEqual([r.supplierKey, r.supplierBy], ['ap@known.example', 'auto']);
  assert.equal(r.effectivePayMark, 'paid_paypal');
  assert.match(r.url, /^http/);
});

test('a failed re-read keeps the earlier reading and says it failed', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading({ number: 'KEEP-1' }));
  const doc = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  env.ai.script(bytes, { ok: false, reason: 'model overloaded' });
  const r = await analyze({ docId: doc.docId });
  assert.deepEqual([r.readingStatus, r.readingError, r.number], ['failed', 'model overloaded', 'KEEP-1']);
});

test('a hand-assigned supplier and a hand folder survive a re-read', async () => {
  await env.h.call('createSupplier', { name: 'Mine', phone: '054-111-2222' });
  const doc = await upload(env, reading({ number: 'HS-1' }), { supplierKey: '0541112222', folderId: 'general' });
  const r = await analyze({ docId: doc.docId });
  assert.deepEqual([r.supplierKey, r.supplierBy, r.folderBy], ['+972541112222', 'hand', 'hand']);
});

test('a supplier attachment becomes an invoice document with source supplier, paymentId and fileId; analyzing again updates it', async () => {
  const [one, two] = [await pdf(), await pdf()];
  env.ai.script(one, reading({ issuer: { name: 'Dana Design', vatId: '540000001' }, number: 'DD-1' }));
  env.ai.script(two, reading({ issuer: { name: 'Dana Design', vatId: '540000001' }, number: 'DD-2', allocationNumber: '123456789' }));
  const { paymentId, invoices } = await paymentWithInvoices(one, two);
  // A folder rule for supplier attachments applies to them.
  const folder = await env.h.call('folderCreate', { name: 'From suppliers' });
  const at = new Date().toISOString();
  const rule: FolderRuleRecord = { id: 'sup', when: whenSchema.parse({ source: 'supplier' }), folderId: folder.id, bodyInvoice: false, enabled: true, order: 0, createdAt: at, updatedAt: at, applyCursor: '' };
  await env.h.app.services.store.set(folderRulesPath(b(), 'sup'), { ...rule });

  const first = await analyze({ paymentId });
  assert.equal(first.docId, supplierDocId(paymentId, invoices[0].fileId));
  assert.deepEqual([first.source, first.paymentId, first.fileId, first.fileName], ['supplier', paymentId, invoices[0].fileId, 'supplier-0.pdf']);
  assert.deepEqual([first.supplierKey, first.supplierName, first.supplierBy, first.suggestionId], ['+972505550001', 'Dana Design', 'auto', null]);
  assert.deepEqual([first.folderId, first.folderBy, first.folderRuleId], [folder.id, 'rule', 'sup']);
  const extra = await analyze({ paymentId, fileId: invoices[1].fileId });
  assert.equal(extra.reading.allocationNumber, '123456789');
  assert.notEqual(extra.docId, first.docId);
  const again = await analyze({ paymentId });
  assert.equal(again.docId, first.docId, 'the same attachment keeps its document');
  assert.equal((await env.h.call('invoicesList', { source: 'supplier' })).total, 2);

  // invoiceSetFolder (folders engineer) finds it by paymentId + fileId.
  const moved = await env.h.call('invoiceSetFolder', { folderId: 'general', paymentId, fileId: invoices[0].fileId });
  assert.equal(moved.docId, first.docId);
  assert.equal((await analyze({ paymentId })).folderBy, 'hand');
  await env.h.app.services.store.delete(folderRulesPath(b(), 'sup'));
});

test('input rules: docId or paymentId, fileId only with paymentId; unknown ids are not-found, also across businesses', async () => {
  await assert.rejects(analyze({}), { code: 'invalid-argument', message: /^docId:/ });
  await assert.rejects(analyze({ docId: 'x', paymentId: 'y' }), { code: 'invalid-argument', message: /^docId: send either/ });
  await assert.rejects(analyze({ fileId: 'f' }), { code: 'invalid-argument', message: /^docId: fileId needs paymentId/ });
  await assert.rejects(analyze({ docId: 'nope' }), { code: 'not-found', message: /^docId: invoice document nope/ });
  await assert.rejects(analyze({ paymentId: 'nope' }), { code: 'not-found', message: /^paymentId:/ });
  const { paymentId } = await paymentWithInvoices(await pdf());
  await assert.rejects(analyze({ paymentId, fileId: 'other' }), { code: 'not-found', message: /^fileId: invoice file other/ });
  const bare = await env.h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Y', supplierPhone: '050-555-0009', channel: 'link' });
  await assert.rejects(analyze({ paymentId: bare.id }), { code: 'failed-precondition', message: /has no invoice attached/ });

  const other = await env.h.newBusiness('Other');
  const doc = await upload(env, reading());
  await assert.rejects(analyze({ docId: doc.docId }, other), { code: 'not-found' });
  await assert.rejects(analyze({ paymentId }, other), { code: 'not-found' });
});

test('without an API key: failed-precondition "AI is not configured"; once configured the unread document is read', async () => {
  const off = await invoicesEnv({ configured: false });
  try {
    const doc = await upload(off, reading());
    await assert.rejects(off.h.call('analyzeInvoice', { docId: doc.docId }), { code: 'failed-precondition', message: /^AI is not configured/ });
    // Turning the key on makes it readable.
    off.ai.configured = true;
    const read = await off.h.call('analyzeInvoice', { docId: doc.docId });
    assert.equal(read.readingStatus, 'read');
  } finally {
    await off.close();
  }
});

test('a used-up daily AI quota is 429 resource-exhausted and the document stays unread', async () => {
  const tight = await invoicesEnv({ env: { QUOTA_AI: '1' } });
  try {
    await upload(tight, reading());
    const bytes = await pdf();
    tight.ai.script(bytes, reading());
    const err = await tight.h.call('uploadInvoiceDoc', uploadBody(bytes)).catch((e) => e);
    const docId = /document (\w+)/.exec(err.message)![1];
    await assert.rejects(tight.h.call('analyzeInvoice', { docId }), { code: 'resource-exhausted' });
    assert.equal((await storedDoc(tight.h, docId)).readingStatus, 'unread');
  } finally {
    await tight.close();
  }
});
