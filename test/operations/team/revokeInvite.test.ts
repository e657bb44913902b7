import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { acceptInvite } from '../../../functions/src/domain/people/team.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('a revoked invite leaves the list and cannot be accepted', async () => {
  const invite = await h.call('inviteMember', { email: 'gone@example.com', role: 'user' });
  assert.deepEqual(await h.call('revokeInvite', { inviteId: invite.inviteId }), { inviteId: invite.inviteId, email: 'gone@example.com', status: 'revoked' });
  assert.deepEqual((await h.call('listTeam')).invites, []);
  const { store, ids } = h.app.services;
  await assert.rejects(acceptInvite(store, ids, invite.inviteId, 'gone@example.com', Date.now()), { code: 'failed-precondition' });
});

test('revoking twice, or an unknown invite, is refused', async () => {
  const invite = await h.call('inviteMember', { email: 'twice@example.com', role: 'user' });
  await h.call('revokeInvite', { inviteId: invite.inviteId });
  await assert.rejects(h.call('revokeInvite', { inviteId: invite.inviteId }), { code: 'failed-precondition' });
  await assert.rejects(h.call('revokeInvite', { inviteId: 'missing' }), { code: 'not-found' });
});
