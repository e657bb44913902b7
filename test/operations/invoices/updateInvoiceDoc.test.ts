import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, upload, type InvoicesEnv } from './helpers.ts';
import { issuerId, suggestionsPath } from '../../../functions/src/domain/invoices/issuers.ts';
import { folderRulesPath, whenSchema, type FolderRuleRecord } from '../../../functions/src/domain/invoices/folderRules.ts';
import { activityPath } from '../../../functions/src/core/activity.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
  await env.h.call('createSupplier', { name: 'Plumber Moshe', phone: '050-222-3333' });
});
after(() => env.close());

const update = (input: Record<string, unknown>, user = env.h.owner) => env.h.call('updateInvoiceDoc', input, user);

test('reassigns the supplier by hand (key normalized, must exist) and leaves the suggestion it was collected under', async () => {
  const doc = await upload(env, reading({ issuer: { name: 'Unknown Co', vatId: '550000001' } }));
  const sid = issuerId('vat:550000001');
  assert.equal(doc.suggestionId, sid);
  const r = await update({ docId: doc.docId, supplierKey: '050 222 3333' });
  assert.deepEqual([r.supplierKey, r.supplierName, r.supplierBy, r.suggestionId], ['+972502223333', 'Plumber Moshe', 'hand', null]);
  const s = await env.h.app.services.store.get(suggestionsPath(env.h.owner.businessId, sid));
  assert.deepEqual(s?.data.docIds, []);
  await assert.rejects(update({ docId: doc.docId, supplierKey: '050-999-9999' }), { code: 'not-found', message: /^supplierKey: supplier/ });
  await assert.rejects(update({ docId: doc.docId, supplierKey: 'bad' }), { code: 'invalid-argument', message: /^supplierKey:/ });
});

test('supplierKey "" clears the assignment; supplierName renames it', async () => {
  const doc = await upload(env, reading(), { supplierKey: '0502223333' });
  const renamed = await update({ docId: doc.docId, supplierName: 'Moshe (plumbing)' });
  assert.deepEqual([renamed.supplierKey, renamed.supplierName, renamed.supplierBy], ['+972502223333', 'Moshe (plumbing)', 'hand']);
  const cleared = await update({ docId: doc.docId, supplierKey: '' });
  assert.deepEqual([cleared.supplierKey, cleared.supplierName, cleared.supplierBy], [null, '', null]);
});

test('note is searchable after the edit', async () => {
  const doc = await upload(env, reading());
  await update({ docId: doc.docId, note: 'quarterly zebra' });
  const found = await env.h.call('invoicesList', { q: 'zebra' });
  assert.deepEqual(found.items.map((i: any) => i.docId), [doc.docId]);
  // The activity row names the document and the fields edited, not their values.
  const rows = await env.h.app.services.store.query({ collection: activityPath(env.h.owner.businessId) });
  const row = rows.map((r) => r.data).find((r) => r.operation === 'updateInvoiceDoc' && (r.targetIds as string[]).includes(doc.docId));
  assert.match(String(row?.summary), /: note$/);
});

test('payMark: an explicit value overrides; "" hands the decision back to the rule and the AI', async () => {
  const doc = await upload(env, reading({ payMethod: 'bank_transfer' }));
  assert.deepEqual([doc.payMark, doc.effectivePayMark], ['', 'paid_transfer']);
  const marked = await update({ docId: doc.docId, payMark: 'not_payable' });
  assert.deepEqual([marked.payMark, marked.effectivePayMark], ['not_payable', 'not_payable']);
  const back = await update({ docId: doc.docId, payMark: '' });
  assert.deepEqual([back.payMark, back.effectivePayMark], ['', 'paid_transfer']);
  await assert.rejects(update({ docId: doc.docId, payMark: 'paid_bitcoin' }), { code: 'invalid-argument', message: /^payMark:/ });
});

test('a supplier change files the document again by rules (never a hand-filed one)', async () => {
  const folder = await env.h.call('folderCreate', { name: 'Plumbing' });
  const at = new Date().toISOString();
  const rule: FolderRuleRecord = { id: 'plumb', when: whenSchema.parse({ supplier: '+972502223333' }), folderId: folder.id, bodyInvoice: false, enabled: true, order: 0, createdAt: at, updatedAt: at, applyCursor: '' };
  await env.h.app.services.store.set(folderRulesPath(env.h.owner.businessId, 'plumb'), { ...rule });
  const doc = await upload(env, reading());
  assert.equal(doc.folderId, 'general');
  const r = await update({ docId: doc.docId, supplierKey: '0502223333' });
  assert.deepEqual([r.folderId, r.folderBy, r.folderRuleId], [folder.id, 'rule', 'plumb']);
  const hand = await upload(env, reading(), { folderId: 'general' });
  assert.equal((await update({ docId: hand.docId, supplierKey: '0502223333' })).folderId, 'general');
  await env.h.app.services.store.delete(folderRulesPath(env.h.owner.businessId, 'plumb'));
});

test('an empty edit is invalid-argument; another business\'s document is not-found and unchanged', async () => {
  const doc = await upload(env, reading());
  await assert.rejects(update({ docId: doc.docId }), { code: 'invalid-argument', message: /^body: send at least one/ });
  const other = await env.h.newBusiness('Other');
  await assert.rejects(update({ docId: doc.docId, note: 'hijack' }, other), { code: 'not-found' });
  assert.equal((await storedDoc(env.h, doc.docId)).note, '');
});
