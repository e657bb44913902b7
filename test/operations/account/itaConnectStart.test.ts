import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeIta, itaEnv, FAKE_CLIENT, type FakeIta } from '../../fakes/ita.ts';
import { oauthStatePath, type OAuthStateRecord } from '../../../functions/src/domain/invoices/ita.ts';

let h: Harness;
let fake: FakeIta;
let now = Date.parse('2026-05-10T09:00:00Z');
before(async () => {
  fake = await startFakeIta(FAKE_CLIENT);
  h = await createHarness({ env: itaEnv(fake), overrides: { clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await fake.close();
});

test('returns the ITA authorization URL with client_id, redirect_uri, response_type, scope and state', async () => {
  const { url, stateExpiresAt } = await h.call('itaConnectStart');
  const u = new URL(url);
  assert.equal(u.origin + u.pathname, `${fake.authUrl}/authorize`);
  assert.equal(u.searchParams.get('response_type'), 'code');
  assert.equal(u.searchParams.get('client_id'), FAKE_CLIENT.clientId);
  assert.equal(u.searchParams.get('redirect_uri'), 'https://app.example.com/oauth/ita/callback');
  assert.equal(u.searchParams.get('scope'), 'scope');
  assert.match(u.searchParams.get('state')!, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(stateExpiresAt, new Date(now + 15 * 60_000).toISOString());
  assert.doesNotMatch(url, /ita-secret-1/);
});

test('the state is stored only as a hash, with the business, the starting user and a 15-minute expiry', async () => {
  const member = await h.addMember('user');
  const { url } = await h.call('itaConnectStart', {}, member);
  const state = new URL(url).searchParams.get('state')!;
  const doc = await h.app.services.store.get(oauthStatePath(state));
  const r = doc!.data as unknown as OAuthStateRecord;
  assert.equal(r.businessId, member.businessId);
  assert.equal(r.userId, member.userId);
  assert.equal(r.expiresAtMs, now + 15 * 60_000);
  assert.equal(r.usedAt, null);
  assert.doesNotMatch(JSON.stringify(doc), new RegExp(state));
  const all = await h.app.services.store.query({ collection: 'oauthStates' });
  assert.ok(all.every((d) => !JSON.stringify(d.data).includes(state)));
});

test('every call gives a fresh state', async () => {
  const a = new URL((await h.call('itaConnectStart')).url).searchParams.get('state');
  const b = new URL((await h.call('itaConnectStart')).url).searchParams.get('state');
  assert.notEqual(a, b);
});

test('appends an activity row', async () => {
  const { items } = await h.call('listActivity');
  assert.ok(items.some((r: any) => r.operation === 'itaConnectStart' && r.summary === 'started the tax authority consent'));
});

test('without the ITA client settings: failed-precondition naming the missing setting, nothing stored', async () => {
  const bare = await createHarness({ env: { ITA_CLIENT_SECRET: 'only-the-secret' } });
  try {
    await assert.rejects(bare.call('itaConnectStart'), { code: 'failed-precondition', message: /ITA_CLIENT_ID/ });
    assert.equal((await bare.app.services.store.query({ collection: 'oauthStates' })).length, 0);
  } finally {
    await bare.close();
  }
  const none = await createHarness();
  try {
    await assert.rejects(none.call('itaConnectStart'), { code: 'failed-precondition', message: /ITA_CLIENT_ID, ITA_CLIENT_SECRET/ });
  } finally {
    await none.close();
  }
});

test('the redirect URI follows OAUTH_RETURN_BASE, defaulting to the public origin', async () => {
  const env: Record<string, string> = { ...itaEnv(fake), OAUTH_RETURN_BASE: '', PUBLIC_ORIGIN: 'https://finance.example.org' };
  const dflt = await createHarness({ env });
  try {
    const u = new URL((await dflt.call('itaConnectStart')).url);
    assert.equal(u.searchParams.get('redirect_uri'), 'https://finance.example.org/oauth/ita/callback');
  } finally {
    await dflt.close();
  }
});
