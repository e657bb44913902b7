import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPayment, deliver, outbox, paymentsEnv, type PaymentsEnv } from './helpers.ts';

/** Issue 17 item 6: a payment may say no VAT applies (noVat, beside vatIncluded). */
let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

test('noVat is documented in OpenAPI beside vatIncluded', async () => {
  const res = await env.h.http({ method: 'GET', path: '/v1/openapi.json', query: '', headers: {}, body: undefined });
  const doc = JSON.parse(String(res.body));
  const input = (op: string) => doc.paths[`/${op}`].post.requestBody.content['application/json'].schema.properties;
  assert.equal(input('createPayment').noVat.type, 'boolean');
  assert.match(input('createPayment').noVat.description, /^true: no VAT applies .*Default: true for USD and EUR/);
  assert.equal(input('updatePaymentSettings').noVat.type, 'boolean');
  const result = doc.paths['/paymentGet'].post.responses['200'].content['application/json'].schema.properties.result;
  assert.deepEqual(['noVat', 'vatAgorot', 'totalAgorot'].filter((k) => k in result.properties), ['noVat', 'vatAgorot', 'totalAgorot']);
});

test('USD and EUR default to noVat, ILS does not; what was sent wins; lists carry the totals', async () => {
  const { h } = env;
  const usd = await createPayment(h, { currency: 'USD', vatIncluded: false, amountAgorot: 59_000, channel: 'link' });
  assert.deepEqual([usd.noVat, usd.vatAgorot, usd.totalAgorot], [true, 0, 59_000]);
  const ils = await createPayment(h, { vatIncluded: false, amountAgorot: 345_000, channel: 'link' });
  assert.deepEqual([ils.noVat, ils.vatAgorot, ils.totalAgorot], [false, 62_100, 407_100]);
  const eur = await createPayment(h, { currency: 'EUR', noVat: false, vatIncluded: true, amountAgorot: 11_800, channel: 'link' });
  assert.deepEqual([eur.noVat, eur.vatAgorot], [false, 1_800]);
  const row = (await h.call('paymentsList', { limit: 50 })).items.find((r: any) => r.id === usd.id);
  assert.deepEqual([row.noVat, row.totalAgorot], [true, 59_000]);
  // noVat changes while unpaid, like vatIncluded.
  assert.equal((await h.call('updatePaymentSettings', { paymentId: ils.id, noVat: true })).totalAgorot, 345_000);
  await h.call('markPaid', { paymentId: ils.id });
  await assert.rejects(h.call('updatePaymentSettings', { paymentId: ils.id, noVat: false }), { code: 'failed-precondition', message: /noVat can change only while the payment is unpaid/ });
  await assert.rejects(h.call('createPayment', { amountAgorot: 1, vatIncluded: true, noVat: 'yes', description: 'x', supplierName: 'x', supplierPhone: '0501234567' }), { code: 'invalid-argument', message: /^noVat/ });
});

test('messages name the amount with VAT included, and none when no VAT applies', async () => {
  const { h } = env;
  const plus = await createPayment(h, { vatIncluded: false, amountAgorot: 345_000, supplierPhone: '052-333-4444', supplierEmail: 'plus@example.com' });
  const none = await createPayment(h, { currency: 'USD', vatIncluded: false, amountAgorot: 59_000, supplierPhone: undefined, supplierEmail: 'usd@example.com' });
  await deliver(env);
  const records = await outbox(h);
  const mailOf = (id: string) => records.find((r) => r.ref === id && r.channel === 'email')!.message as { text: string; subject: string };
  assert.match(mailOf(plus.id).subject, /₪4,071\.00/);
  assert.match(mailOf(plus.id).text, /כולל מע"מ ₪621\.00 \(₪3,450\.00 לפני מע"מ\)/);
  const wa = env.wa.accepted.find((m) => m.to === '972523334444')!;
  const body = wa.template.components[0] as { parameters: { text: string }[] };
  assert.equal(body.parameters[1].text, '₪4,071.00', 'WhatsApp names the same figure');
  assert.match(mailOf(none.id).text, /\$590\.00/);
  assert.doesNotMatch(mailOf(none.id).text, /VAT|מע"מ/);
});
