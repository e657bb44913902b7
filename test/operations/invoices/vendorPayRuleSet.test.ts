import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, reading, storedDoc, upload, type InvoicesEnv } from './helpers.ts';
import { vendorRulesPath } from '../../../functions/src/domain/invoices/vendorRules.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const set = (input: Record<string, unknown>) => env.h.call('vendorPayRuleSet', input);
const issuer = { name: 'Rule Co', vatId: '570000001' };

test('card marks the issuer\'s existing and future invoices paid_card; explicit marks still win', async () => {
  const plain = await upload(env, reading({ issuer }));
  const transfer = await upload(env, reading({ issuer, payMethod: 'bank_transfer' }));
  const explicit = await upload(env, reading({ issuer }));
  await env.h.call('updateInvoiceDoc', { docId: explicit.docId, payMark: 'not_payable' });
  const r = await set({ key: 'vat:570000001', rule: 'card', name: 'Rule Company' });
  assert.deepEqual(r, { key: 'vat:570000001', name: 'Rule Company', payRule: 'card', category: '', updated: 3, remaining: 0 });
  assert.equal((await storedDoc(env.h, plain.docId)).effectivePayMark, 'paid_card');
  assert.equal((await storedDoc(env.h, transfer.docId)).effectivePayMark, 'paid_card');
  assert.equal((await storedDoc(env.h, explicit.docId)).effectivePayMark, 'not_payable');
  assert.equal((await upload(env, reading({ issuer }))).effectivePayMark, 'paid_card');
  // The list filter follows the mark in force.
  assert.equal((await env.h.call('invoicesList', { payMark: 'paid_card', q: 'rule' })).total, 3);
});

test('not_card: the AI\'s non-card mark, else unpaid; "" forgets the rule and the AI decides again', async () => {
  const card = await upload(env, reading({ issuer: { vatId: '570000002' }, payMethod: 'card' }));
  const paypal = await upload(env, reading({ issuer: { vatId: '570000002' }, payMethod: 'paypal' }));
  await set({ key: 'vat:570000002', rule: 'not_card' });
  assert.equal((await storedDoc(env.h, card.docId)).effectivePayMark, 'unpaid');
  assert.equal((await storedDoc(env.h, paypal.docId)).effectivePayMark, 'paid_paypal');
  const r = await set({ key: 'vat:570000002', rule: '' });
  assert.deepEqual([r.payRule, r.updated], ['', 2]);
  assert.equal((await storedDoc(env.h, card.docId)).effectivePayMark, 'paid_card');
  assert.equal(await env.h.app.services.store.get(vendorRulesPath(env.h.owner.businessId, 'vat:570000002')), null, 'no rule left: the record is gone');
  // Setting the same rule twice touches nothing the second time.
  await set({ key: 'vat:570000002', rule: 'card' });
  assert.equal((await set({ key: 'vat:570000002', rule: 'card' })).updated, 0);
});

test('another business\'s invoices are untouched', async () => {
  const other = await env.h.newBusiness('Other');
  const theirs = await upload(env, reading({ issuer: { vatId: '570000003' } }), {}, other);
  await set({ key: 'vat:570000003', rule: 'card' });
  assert.equal((await storedDoc(env.h, theirs.docId, other.businessId)).effectivePayMark, 'unpaid');
});

test('the key must be vat:, email:, phone: or name: with a value; the rule one of card, not_card, ""', async () => {
  await assert.rejects(set({ key: 'acme', rule: 'card' }), { code: 'invalid-argument', message: /^key: "acme" is not an issuer key/ });
  await assert.rejects(set({ key: 'vat:', rule: 'card' }), { code: 'invalid-argument', message: /^key:/ });
  await assert.rejects(set({ key: 'vat:1', rule: 'cash' }), { code: 'invalid-argument', message: /^rule:/ });
  assert.equal((await set({ key: ' name:corner shop ', rule: 'not_card' })).key, 'name:corner shop');
});
