import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPayment, fileToken, paymentsEnv, PDF, simulateSubmission, stored, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

const paidPayment = async (withProof = false) => {
  const p = await createPayment(env.h, { channel: 'link' });
  await simulateSubmission(env.h, p.id);
  const proof = withProof ? { fileName: 'proof.pdf', mimeType: 'application/pdf', dataBase64: PDF.toString('base64') } : undefined;
  return env.h.call('markPaid', { paymentId: p.id, proof });
};

test('undoes paid to the status asked for', async () => {
  const { h } = env;
  for (const status of ['ready', 'awaiting_invoice', 'sent'] as const) {
    const p = await paidPayment();
    const r = await h.call('revertPaid', { paymentId: p.id, status });
    assert.equal(r.status, status);
    assert.equal(r.paidAt, null);
    assert.equal((await stored(h, p.id)).status, status);
  }
});

test('removes the proof of the undone payment, and its link dies', async () => {
  const { h } = env;
  const p = await paidPayment(true);
  const token = fileToken(p.proof.url);
  assert.ok(await h.app.services.files.open(token));
  const r = await h.call('revertPaid', { paymentId: p.id, status: 'ready' });
  assert.equal(r.proof, null);
  assert.equal(await h.app.services.files.open(token), null);
  // It can be paid again.
  assert.equal((await h.call('markPaid', { paymentId: p.id })).status, 'paid');
});

test('works only from paid, naming the current status', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await assert.rejects(h.call('revertPaid', { paymentId: p.id, status: 'ready' }), { code: 'failed-precondition', message: /^cannot revertPaid a payment whose status is sent; allowed from paid/ });
  await h.call('cancelPayment', { paymentId: p.id });
  await assert.rejects(h.call('revertPaid', { paymentId: p.id, status: 'sent' }), { code: 'failed-precondition', message: /status is canceled/ });
});

test('the status asked for must be one of sent, awaiting_invoice, ready', async () => {
  const { h } = env;
  const p = await paidPayment();
  for (const status of ['paid', 'canceled', 'bogus']) {
    await assert.rejects(h.call('revertPaid', { paymentId: p.id, status }), { code: 'invalid-argument', message: /^status: expected one of "sent", "awaiting_invoice", "ready"/ });
  }
  await assert.rejects(h.call('revertPaid', { paymentId: p.id }), { code: 'invalid-argument', message: /^status:/ });
  assert.equal((await stored(h, p.id)).status, 'paid');
});

test('is not-found across businesses', async () => {
  const { h } = env;
  const other = await h.newBusiness('Other');
  const theirs = await createPayment(h, { channel: 'link' }, other);
  await h.call('markPaid', { paymentId: theirs.id }, other);
  await assert.rejects(h.call('revertPaid', { paymentId: theirs.id, status: 'sent' }), { code: 'not-found' });
  assert.equal((await stored(h, theirs.id, other.businessId)).status, 'paid');
});

test('a payment that never had payout details can only go back to sent: ready or awaiting_invoice would hide the supplier form', async () => {
  const { h } = env;
  const p = await createPayment(h, { channel: 'link' });
  await h.call('markPaid', { paymentId: p.id });
  for (const status of ['ready', 'awaiting_invoice'] as const) {
    await assert.rejects(h.call('revertPaid', { paymentId: p.id, status }), { code: 'failed-precondition', message: /^status: cannot revert to .* never gave payout details/ });
    assert.equal((await stored(h, p.id)).status, 'paid', 'nothing changed');
  }
  assert.equal((await h.call('revertPaid', { paymentId: p.id, status: 'sent' })).status, 'sent');
});
