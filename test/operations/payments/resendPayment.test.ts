import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mailText } from '../../fakes/smtp.ts';
import { createPayment, deliver, outbox, paymentsEnv, simulateSubmission, stored, tokenOf, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

test('re-sends the link by WhatsApp only when asked for wa', async () => {
  const { h, smtp, wa } = env;
  const p = await createPayment(h, { supplierPhone: '0531112233', supplierEmail: 'both@example.com' });
  await deliver(env, { mails: 1 });
  const was = wa.accepted.length;
  const mails = smtp.mails.length;
  const r = await h.call('resendPayment', { paymentId: p.id, channel: 'wa' });
  assert.equal(r.status, 'sent');
  await deliver(env);
  await new Promise((res) => setTimeout(res, 100));
  const sent = wa.accepted.slice(was);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].template.name, 'payment_request');
  assert.equal(sent[0].to, '972531112233');
  const button = sent[0].template.components.find((c: any) => c.type === 'button') as any;
  assert.equal(button.parameters[0].text, `pay/${tokenOf(p.link)}`);
  assert.equal(smtp.mails.length, mails, 'no email');
});

test('re-sends the link by email only when asked for em, through the outbox', async () => {
  const { h, smtp, wa } = env;
  const p = await createPayment(h, { supplierPhone: '0531112244', supplierEmail: 'again@example.com', channel: 'link' });
  const was = wa.accepted.length;
  const mails = smtp.mails.length;
  const r = await h.call('resendPayment', { paymentId: p.id, channel: 'em' });
  assert.ok(r.sentAt, 'sentAt records the delivery');
  const staged = (await outbox(h)).filter((m) => m.reason === 'resendPayment' && m.to === 'again@example.com');
  assert.equal(staged.length, 1);
  await deliver(env, { mails: mails + 1 });
  assert.deepEqual(smtp.mails.at(-1)!.to, ['again@example.com']);
  assert.ok(mailText(smtp.mails.at(-1)!.raw).includes(p.link));
  assert.equal(wa.accepted.length, was, 'no WhatsApp');
  assert.equal((await stored(h, p.id)).channel, 'link', 'the stored channel is unchanged');
});

test('needs the contact of the channel asked for', async () => {
  const { h } = env;
  const phoneOnly = await createPayment(h, { channel: 'link' });
  await assert.rejects(h.call('resendPayment', { paymentId: phoneOnly.id, channel: 'em' }), { code: 'failed-precondition', message: /^channel em needs a supplierEmail/ });
  const emailOnly = await createPayment(h, { channel: 'link', supplierPhone: undefined, supplierEmail: 'only@example.com' });
  await assert.rejects(h.call('resendPayment', { paymentId: emailOnly.id, channel: 'wa' }), { code: 'failed-precondition', message: /^channel wa needs a supplierPhone/ });
  await assert.rejects(h.call('resendPayment', { paymentId: emailOnly.id, channel: 'link' }), { code: 'invalid-argument', message: /^channel:/ });
});

test('only unpaid payments are resent; a ready one can be', async () => {
  const { h } = env;
  const ready = await createPayment(h, { channel: 'link' });
  await simulateSubmission(h, ready.id);
  assert.equal((await h.call('resendPayment', { paymentId: ready.id, channel: 'wa' })).status, 'ready');
  const paid = await createPayment(h, { channel: 'link' });
  await h.call('markPaid', { paymentId: paid.id });
  await assert.rejects(h.call('resendPayment', { paymentId: paid.id, channel: 'wa' }), { code: 'failed-precondition', message: /cannot resend a payment whose status is paid/ });
  const canceled = await createPayment(h, { channel: 'link' });
  await h.call('cancelPayment', { paymentId: canceled.id });
  await assert.rejects(h.call('resendPayment', { paymentId: canceled.id, channel: 'wa' }), { code: 'failed-precondition', message: /status is canceled/ });
});

test('is not-found across businesses', async () => {
  const { h } = env;
  const other = await h.newBusiness('Other');
  const theirs = await createPayment(h, { channel: 'link' }, other);
  const staged = (await outbox(h, other.businessId)).length;
  await assert.rejects(h.call('resendPayment', { paymentId: theirs.id, channel: 'wa' }), { code: 'not-found' });
  assert.equal((await outbox(h, other.businessId)).length, staged);
});
