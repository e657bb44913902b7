import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('removes a member and locks their keys out at once', async () => {
  const m = await h.addMember('user');
  await h.call('whoami', {}, m);
  assert.deepEqual(await h.call('removeMember', { email: m.email }), { userId: m.userId, email: m.email, removed: true });
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
