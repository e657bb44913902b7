import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPayment, deliver, fileToken, outbox, paymentsEnv, PDF, simulateSubmission, stored, type PaymentsEnv } from './helpers.ts';
import { parseMail } from '../../fakes/smtp.ts';

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

test('a supplier emailed "paid" gets one Hebrew correction naming the payment; a retry sends no second one', async () => {
  const { h, smtp } = env;
  const p = await createPayment(h, { channel: 'link', supplierEmail: 'fix@example.com', description: 'Tiling the bathroom' });
  await h.call('markPaid', { paymentId: p.id });
  await deliver(env, { mails: smtp.mails.length + 1 });
  const before = smtp.mails.length;
  assert.equal((await h.call('revertPaid', { paymentId: p.id, status: 'sent' })).status, 'sent');
  await deliver(env, { mails: before + 1 });
  const sent = smtp.mails.slice(before);
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].to, ['fix@example.com']);
  const mail = await parseMail(sent[0].raw);
  assert.match(mail.subject ?? '', /^תיקון: התשלום מ.*עוד לא בוצע/);
  assert.match(mail.text ?? '', /נשלחה בטעות: התשלום עוד לא בוצע/);
  assert.match(mail.text ?? '', /Tiling the bathroom/);
  assert.match(mail.text ?? '', /₪123\.45/);
  // A retried transaction stages the same record: still one correction, counted once per send.
  const fixes = (await outbox(h)).filter((r) => r.ref === p.id && r.reason === 'revertPaid');
  assert.equal(fixes.length, 1);
  await assert.rejects(h.call('revertPaid', { paymentId: p.id, status: 'sent' }), { code: 'failed-precondition' });
  await h.app.queue!.drain();
  assert.equal(smtp.mails.length, before + 1);
});

test('no correction when no paid notice was emailed (no email on the payment)', async () => {
  const { h, smtp } = env;
  const p = await createPayment(h, { channel: 'link' });
  await h.call('markPaid', { paymentId: p.id });
  await deliver(env);
  const before = smtp.mails.length;
  await h.call('revertPaid', { paymentId: p.id, status: 'sent' });
  await deliver(env);
  assert.equal(smtp.mails.length, before);
  assert.deepEqual((await outbox(h)).filter((r) => r.ref === p.id && r.reason === 'revertPaid'), []);
});

test('the correction counts against the daily message cap', async () => {
  // markPaid uses both messages of the day (WhatsApp and email).
  const capped = await paymentsEnv({ QUOTA_MESSAGES: '2' });
  try {
    const p = await createPayment(capped.h, { channel: 'link', supplierEmail: 'cap@example.com' });
    await capped.h.call('markPaid', { paymentId: p.id });
    await assert.rejects(capped.h.call('revertPaid', { paymentId: p.id, status: 'sent' }), { code: 'resource-exhausted' });
    assert.equal((await stored(capped.h, p.id)).status, 'paid', 'nothing changed');
  } finally {
    await capped.close();
  }
});
