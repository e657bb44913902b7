import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, upload, type InvoicesEnv } from './helpers.ts';
import { folderRulesPath, whenSchema, type FolderRuleRecord } from '../../../functions/src/domain/invoices/folderRules.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const setCategory = (input: Record<string, unknown>, user = env.h.owner) => env.h.call('invoiceSetCategory', input, user);

test('sets the category by hand; "" makes it uncategorized by hand', async () => {
  const a = await upload(env, reading());
  const r = await setCategory({ docIds: [a.docId], category: 'rent', remember: false });
  assert.deepEqual(r, { updated: 1, rules: [], propagated: { updated: 0, remaining: 0 } });
  let d = await storedDoc(env.h, a.docId);
  assert.deepEqual([d.category, d.categoryBy], ['rent', 'hand']);
  await setCategory({ docIds: [a.docId], category: '', remember: false });
  d = await storedDoc(env.h, a.docId);
  assert.deepEqual([d.category, d.categoryBy], ['', 'hand']);
  await assert.rejects(setCategory({ docIds: [a.docId], category: 'yachts', remember: false }), { code: 'invalid-argument', message: /^category: "yachts" is not a category id/ });
});

test('remember makes it the rule of each distinct issuer: their other invoices (not hand-set) follow, and future uploads', async () => {
  const issuer = { name: 'Fuel Co', vatId: '600000001' };
  const a = await upload(env, reading({ issuer }));
  const sibling = await upload(env, reading({ issuer }));
  const handSet = await upload(env, reading({ issuer }));
  await setCategory({ docIds: [handSet.docId], category: 'gifts', remember: false });
  const r = await setCategory({ docIds: [a.docId], category: 'vehicle_fuel', remember: true });
  assert.deepEqual(r.rules, ['vat:600000001']);
  assert.deepEqual(r.propagated, { updated: 1, remaining: 0 });
  const s = await storedDoc(env.h, sibling.docId);
  assert.deepEqual([s.category, s.categoryBy], ['vehicle_fuel', 'rule']);
  assert.equal((await storedDoc(env.h, handSet.docId)).category, 'gifts');
  const later = await upload(env, reading({ issuer }));
  assert.deepEqual([later.category, later.categoryBy], ['vehicle_fuel', 'rule']);
  assert.deepEqual((await env.h.call('vendorRulesList')).categoryRules.map((c: any) => [c.key, c.name, c.category]), [['vat:600000001', 'Fuel Co', 'vehicle_fuel']]);
  // "" with remember forgets the rule; the rule's documents become uncategorized for categorySync.
  await setCategory({ docIds: [a.docId], category: '', remember: true });
  assert.deepEqual((await env.h.call('vendorRulesList')).categoryRules, []);
  const after = await storedDoc(env.h, sibling.docId);
  assert.deepEqual([after.category, after.categoryBy], ['', null]);
});

test('a category change files rule- or default-placed documents again (folder rules can test the category)', async () => {
  const folder = await env.h.call('folderCreate', { name: 'Rent' });
  const at = new Date().toISOString();
  const rule: FolderRuleRecord = { id: 'rent', when: whenSchema.parse({ category: 'rent' }), folderId: folder.id, bodyInvoice: false, enabled: true, order: 0, createdAt: at, updatedAt: at, applyCursor: '' };
  await env.h.app.services.store.set(folderRulesPath(env.h.owner.businessId, 'rent'), { ...rule });
  const a = await upload(env, reading());
  const hand = await upload(env, reading(), { folderId: 'general' });
  await setCategory({ docIds: [a.docId, hand.docId], category: 'rent', remember: false });
  const d = await storedDoc(env.h, a.docId);
  assert.deepEqual([d.folderId, d.folderBy, d.folderRuleId], [folder.id, 'rule', 'rent']);
  assert.equal((await storedDoc(env.h, hand.docId)).folderId, 'general');
  await env.h.app.services.store.delete(folderRulesPath(env.h.owner.businessId, 'rent'));
});

test('an unknown or foreign id is not-found and nothing changes', async () => {
  const a = await upload(env, reading());
  const other = await env.h.newBusiness('Other');
  await assert.rejects(setCategory({ docIds: [a.docId], category: 'rent', remember: false }, other), { code: 'not-found' });
  assert.equal((await storedDoc(env.h, a.docId)).category, '');
});
