import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, upload, type InvoicesEnv } from './helpers.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const set = (input: Record<string, unknown>) => env.h.call('vendorCategoryRuleSet', input);

test('a rule outranks the AI and an older rule, never a hand choice; "" forgets it', async () => {
  const issuer = { name: 'Office Depot', vatId: '610000001' };
  const none = await upload(env, reading({ issuer }));
  const byAi = await upload(env, reading({ issuer }));
  const byHand = await upload(env, reading({ issuer }));
  const store = env.h.app.services.store;
  await store.update(`businesses/${env.h.owner.businessId}/invoices/${byAi.docId}`, { category: 'equipment', categoryBy: 'ai' });
  await env.h.call('invoiceSetCategory', { docIds: [byHand.docId], category: 'gifts', remember: false });

  const r = await set({ key: 'vat:610000001', category: 'office_supplies' });
  assert.deepEqual(r, { key: 'vat:610000001', name: '610000001', payRule: '', category: 'office_supplies', updated: 2, remaining: 0 });
  for (const id of [none.docId, byAi.docId]) assert.deepEqual(((d) => [d.category, d.categoryBy])(await storedDoc(env.h, id)), ['office_supplies', 'rule']);
  assert.equal((await storedDoc(env.h, byHand.docId)).category, 'gifts');

  const changed = await set({ key: 'vat:610000001', category: 'equipment', name: 'Office Depot' });
  assert.deepEqual([changed.updated, changed.name], [2, 'Office Depot']);
  assert.equal((await storedDoc(env.h, none.docId)).category, 'equipment');
  assert.equal((await set({ key: 'vat:610000001', category: 'equipment' })).updated, 0, 'nothing left to change');

  const forgot = await set({ key: 'vat:610000001', category: '' });
  assert.deepEqual([forgot.category, forgot.updated], ['', 2]);
  assert.deepEqual(((d) => [d.category, d.categoryBy])(await storedDoc(env.h, none.docId)), ['', null]);
  assert.equal((await storedDoc(env.h, byHand.docId)).category, 'gifts');
});

test('pay and category rules share one record per issuer', async () => {
  await env.h.call('vendorPayRuleSet', { key: 'email:x@x.example', rule: 'card' });
  const r = await set({ key: 'email:x@x.example', category: 'software' });
  assert.deepEqual([r.payRule, r.category], ['card', 'software']);
  const list = await env.h.call('vendorRulesList');
  assert.equal(list.payRules.length, 1);
  assert.equal(list.categoryRules.length, 1);
});

test('the key and category are checked', async () => {
  await assert.rejects(set({ key: 'nokey', category: 'rent' }), { code: 'invalid-argument', message: /^key:/ });
  await assert.rejects(set({ key: 'vat:1', category: 'bitcoin' }), { code: 'invalid-argument', message: /^category:/ });
  await assert.rejects(set({ key: 'vat:1' }), { code: 'invalid-argument', message: /^category: is required/ });
});
