import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { suppliersPath } from '../../../functions/src/domain/payments/suppliers.ts';
import { createPayment, outbox, paymentsEnv, simulateSubmission, stored, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

const update = (input: Record<string, unknown>) => env.h.call('updatePaymentSettings', input);

test('changes only the fields sent, and recomputes the search tokens', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  const u = await update({ paymentId: p.id, description: 'Garden fence', amountAgorot: 50_000, currency: 'EUR', vatIncluded: false, invoiceRequired: true, payMethods: ['bit'] });
  assert.equal(u.description, 'Garden fence');
  assert.equal(u.amountAgorot, 50_000);
  assert.equal(u.currency, 'EUR');
  assert.equal(u.vatIncluded, false);
  assert.equal(u.invoiceRequired, true);
  assert.deepEqual(u.payMethods, ['bit']);
  assert.equal(u.supplierName, p.supplierName);
  assert.equal(u.status, 'sent');
  const rec = await stored(h, p.id);
  assert.ok(rec.search.includes('garden') && !rec.search.includes('kitchen'));
  assert.deepEqual((await h.call('paymentsList', { q: 'fence' })).items.map((i: any) => i.id), [p.id]);
  assert.equal((await update({ paymentId: p.id, payMethods: ['bank', 'bit'] })).payMethods.length, 0, 'both = free choice');
});

test('rule 1: invoiceRequired and payMethods change after sending, even once paid, but not once canceled', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await h.call('markPaid', { paymentId: p.id });
  assert.equal((await update({ paymentId: p.id, invoiceRequired: true })).invoiceRequired, true);
  const c = await createPayment(h, { channel: 'link' });
  await h.call('cancelPayment', { paymentId: c.id });
  await assert.rejects(update({ paymentId: c.id, payMethods: ['bank'] }), {
    code: 'failed-precondition',
    message: /^rule 1 \(after sending\): payMethods can change only .*; this payment is canceled/,
  });
});

test('rule 2: amount, currency, VAT flag and description change only while unpaid; a refusal changes nothing', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await simulateSubmission(h, p.id);
  assert.equal((await update({ paymentId: p.id, amountAgorot: 999 })).amountAgorot, 999, 'ready is still unpaid');
  await h.call('markPaid', { paymentId: p.id });
  const before = await stored(h, p.id);
  await assert.rejects(update({ paymentId: p.id, invoiceRequired: true, amountAgorot: 1000 }), {
    code: 'failed-precondition',
    message: /^rule 2 \(while unpaid\): amountAgorot can change only while the payment is unpaid; this payment is paid/,
  });
  assert.deepEqual(await stored(h, p.id), before, 'the allowed invoiceRequired change was not applied either');
  await assert.rejects(update({ paymentId: p.id, description: 'late edit' }), { message: /^rule 2 \(while unpaid\): description/ });
});

test('rule 3: supplier name, contacts and channel change only before the supplier filled payout details', async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierEmail: 'r3@example.com' });
  assert.equal((await update({ paymentId: p.id, supplierName: 'New Name' })).supplierName, 'New Name');
  await simulateSubmission(h, p.id);
  const before = await stored(h, p.id);
  await assert.rejects(update({ paymentId: p.id, supplierPhone: '0529876543' }), {
    code: 'failed-precondition',
    message: /^rule 3 \(before bank details\): supplierPhone can change only while the supplier has not filled payout details; this payment is ready, payout details filled/,
  });
  await assert.rejects(update({ paymentId: p.id, channel: 'em' }), { message: /^rule 3 \(before bank details\): channel/ });
  assert.deepEqual(await stored(h, p.id), before);
  // Rule 2 still allows the amount on a ready payment.
  assert.equal((await update({ paymentId: p.id, amountAgorot: 777 })).amountAgorot, 777);
});

test('sending unchanged values is not a change, so it is never refused', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link', supplierPhone: '0501234567' });
  await h.call('markPaid', { paymentId: p.id });
  const before = await stored(h, p.id);
  const u = await update({ paymentId: p.id, amountAgorot: p.amountAgorot, description: p.description, supplierPhone: '+972 50 123 4567', supplierName: p.supplierName, channel: 'link' });
  assert.equal(u.status, 'paid');
  assert.deepEqual(await stored(h, p.id), before, 'nothing written');
});

