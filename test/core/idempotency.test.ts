import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { paymentsEnv, outbox, paymentInput, type PaymentsEnv } from '../operations/payments/helpers.ts';
import { loadConfig } from '../../functions/src/config.ts';
import { createApp } from '../../functions/src/app.ts';
import { silentLogger } from '../../functions/src/core/logger.ts';
import { createHttpHandler } from '../../functions/src/surfaces/http/handler.ts';
import { registry } from '../../functions/src/operations/index.ts';
import { paymentsPath } from '../../functions/src/domain/payments/payments.ts';

let env: PaymentsEnv;
let origin: string;
before(async () => {
  env = await paymentsEnv();
  origin = await env.h.listen();
});
after(() => env.close());

const postWithKey = (body: unknown, key: string, apiKey = env.h.owner.apiKey) =>
  fetch(`${origin}/v1/createPayment`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });

test('createPayment retried 5 times at once with one Idempotency-Key makes one payment and one message; repeats replay it', async () => {
  const body = paymentInput({ supplierEmail: 'idem@example.com', supplierPhone: '' });
  const answers = await Promise.all(Array.from({ length: 5 }, () => postWithKey(body, 'order-4711')));
  const statuses = answers.map((r) => r.status).sort();
  const ok = answers.filter((r) => r.status === 200);
  assert.ok(ok.length >= 1, `statuses ${statuses}`);
  assert.ok(statuses.every((s) => s === 200 || s === 409), `the others are told to retry: ${statuses}`);
  const ids = new Set(await Promise.all(ok.map(async (r) => ((await r.json()) as any).result.id)));
  assert.equal(ids.size, 1, 'every success is the same payment');
  const again = await postWithKey(body, 'order-4711');
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(((await again.json()) as any).result.id, [...ids][0]);
  const payments = await env.h.app.services.store.query({ collection: paymentsPath(env.h.owner.businessId) });
  assert.equal(payments.filter((p) => p.data.supplierEmail === 'idem@example.com').length, 1);
  assert.equal((await outbox(env.h)).filter((m) => m.to === 'idem@example.com').length, 1, 'one message');
});

test('the same key with another body is refused; another key or another user runs anew', async () => {
  const body = paymentInput({ supplierEmail: 'k2@example.com', supplierPhone: '' });
  assert.equal((await postWithKey(body, 'k-2')).status, 200);
  const other = await postWithKey({ ...body, amountAgorot: 999 }, 'k-2');
  assert.equal(other.status, 400);
  assert.equal(((await other.json()) as any).error.message, 'Idempotency-Key reused with a different request');
  const bad = await postWithKey(body, 'x'.repeat(300));
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as any).error.message, /^Idempotency-Key:/);
  const member = await env.h.addMember('admin');
  assert.equal((await postWithKey(body, 'k-2', member.apiKey)).headers.get('idempotent-replayed'), null, 'keys are per caller');
});

test('a validation error is replayed too; a replay after a server restart still replays', async () => {
  const invalid = await postWithKey({ amountAgorot: -1 }, 'bad-1');
  assert.equal(invalid.status, 400);
  assert.equal((await postWithKey({ amountAgorot: -1 }, 'bad-1')).headers.get('idempotent-replayed'), 'true');
  const body = paymentInput({ supplierEmail: 'restart@example.com', supplierPhone: '' });
  const first = (await (await postWithKey(body, 'restart-1')).json()) as any;
  // A second process on the same data, as after a restart.
  const app = await createApp(loadConfig({ DATA_DIR: env.h.config.dataDir }), { logger: silentLogger });
  try {
    const http = createHttpHandler(app, registry);
    const res = await http({ method: 'POST', path: '/v1/createPayment', query: '', headers: { authorization: `Bearer ${env.h.owner.apiKey}`, 'idempotency-key': 'restart-1', 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
    assert.equal(res.status, 200);
    assert.equal(res.headers['idempotent-replayed'], 'true');
    assert.equal(JSON.parse(String(res.body)).result.id, first.result.id);
  } finally {
    await app.close();
  }
});

test('a secret in a result is sealed in the stored outcome: apiKeyCreate replays its key, and the record never holds it in clear', async () => {
  const post = (key: string) =>
    fetch(`${origin}/v1/apiKeyCreate`, { method: 'POST', headers: { authorization: `Bearer ${env.h.owner.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ name: 'nightly script' }) });
  const first = (await (await post('key-once')).json()) as any;
  assert.match(first.result.apiKey, /^bfo_/);
  const again = await post('key-once');
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(((await again.json()) as any).result.apiKey, first.result.apiKey, 'the retry gets the key the first call made');
  const records = await env.h.app.services.store.query({ collection: `businesses/${env.h.owner.businessId}/idempotency` });
  assert.ok(records.length > 0);
  const raw = JSON.stringify(records.map((r) => r.data));
  assert.ok(!raw.includes(first.result.apiKey), 'the key is not stored in clear');
  assert.ok(!raw.includes(first.result.apiKey.slice(4, 20)), 'nor any part of it');
  // The key works, and only its hash is kept elsewhere.
  const who = await fetch(`${origin}/v1/whoami`, { method: 'POST', headers: { authorization: `Bearer ${first.result.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(who.status, 200);
});
