import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { acceptInvite } from '../../../functions/src/domain/people/team.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('members with roles and pending invites; accepting moves an invite into members', async () => {
  const invite = await h.call('inviteMember', { email: 'joiner@example.com', role: 'admin' });
  let team = await h.call('listTeam');
  assert.deepEqual(team.members.map((m: any) => [m.email, m.role, m.isYou]), [[h.owner.email, 'admin', true]]);
  assert.equal(team.invites.length, 1);
  await acceptInvite(h.app.services.store, h.app.services.ids, invite.inviteId, 'Joiner@example.com', Date.now());
  team = await h.call('listTeam');
  assert.deepEqual(team.members.map((m: any) => [m.email, m.role]), [[h.owner.email, 'admin'], ['joiner@example.com', 'admin']]);
  assert.deepEqual(team.invites, []);
});

test('an expired invite is flagged and cannot be accepted', async () => {
  const invite = await h.call('inviteMember', { email: 'late@example.com', role: 'user' });
  const eightDays = Date.now() + 8 * 86_400_000;
  await assert.rejects(acceptInvite(h.app.services.store, h.app.services.ids, invite.inviteId, 'late@example.com', eightDays), { code: 'failed-precondition', message: /expired/ });
  await assert.rejects(acceptInvite(h.app.services.store, h.app.services.ids, invite.inviteId, 'someone.else@example.com', Date.now()), { code: 'permission-denied' });
});

test('a user-role member can list the team', async () => {
  const m = await h.addMember('user');
  const team = await h.call('listTeam', {}, m);
  assert.ok(team.members.some((x: any) => x.email === m.email && x.isYou));
});
