import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { get } from '../../http.ts';
import { usersPath } from '../../../functions/src/domain/business.ts';
import { createPayment, fileToken, paymentsEnv, PDF, type PaymentsEnv } from './helpers.ts';
import type { TestUser } from '../../harness.ts';

let env: PaymentsEnv;
let payer: TestUser;
let payee: TestUser;
before(async () => {
  env = await paymentsEnv();
  payer = await env.h.newBusiness('Payer Ltd');
  payee = await env.h.newBusiness('Payee Studio');
});
after(() => env.close());

const incoming = (user: TestUser) => env.h.call('listIncomingPayments', {}, user);

test("a payment another business addressed to the owner's sign-up email is incoming, with the payer's name", async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierPhone: undefined, supplierEmail: payee.email.toUpperCase(), description: 'Logo design', channel: 'link' }, payer);
  const r = await incoming(payee);
  assert.equal(r.contacts.email, payee.email);
  assert.equal(r.contacts.phone, null);
  assert.equal(r.items.length, 1);
  const item = r.items[0];
  assert.equal(item.paymentId, p.id);
  assert.equal(item.businessId, payer.businessId);
  assert.equal(item.businessName, 'Payer Ltd');
  assert.equal(item.description, 'Logo design');
  assert.equal(item.status, 'sent');
  assert.equal(item.link, p.link, 'the payee can open the supplier link from here');
  assert.equal('payout' in item, false);
  // The payer does not see its own payment as incoming.
  assert.equal((await incoming(payer)).items.length, 0);
});

test("invoices and the proof come with download URLs from the payer's files", async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierPhone: undefined, supplierEmail: payee.email, description: 'With proof', channel: 'link' }, payer);
  await h.call('markPaid', { paymentId: p.id, proof: { fileName: 'wire.pdf', mimeType: 'application/pdf', dataBase64: PDF.toString('base64') } }, payer);
  const item = (await incoming(payee)).items.find((i: any) => i.paymentId === p.id);
  assert.equal(item.status, 'paid');
  assert.ok(item.paidAt);
  assert.equal(item.proof.fileName, 'wire.pdf');
  assert.ok((await h.app.services.files.open(fileToken(item.proof.url)))?.bytes.equals(PDF));
  assert.deepEqual(item.invoices, []);
});

test('a phone counts only once verified', async () => {
  const { h } = env;
  const store = h.app.services.store;
  await store.update(usersPath(payee.userId), { phone: '+972507654321', phoneVerified: false });
  const p = await createPayment(h, { supplierPhone: '050-765-4321', description: 'By phone', channel: 'link' }, payer);
  assert.equal((await incoming(payee)).items.some((i: any) => i.paymentId === p.id), false);
  await store.update(usersPath(payee.userId), { phoneVerified: true });
  const r = await incoming(payee);
  assert.equal(r.contacts.phone, '+972507654321');
  assert.equal(r.items.some((i: any) => i.paymentId === p.id), true);
  // Newest first, each payment once even when it names both contacts.
  const both = await createPayment(h, { supplierPhone: '0507654321', supplierEmail: payee.email, description: 'Both contacts', channel: 'link' }, payer);
  const items = (await incoming(payee)).items;
  assert.equal(items[0].paymentId, both.id);
  assert.equal(items.filter((i: any) => i.paymentId === both.id).length, 1);
  const times = items.map((i: any) => i.createdAt);
  assert.deepEqual(times, [...times].sort().reverse());
});

test("a business's own payments to its owner are not incoming; other addresses are not either", async () => {
  const { h } = env;
  await createPayment(h, { supplierPhone: undefined, supplierEmail: payee.email, channel: 'link' }, payee);
  await createPayment(h, { supplierPhone: undefined, supplierEmail: 'someone-else@example.com', channel: 'link' }, payer);
  const items = (await incoming(payee)).items;
  assert.ok(items.every((i: any) => i.businessId === payer.businessId));
  assert.ok(items.every((i: any) => i.supplierEmail === payee.email || i.supplierPhone === '+972507654321'));
});

test('is read-only and served over GET', async () => {
  const { h } = env;
  const origin = await h.listen();
  const res = await get(origin, '/v1/listIncomingPayments', payee.apiKey);
  assert.equal(res.status, 200);
  assert.ok(res.body.result.items.length >= 3);
  assert.equal(res.headers.get('x-doc-writes'), '0');
  assert.equal(h.registry.get('listIncomingPayments')!.flags.readOnly, true);
});
