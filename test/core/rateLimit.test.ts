import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../harness.ts';
import { post } from '../http.ts';
import { KeyRateLimiter } from '../../functions/src/core/rateLimit.ts';
import { msToJerusalemMidnight, jerusalemDay } from '../../functions/src/core/clock.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups) await c();
});

test('every API response carries RateLimit-Policy and RateLimit; over the limit a 429 with Retry-After, and another key is unaffected', async () => {
  const h = await createHarness({ env: { RATE_LIMIT_PER_MIN: '5' } });
  cleanups.push(() => h.close());
  const origin = await h.listen();
  const first = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  assert.equal(first.headers.get('ratelimit-policy'), '"per-key";q=5;w=60');
  assert.match(first.headers.get('ratelimit') ?? '', /^"per-key";r=4;t=\d+$/);
  for (let i = 0; i < 4; i++) assert.equal((await post(origin, '/v1/whoami', {}, h.owner.apiKey)).status, 200);
  const over = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, 'resource-exhausted');
  assert.match(over.body.error.message, /5 requests a minute per API key/);
  const wait = Number(over.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.match(over.headers.get('ratelimit') ?? '', /r=0;/);
  const other = await h.addMember('user');
  assert.equal((await post(origin, '/v1/whoami', {}, other.apiKey)).status, 200);
});

test("the window count lives in the store, so a second instance on the same data sees the first one's requests", async () => {
  const h = await createHarness();
  cleanups.push(() => h.close());
  let now = 1_800_000_000_000; // the start of a window
  const a = new KeyRateLimiter(h.app.services.store, 10, () => now, 10_000);
  const b = new KeyRateLimiter(h.app.services.store, 10, () => now, 10_000);
  for (let i = 0; i < 7; i++) assert.equal(a.take('k1').allowed, true);
  await a.flush();
  for (let i = 0; i < 3; i++) assert.equal(b.take('k1').allowed, true);
  await b.flush(); // b learns the store's total: 10
  assert.equal(b.take('k1').allowed, false);
  now += 60_000;
  assert.equal(b.take('k1').allowed, true, 'a new window starts afresh');
});

test('the daily quota resets at midnight in Israel, and its 429 says when', () => {
  // 21:30 UTC in winter is 23:30 in Israel: 30 minutes to go.
  const t = Date.parse('2026-01-15T21:30:00Z');
  assert.equal(jerusalemDay(t), '2026-01-15');
  assert.equal(msToJerusalemMidnight(t), 30 * 60_000);
  // In summer (UTC+3), 20:59 UTC is 23:59.
  assert.equal(msToJerusalemMidnight(Date.parse('2026-07-01T20:59:00Z')), 60_000);
});
