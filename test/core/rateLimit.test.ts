import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../harness.ts';
import { engines, releaseFirestore } from '../engines.ts';
import { post } from '../http.ts';
import { KeyRateLimiter } from '../../functions/src/core/rateLimit.ts';
import { issueApiKey } from '../../functions/src/core/auth.ts';
import { startFakeAuthEmulator } from '../fakes/firebaseAuthEmulator.ts';
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
  assert.equal(first.headers.get('ratelimit-policy'), '"per-key";q=5;w=60, "per-user";q=1200;w=60, "per-business";q=3000;w=60');
  assert.match(first.headers.get('ratelimit') ?? '', /^"per-key";r=4;t=(\d+), "per-user";r=1199;t=\1, "per-business";r=2999;t=\1$/);
  for (let i = 0; i < 4; i++) assert.equal((await post(origin, '/v1/whoami', {}, h.owner.apiKey)).status, 200);
  const over = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, 'resource-exhausted');
  assert.match(over.body.error.message, /5 requests a minute per API key/);
  const wait = Number(over.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.match(over.headers.get('ratelimit') ?? '', /^"per-key";r=0;t=\d+, "per-user";r=1195;/);
  const other = await h.addMember('user');
  assert.equal((await post(origin, '/v1/whoami', {}, other.apiKey)).status, 200);
});

for (const engine of engines) {
  test(`keys add no allowance: a user is limited across all their keys, and a business across its members (${engine.name})`, { skip: engine.skip }, async () => {
    const now = 1_800_000_000_000; // the start of a window, held still
    const h = await createHarness({ env: { ...(await engine.env()), RATE_LIMIT_PER_MIN: '5', RATE_LIMIT_USER_PER_MIN: '8', RATE_LIMIT_BUSINESS_PER_MIN: '12' }, overrides: { clock: { now: () => now } } });
    cleanups.push(() => h.close());
    const origin = await h.listen();
    const keys: string[] = [h.owner.apiKey];
    for (let i = 0; i < 19; i++) keys.push((await issueApiKey(h.app.services.store, { businessId: h.owner.businessId, userId: h.owner.userId, name: `key ${i}` }, now)).apiKey);
    // The audit's pattern: round-robin over 20 keys of one user.
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 20; i++) {
      const res = await post(origin, '/v1/whoami', {}, keys[i]);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
    }
    assert.equal(statuses.filter((s) => s === 200).length, 8, statuses.join());
    assert.equal(refused!.body.error.code, 'resource-exhausted');
    assert.match(refused!.body.error.message, /^rate limit: 8 requests a minute per user \(all of the user's API keys and dashboard sign-ins together\); retry in 60 s$/);
    assert.equal(refused!.headers.get('retry-after'), '60');
    assert.equal(refused!.headers.get('ratelimit-policy'), '"per-key";q=5;w=60, "per-user";q=8;w=60, "per-business";q=12;w=60');
    assert.equal(refused!.headers.get('ratelimit'), '"per-key";r=5;t=60, "per-user";r=0;t=60, "per-business";r=4;t=60');
    // Another member of the business has their own user allowance, within the business's 12.
    const member = await h.addMember('user');
    const memberStatuses: number[] = [];
    for (let i = 0; i < 6; i++) memberStatuses.push((await post(origin, '/v1/whoami', {}, member.apiKey)).status);
    assert.deepEqual(memberStatuses, [200, 200, 200, 200, 429, 429]);
    const over = await post(origin, '/v1/whoami', {}, member.apiKey);
    assert.match(over.body.error.message, /12 requests a minute per business \(all of its members together\)/);
    // Another business is untouched.
    const other = await h.newBusiness();
    assert.equal((await post(origin, '/v1/whoami', {}, other.apiKey)).status, 200);
  });
}

test('dashboard ID tokens count against the same user and business allowance as the user\'s keys', async () => {
  await releaseFirestore();
  const saved = { host: process.env.FIREBASE_AUTH_EMULATOR_HOST, project: process.env.GCLOUD_PROJECT };
  // firebase-admin accepts the emulator's unsigned tokens (loopback only) and asks the emulator whether the user is disabled.
  const auth = await startFakeAuthEmulator('demo-bfo', [{ localId: 'uid-owner', email: 'placeholder@example.com', emailVerified: true }]);
  cleanups.push(() => auth.close());
  process.env.FIREBASE_AUTH_EMULATOR_HOST = auth.host;
  process.env.GCLOUD_PROJECT = 'demo-bfo';
  cleanups.push(async () => {
    for (const [k, v] of [['FIREBASE_AUTH_EMULATOR_HOST', saved.host], ['GCLOUD_PROJECT', saved.project]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  // The app's clock held at the start of a window (the token's times are checked against the real clock).
  const h = await createHarness({ env: { RATE_LIMIT_PER_MIN: '100', RATE_LIMIT_USER_PER_MIN: '10', RATE_LIMIT_BUSINESS_PER_MIN: '100' }, overrides: { clock: { now: () => 1_800_000_000_000 } } });
  cleanups.push(() => h.close());
  const origin = await h.listen();
  const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const t = Math.floor(Date.now() / 1000);
  const token = [
    b64url({ alg: 'none', typ: 'JWT' }),
    b64url({ iss: 'https://securetoken.google.com/demo-bfo', aud: 'demo-bfo', sub: 'uid-owner', user_id: 'uid-owner', email: h.owner.email, email_verified: true, iat: t, exp: t + 3600, auth_time: t, firebase: { identities: {}, sign_in_provider: 'password' } }),
    '',
  ].join('.');
  const first = await post(origin, '/v1/whoami', {}, token);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.headers.get('ratelimit-policy'), '"per-user";q=10;w=60, "per-business";q=100;w=60', 'no per-key policy for a token');
  const statuses = [first.status];
  for (let i = 0; i < 14; i++) statuses.push((await post(origin, '/v1/whoami', {}, token)).status);
  assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(5).fill(429)]);
  // The user's API key shares the allowance the token used up.
  const viaKey = await post(origin, '/v1/whoami', {}, h.owner.apiKey);
  assert.equal(viaKey.status, 429);
  assert.match(viaKey.body.error.message, /10 requests a minute per user/);
});

for (const engine of engines) {
  test(`the window count lives in the store, so a second instance on the same data sees the first one's requests (${engine.name})`, { skip: engine.skip }, async () => {
    const h = await createHarness({ env: await engine.env() });
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
}

test('the daily quota resets at midnight in Israel, and its 429 says when', () => {
  // 21:30 UTC in winter is 23:30 in Israel: 30 minutes to go.
  const t = Date.parse('2026-01-15T21:30:00Z');
  assert.equal(jerusalemDay(t), '2026-01-15');
  assert.equal(msToJerusalemMidnight(t), 30 * 60_000);
  // In summer (UTC+3), 20:59 UTC is 23:59.
  assert.equal(msToJerusalemMidnight(Date.parse('2026-07-01T20:59:00Z')), 60_000);
});
