import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPayment, outbox, paymentsEnv, simulateSubmission, stored, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

test('is flagged dangerous', () => {
  assert.equal(env.h.registry.get('cancelPayment')!.flags.dangerous, true);
});

test('cancels a sent payment, without messaging the supplier', async () => {
  const { h } = env;
  const p = await createPayment(h, { supplierEmail: 'cancel@example.com' });
  const staged = (await outbox(h)).length;
  const c = await h.call('cancelPayment', { paymentId: p.id });
  assert.equal(c.status, 'canceled');
  assert.ok(c.canceledAt);
  assert.equal((await stored(h, p.id)).status, 'canceled');
  assert.equal((await outbox(h)).length, staged);
  const [row] = await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/activity`, orderBy: [['at', 'desc']], limit: 1 });
  assert.deepEqual([row.data.operation, row.data.targetIds], ['cancelPayment', [p.id]]);
});

test('cancels from ready and awaiting_invoice too', async () => {
  const { h } = env;
  for (const status of ['ready', 'awaiting_invoice'] as const) {
    const p = await createPayment(h, { channel: 'link' });
    await simulateSubmission(h, p.id, status);
    assert.equal((await h.call('cancelPayment', { paymentId: p.id })).status, 'canceled');
  }
});

test('refuses a paid payment, naming its status', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await h.call('markPaid', { paymentId: p.id });
  await assert.rejects(h.call('cancelPayment', { paymentId: p.id }), { code: 'failed-precondition', message: /^cannot cancel a payment whose status is paid; allowed from sent, awaiting_invoice, ready/ });
  assert.equal((await stored(h, p.id)).status, 'paid');
});

test('a second cancel is refused', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await h.call('cancelPayment', { paymentId: p.id });
  await assert.rejects(h.call('cancelPayment', { paymentId: p.id }), { code: 'failed-precondition', message: /status is canceled/ });
});

test('is not-found across businesses', async () => {
  const { h } = env;
  const other = await h.newBusiness('Other');
  const theirs = await createPayment(h, { channel: 'link' }, other);
  await assert.rejects(h.call('cancelPayment', { paymentId: theirs.id }), { code: 'not-found' });
  assert.equal((await stored(h, theirs.id, other.businessId)).status, 'sent');
});
