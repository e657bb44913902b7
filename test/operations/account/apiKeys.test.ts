import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('a user creates a key (shown once), sees their own keys, and revoking one locks it out on the next call', async () => {
  const user = await h.addMember('user');
  const created = await h.call('apiKeyCreate', { name: 'accounting script' }, user);
  assert.match(created.apiKey, /^bfo_[A-Za-z0-9_-]{43}$/);
  assert.equal(created.key.prefix, `${created.apiKey.slice(0, 8)}…`);
  assert.equal(created.key.createdBy.email, user.email);
  const mine = { ...user, apiKey: created.apiKey };
  assert.equal((await h.call('whoami', {}, mine)).keyName, 'accounting script');
  const list = await h.call('apiKeysList', {}, user);
  assert.deepEqual(list.items.map((k: any) => k.name).sort(), ['accounting script', 'user key']);
  assert.ok(list.items.every((k: any) => !JSON.stringify(k).includes(created.apiKey)), 'the key never comes back');
  const revoked = await h.call('apiKeyRevoke', { keyId: created.key.keyId }, user);
  assert.ok(revoked.revokedAt);
  await assert.rejects(h.call('whoami', {}, mine), { code: 'unauthenticated', message: /revoked/ });
  assert.equal((await h.call('apiKeyRevoke', { keyId: created.key.keyId }, user)).revokedAt, revoked.revokedAt, 'revoking again changes nothing');
});

test('an admin sees and revokes every key of the business; a user cannot touch another user\'s key; another business sees none', async () => {
  const user = await h.addMember('user');
  const other = await h.addMember('user');
  const k = await h.call('apiKeyCreate', { name: 'user laptop' }, user);
  const adminView = await h.call('apiKeysList');
  assert.ok(adminView.items.some((x: any) => x.keyId === k.key.keyId && x.createdBy.email === user.email));
  assert.ok(!(await h.call('apiKeysList', {}, other)).items.some((x: any) => x.keyId === k.key.keyId));
  await assert.rejects(h.call('apiKeyRevoke', { keyId: k.key.keyId }, other), { code: 'not-found', message: /^keyId:/ });
  const foreign = await h.newBusiness('Foreign');
  await assert.rejects(h.call('apiKeyRevoke', { keyId: k.key.keyId }, foreign), { code: 'not-found' });
  assert.equal((await h.call('apiKeysList', {}, foreign)).items.some((x: any) => x.keyId === k.key.keyId), false);
  assert.ok((await h.call('apiKeyRevoke', { keyId: k.key.keyId })).revokedAt, 'the admin revokes it');
});

test('over HTTP: create then list; a bad keyId is not-found', async () => {
  const origin = await h.listen();
  const created = await post(origin, '/v1/apiKeyCreate', { name: 'http' }, h.owner.apiKey);
  assert.equal(created.status, 200);
  const bad = await post(origin, '/v1/apiKeyRevoke', { keyId: 'nope' }, h.owner.apiKey);
  assert.equal(bad.status, 404);
  await assert.rejects(h.call('apiKeyCreate', { name: '' }), { code: 'invalid-argument', message: /^name:/ });
});
