import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { freshInviteLink, inviteEmail, inviterOf, invitesPath, inviteView, type InviteRecord } from '../../domain/people/team.ts';
import { businessContact } from '../../domain/payments/paymentMessages.ts';
import { inviteOutput } from './inviteMember.ts';

export default defineOperation({
  name: 'resendInvite',
  group: 'team',
  summary: 'Email a fresh 7-day invite link; the old link stops working.',
  description:
    'For a pending invite only (a revoked or accepted one is failed-precondition): a new link valid for 7 days from now is emailed through the outbox, and the link sent before stops working. Renews an expired invite as well.',
  flags: { openWorld: true },
  input: input({ inviteId: id().describe('Invite id (from listTeam or inviteMember).') }),
  output: inviteOutput,
  async run({ inviteId }, ctx) {
    const { businessId } = ctx.caller;
    const now = ctx.clock.now();
    return ctx.store.runTransaction(async (tx) => {
      const business = await businessContact(tx, businessId);
      const inviter = await inviterOf(tx, businessId, ctx.caller);
      const doc = await tx.get(invitesPath(businessId, inviteId));
      if (!doc || !business) throw notFound(`invite ${inviteId}`, 'invite');
      const invite = doc.data as unknown as InviteRecord;
      if (invite.status !== 'pending') throw precondition(`invite ${inviteId} is ${invite.status}; only a pending invite can be resent`, { reason: 'inviteNotPending', params: { status: invite.status } });
      const link = freshInviteLink(ctx.config.dashboardUrl, now);
      const updated: InviteRecord = { ...invite, tokenHash: link.tokenHash, expiresAt: link.expiresAt, sentAt: new Date(now).toISOString() };
      tx.set(doc.path, { ...updated });
      ctx.outbox(tx, await inviteEmail(ctx.config, business, invite.email, invite.role, link.url, link.expiresAt, inviter, true));
      return inviteView(updated, now);
    });
  },
  activity: ({ inviteId }, result) => ({ params: { email: result.email }, targetIds: [inviteId], summary: `resent the invite to ${result.email}` }),
});
