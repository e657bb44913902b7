import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('promotes and demotes a member', async () => {
  const m = await h.addMember('user');
  assert.equal((await h.call('updateMemberRole', { email: m.email, role: 'admin' })).role, 'admin');
  assert.equal((await h.call('whoami', {}, m)).role, 'admin');
  await h.call('updateMemberRole', { email: m.email, role: 'user' });
  assert.equal((await h.call('whoami', {}, m)).role, 'user');
});

test('the last admin cannot be demoted', async () => {
  await assert.rejects(h.call('updateMemberRole', { email: h.owner.email, role: 'user' }), { code: 'failed-precondition', message: /last admin/ });
});

test('an unknown member is not-found; a user cannot change roles', async () => {
  await assert.rejects(h.call('updateMemberRole', { email: 'ghost@example.com', role: 'admin' }), { code: 'not-found' });
  const m = await h.addMember('user');
  await assert.rejects(h.call('updateMemberRole', { email: m.email, role: 'admin' }, m), { code: 'permission-denied' });
});
