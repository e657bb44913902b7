import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { email, input } from '../../core/schema.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { findMemberByEmail, freshInviteLink, inviteEmail, inviterOf, invitesPath, inviteView, type InviteRecord } from '../../domain/people/team.ts';
import { businessContact } from '../../domain/payments/paymentMessages.ts';

export const inviteOutput = z.object({
  inviteId: z.string(),
  email: z.string().describe('Email of the person to invite; the invite link goes there.'),
  role: z.enum(['admin', 'user']).describe('admin or user.'),
  status: z.string(),
  expiresAt: z.string(),
  expired: z.boolean(),
  createdAt: z.string(),
  sentAt: z.string(),
});

export default defineOperation({
  name: 'inviteMember',
  group: 'team',
  summary: 'Invite someone to the team by email (admin only)',
  description:
    'Emails the person an invite link (through the outbox) valid for 7 days; they accept it signed in with that email (acceptInvite) and join with the role given: admin (can also invite, change roles, remove members and set the business apps and integrations) or user. An existing member or a pending invite to the same email is already-exists (resendInvite sends a pending one again). Only admins may invite.',
  flags: { adminOnly: true, openWorld: true },
  input: input({ email: email().describe('Email of the person to invite; the invite link goes there.'), role: z.enum(['admin', 'user']).describe('admin or user.') }),
  output: inviteOutput,
  async run({ email: to, role }, ctx) {
    const { businessId, userId } = ctx.caller;
    const now = ctx.clock.now();
    const id = ctx.ids();
    return ctx.store.runTransaction(async (tx) => {
      const business = await businessContact(tx, businessId);
      const inviter = await inviterOf(tx, businessId, ctx.caller);
      if (!business) throw notFound('business', 'business');
      if (await findMemberByEmail(tx, businessId, to)) throw new ApiError('already-exists', `email: ${to} is already a member`, { reason: 'alreadyMember', params: { email: to } });
      const pending = await tx.query({ collection: invitesPath(businessId), where: [['email', '==', to], ['status', '==', 'pending']], limit: 1 });
      if (pending.length) throw new ApiError('already-exists', `email: ${to} already has a pending invite (${pending[0].id}); use resendInvite`, { reason: 'invitePending', params: { email: to } });
      const link = freshInviteLink(ctx.config.dashboardUrl, now);
      const at = new Date(now).toISOString();
      const invite: InviteRecord = { id, businessId, email: to, role, status: 'pending', tokenHash: link.tokenHash, expiresAt: link.expiresAt, invitedBy: userId, createdAt: at, sentAt: at, acceptedAt: null };
      tx.set(invitesPath(businessId, id), { ...invite });
      ctx.outbox(tx, await inviteEmail(ctx.config, business, to, role, link.url, link.expiresAt, inviter));
      return inviteView(invite, now);
    });
  },
  activity: (input, result) => ({ params: { email: input.email, role: input.role }, targetIds: [result.inviteId], summary: `invited ${input.email} as ${input.role}` }),
});