test('a new phone becomes the supplierKey; the new supplier is recorded; "" clears the email', async () => {
  const { h } = env;
  const b = h.owner.businessId;
  const p = await createPayment(h, { supplierPhone: undefined, supplierEmail: 'key@example.com', supplierName: 'Key Person' });
  assert.equal(p.supplierKey, 'key@example.com');
  assert.equal(p.channel, 'em');
  const u = await update({ paymentId: p.id, supplierPhone: '054-777-8888' });
  assert.equal(u.supplierPhone, '+972547778888');
  assert.equal(u.supplierKey, '+972547778888');
  assert.equal(u.channel, 'wa', 'channel follows the contacts, as on creation');
  const supplier = await h.app.services.store.get(suppliersPath(b, '+972547778888'));
  assert.equal(supplier?.data.name, 'Key Person');
  assert.deepEqual((await h.call('paymentsList', { supplierKey: '0547778888' })).items.map((i: any) => i.id), [p.id]);
  const cleared = await update({ paymentId: p.id, supplierEmail: '' });
  assert.equal(cleared.supplierEmail, null);
  assert.equal(cleared.supplierKey, '+972547778888');
  const back = await update({ paymentId: p.id, supplierEmail: 'Back@Example.com', supplierPhone: '' });
  assert.deepEqual([back.supplierPhone, back.supplierEmail, back.supplierKey, back.channel], [null, 'back@example.com', 'back@example.com', 'em']);
});

test('at least one contact must remain; bad contacts and channels are refused naming the field', async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierPhone: '0501234567' });
  const before = await stored(h, p.id);
  await assert.rejects(update({ paymentId: p.id, supplierPhone: '' }), { code: 'invalid-argument', message: /^supplierPhone: a payment needs a supplierPhone or a supplierEmail/ });
  await assert.rejects(update({ paymentId: p.id, supplierPhone: '123' }), { code: 'invalid-argument', message: /^supplierPhone: "123" is not a valid phone/ });
  await assert.rejects(update({ paymentId: p.id, supplierEmail: 'x@' }), { code: 'invalid-argument', message: /^supplierEmail:/ });
  await assert.rejects(update({ paymentId: p.id, channel: 'em' }), { code: 'invalid-argument', message: /^channel: em needs a supplierEmail/ });
  await assert.rejects(update({ paymentId: p.id, channel: 'sms' }), { code: 'invalid-argument', message: /^channel:/ });
  assert.deepEqual(await stored(h, p.id), before);
  assert.equal((await update({ paymentId: p.id, channel: 'link' })).channel, 'link');
});

test('amountAgorot stays positive unless the amount is open; a fixed amount closes an open one', async () => {
  const { h } = env;
  const fixed = await createPayment(h, { channel: 'link' });
  await assert.rejects(update({ paymentId: fixed.id, amountAgorot: 0 }), { code: 'invalid-argument', message: /^amountAgorot: must be a positive integer/ });
  const open = await createPayment(h, { channel: 'link', openAmount: true, amountAgorot: 0 });
  const u = await update({ paymentId: open.id, amountAgorot: 2500 });
  assert.deepEqual([u.amountAgorot, u.openAmount], [2500, false]);
});

test('toggling invoiceRequired after the submission moves between ready and awaiting_invoice', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await simulateSubmission(h, p.id, 'ready');
  assert.equal((await update({ paymentId: p.id, invoiceRequired: true })).status, 'awaiting_invoice');
  const r = await update({ paymentId: p.id, invoiceRequired: false });
  assert.equal(r.status, 'ready');
  assert.ok(r.readyAt);
  const s = await createPayment(h, { channel: 'link' });
  assert.equal((await update({ paymentId: s.id, invoiceRequired: true })).status, 'sent', 'no submission yet: stays sent');
});

test('sends nothing to the supplier, and is not-found across businesses', async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierEmail: 'quiet@example.com' });
  const staged = (await outbox(h)).length;
  await update({ paymentId: p.id, description: 'Quiet change' });
  assert.equal((await outbox(h)).length, staged);
  const other = await h.newBusiness('Other');
  await assert.rejects(h.call('updatePaymentSettings', { paymentId: p.id, description: 'x' }, other), { code: 'not-found' });
  const [row] = await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/activity`, orderBy: [['at', 'desc']], limit: 1 });
  assert.equal(row.data.operation, 'updatePaymentSettings');
  assert.match(String(row.data.summary), /updated description/);
});
