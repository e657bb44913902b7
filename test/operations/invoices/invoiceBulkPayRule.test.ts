import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, upload, type InvoicesEnv } from './helpers.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const bulk = (input: Record<string, unknown>, user = env.h.owner) => env.h.call('invoiceBulkPayRule', input, user);

test('card sets an explicit paid_card on the documents, without saving a rule', async () => {
  const a = await upload(env, reading({ issuer: { vatId: '580000001' } }));
  const b = await upload(env, reading({ issuer: { vatId: '580000002' }, payMethod: 'cash' }));
  const r = await bulk({ docIds: [a.docId, b.docId, a.docId], rule: 'card', remember: false });
  assert.deepEqual(r, { updated: 2, rules: [], propagated: { updated: 0, remaining: 0 } });
  for (const id of [a.docId, b.docId]) {
    const d = await storedDoc(env.h, id);
    assert.deepEqual([d.payMark, d.effectivePayMark], ['paid_card', 'paid_card']);
  }
  assert.deepEqual((await env.h.call('vendorRulesList')).payRules, []);
});

test('not_card turns a card mark into the AI\'s non-card mark or unpaid, and keeps a non-card mark', async () => {
  const card = await upload(env, reading({ issuer: { vatId: '580000003' }, payMethod: 'card' }));
  const transfer = await upload(env, reading({ issuer: { vatId: '580000003' }, payMethod: 'bank_transfer' }));
  await bulk({ docIds: [card.docId, transfer.docId], rule: 'card', remember: false });
  await bulk({ docIds: [card.docId, transfer.docId], rule: 'not_card', remember: false });
  assert.equal((await storedDoc(env.h, card.docId)).effectivePayMark, 'unpaid');
  assert.equal((await storedDoc(env.h, transfer.docId)).effectivePayMark, 'paid_transfer');
  const other = await upload(env, reading({ issuer: { vatId: '580000003' } }));
  await env.h.call('updateInvoiceDoc', { docId: other.docId, payMark: 'paid_other' });
  await bulk({ docIds: [other.docId], rule: 'not_card', remember: false });
  assert.equal((await storedDoc(env.h, other.docId)).effectivePayMark, 'paid_other');
});

test('remember saves one rule per distinct issuer and applies it to their other invoices; unread documents have no issuer', async () => {
  const x1 = await upload(env, reading({ issuer: { name: 'X Ltd', vatId: '580000010' } }));
  const x2 = await upload(env, reading({ issuer: { name: 'X Ltd', vatId: '580000010' } }));
  const xOther = await upload(env, reading({ issuer: { name: 'X Ltd', vatId: '580000010' } }));
  const y = await upload(env, reading({ issuer: { name: 'Y Ltd', vatId: null, email: 'y@y.example' } }));
  const unread = await upload(env, null);
  const r = await bulk({ docIds: [x1.docId, x2.docId, y.docId, unread.docId], rule: 'card', remember: true });
  assert.deepEqual(r.rules.sort(), ['email:y@y.example', 'vat:580000010']);
  assert.deepEqual(r.propagated, { updated: 1, remaining: 0 });
  const list = await env.h.call('vendorRulesList');
  assert.deepEqual(list.payRules.map((p: any) => [p.key, p.name, p.rule]), [['vat:580000010', 'X Ltd'], ['email:y@y.example', 'Y Ltd']].map(([k, n]) => [k, n, 'card']));
  const d = await storedDoc(env.h, xOther.docId);
  assert.deepEqual([d.payMark, d.payRule, d.effectivePayMark], ['', 'card', 'paid_card']);
  assert.equal((await upload(env, reading({ issuer: { vatId: '580000010' } }))).effectivePayMark, 'paid_card');
});

test('all or nothing: an unknown id (or another business\'s) is not-found and nothing changes', async () => {
  const a = await upload(env, reading({ issuer: { vatId: '580000020' } }));
  const other = await env.h.newBusiness('Other');
  const theirs = await upload(env, reading(), {}, other);
  await assert.rejects(bulk({ docIds: [a.docId, theirs.docId], rule: 'card', remember: true }), { code: 'not-found', message: new RegExp(`^docIds: invoice document ${theirs.docId}`) });
  assert.equal((await storedDoc(env.h, a.docId)).payMark, '');
  await assert.rejects(bulk({ docIds: [], rule: 'card', remember: false }), { code: 'invalid-argument', message: /^docIds: at least 1/ });
  await assert.rejects(bulk({ docIds: [a.docId], rule: 'card' }), { code: 'invalid-argument', message: /^remember: is required/ });
});
