import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { invitesPath, type InviteRecord } from '../../domain/people/team.ts';

export default defineOperation({
  name: 'revokeInvite',
  group: 'team',
  summary: 'Revoke a pending invite; its link stops working.',
  description:
    'For a pending invite only (an accepted or already revoked one is failed-precondition). The invitee is not told; opening the link then shows the invite as revoked (invitePreview). Invite the email again with inviteMember.',
  flags: { dangerous: true },
  input: input({ inviteId: id().describe('Invite id (from listTeam or inviteMember).') }),
  output: z.object({ inviteId: z.string(), email: z.string(), status: z.literal('revoked') }),
  async run({ inviteId }, ctx) {
    const path = invitesPath(ctx.caller.businessId, inviteId);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`invite ${inviteId}`, 'invite');
      const invite = doc.data as unknown as InviteRecord;
      if (invite.status !== 'pending') throw precondition(`invite ${inviteId} is ${invite.status}; only a pending invite can be revoked`, { reason: 'inviteNotPending', params: { status: invite.status } });
      tx.update(path, { status: 'revoked' });
      return { inviteId, email: invite.email, status: 'revoked' as const };
    });
  },
  activity: ({ inviteId }, result) => ({ params: { email: result.email }, targetIds: [inviteId], summary: `revoked the invite to ${result.email}` }),
});
