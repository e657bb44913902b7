import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { memberPath } from '../../../functions/src/core/auth.ts';
import { issueApiKey } from '../../../functions/src/core/auth.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('removes a member and locks their keys out at once', async () => {
  const m = await h.addMember('user');
  await h.call('whoami', {}, m);
  assert.deepEqual(await h.call('removeMember', { email: m.email }), { userId: m.userId, email: m.email, removed: true, keysRevoked: 1 });
  await assert.rejects(h.call('whoami', {}, m), { code: 'permission-denied' });
  assert.ok(!(await h.call('listTeam')).members.some((x: any) => x.email === m.email));
});

test('the last admin cannot be removed; a second admin can remove the first', async () => {
  await assert.rejects(h.call('removeMember', { email: h.owner.email }), { code: 'failed-precondition', message: /last admin/ });
  const second = await h.addMember('admin');
  await h.call('removeMember', { email: h.owner.email }, second);
  await assert.rejects(h.call('whoami'), { code: 'permission-denied' });
});

test('an unknown member is not-found', async () => {
  const admin = await h.addMember('admin');
  await assert.rejects(h.call('removeMember', { email: 'ghost@example.com' }, admin), { code: 'not-found' });
});

test('a removed member who re-joins does not get their old keys back', async () => {
  const m = await h.addMember('user');
  const { store, clock } = h.app.services;
  const second = await issueApiKey(store, { businessId: m.businessId, userId: m.userId, name: 'second key' }, clock.now());
  const other = await h.addMember('user');
  const admin = await h.addMember('admin');
  const r = await h.call('removeMember', { email: m.email }, admin);
  assert.equal(r.keysRevoked, 2);
  // The same person joins again (as accepting a new invite does): the membership is back, the old keys are not.
  await store.set(memberPath(m.businessId, m.userId), { userId: m.userId, email: m.email, role: 'user', joinedAt: new Date().toISOString() });
  await assert.rejects(h.call('whoami', {}, m), { code: 'unauthenticated', message: /revoked/ });
  await assert.rejects(h.call('whoami', {}, { ...m, apiKey: second.apiKey }), { code: 'unauthenticated', message: /revoked/ });
  assert.equal((await h.call('whoami', {}, other)).userId, other.userId, "another member's key keeps working");
});
