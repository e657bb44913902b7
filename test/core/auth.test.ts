import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../harness.ts';
import { post } from '../http.ts';
import { API_KEY_PREFIX, revokeApiKey } from '../../functions/src/core/auth.ts';

let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
});
after(() => h.close());

test('a missing key is 401 unauthenticated', async () => {
  const res = await post(origin, '/v1/whoami', {});
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, 'unauthenticated');
});

test('an invalid key is 401, whatever its shape', async () => {
  for (const key of ['nope', API_KEY_PREFIX + 'A'.repeat(43), h.owner.apiKey.slice(0, -1) + (h.owner.apiKey.endsWith('A') ? 'B' : 'A')]) {
    const res = await post(origin, '/v1/whoami', {}, key);
    assert.equal(res.status, 401, key);
    assert.equal(res.body.error.code, 'unauthenticated');
    // Asked again (its store path is remembered now): still refused.
    assert.equal((await post(origin, '/v1/whoami', {}, key)).status, 401, key);
  }
});

test('the Authorization header is read as HTTP allows: any case of Bearer, extra spaces, a tab, trailing space', async () => {
  const key = h.owner.apiKey;
  for (const header of [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}`, `Bearer\t${key}`, `Bearer ${key}  `]) {
    const res = await fetch(`${origin}/v1/whoami`, { method: 'POST', headers: { authorization: header, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200, JSON.stringify(header));
  }
  for (const header of [key, `Bearer${key}`, `Basic ${key}`, `Bearer ${key}x`, `Bearer ${key} x`]) {
    const res = await fetch(`${origin}/v1/whoami`, { method: 'POST', headers: { authorization: header, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401, JSON.stringify(header));
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthenticated');
  }
});

test('keys carry the fixed prefix and 256 random bits, and only their hash is stored', async () => {
  assert.match(h.owner.apiKey, /^bfo_[A-Za-z0-9_-]{43}$/);
  const stored = await h.app.services.store.query({ collection: 'apiKeys' });
  assert.ok(stored.length >= 1);
  for (const doc of stored) {
    assert.doesNotMatch(JSON.stringify(doc.data), /bfo_/);
    assert.deepEqual(Object.keys(doc.data).sort(), ['businessId', 'createdAt', 'keyHash', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'userId']);
    assert.equal(String(doc.data.prefix).length, 4, 'only 4 characters of the key are kept, to tell keys apart');
  }
});

test('whoami returns the business, the user, the key name and the role; lastUsedAt is recorded', async () => {
  const member = await h.addMember('user');
  const res = await post(origin, '/v1/whoami', {}, member.apiKey);
  assert.deepEqual(
    { ...res.body.result, businessName: undefined },
    { businessId: member.businessId, businessName: undefined, userId: member.userId, email: member.email, keyName: 'user key', role: 'user' },
  );
  const keys = await h.app.services.store.query({ collection: 'apiKeys', where: [['userId', '==', member.userId]] });
  assert.ok(keys[0].data.lastUsedAt);
});

test('a revoked key is 401 from then on', async () => {
  const member = await h.addMember('user');
  assert.equal((await post(origin, '/v1/whoami', {}, member.apiKey)).status, 200);
  await revokeApiKey(h.app.services.store, member.apiKey, Date.now());
  const res = await post(origin, '/v1/whoami', {}, member.apiKey);
  assert.equal(res.status, 401);
  assert.match(res.body.error.message, /revoked/);
});

test('an admin-only operation called by a user is 403 and changes nothing', async () => {
  const member = await h.addMember('user');
  const res = await post(origin, '/v1/setBusinessApp', { app: 'software', enabled: false }, member.apiKey);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, 'permission-denied');
  const business = await h.call('getBusiness');
  assert.equal(business.apps.software, true);
});

test('a key acts with the role its user has now', async () => {
  const member = await h.addMember('user');
  assert.equal((await post(origin, '/v1/setBusinessApp', { app: 'software', enabled: true }, member.apiKey)).status, 403);
  await h.call('updateMemberRole', { email: member.email, role: 'admin' });
  assert.equal((await post(origin, '/v1/setBusinessApp', { app: 'software', enabled: true }, member.apiKey)).status, 200);
});

test('after removeMember every call of that user is 403 at once', async () => {
  const member = await h.addMember('admin');
  assert.equal((await post(origin, '/v1/whoami', {}, member.apiKey)).status, 200);
  await h.call('removeMember', { email: member.email });
  for (const op of ['whoami', 'listTeam', 'updateBusiness']) {
    const res = await post(origin, `/v1/${op}`, {}, member.apiKey);
    assert.equal(res.status, 403, op);
    assert.equal(res.body.error.code, 'permission-denied');
  }
});

test('a key of one business cannot see another business', async () => {
  const other = await h.newBusiness('Other Ltd');
  const res = await post(origin, '/v1/whoami', {}, other.apiKey);
  assert.equal(res.body.result.businessId, other.businessId);
  assert.notEqual(res.body.result.businessId, h.owner.businessId);
});
