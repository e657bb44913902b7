import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import type { InviteRecord } from '../../domain/people/team.ts';
import { businessPath } from '../../domain/business.ts';

export default defineOperation({
  name: 'invitePreview',
  group: 'team',
  summary: 'What an invite link offers: the business, the role and whether it still works',
  description:
    'For a user signed in to the dashboard (Firebase ID token) who opened an invite link: the business name, the role, the email it was sent to ' +
    'and its state (pending, expired, revoked, accepted), before acceptInvite. An unknown or replaced link is not-found.',
  flags: { readOnly: true },
  input: input({
    token: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, 'not an invite token').describe('The token parameter of the invite link (…/invite?token=...).'),
  }),
  output: z.object({
    businessName: z.string(),
    role: z.enum(['admin', 'user']),
    email: z.string(),
    state: z.enum(['pending', 'expired', 'revoked', 'accepted']),
    expiresAt: z.string(),
    /** The invite was sent to the signed-in email (only then can it be accepted). */
    forYou: z.boolean(),
  }),
  async run({ token }, ctx) {
    const { caller } = ctx;
    if (!caller.firebaseUid) throw new ApiError('permission-denied', 'invitePreview: sign in to the dashboard to open an invite; an API key cannot', { reason: 'dashboardOnly' });
    const found = await ctx.store.query({ collection: 'invites', group: true, where: [['tokenHash', '==', sha256(token)]], limit: 1 });
    if (!found.length) throw notFound('invite (this link is not valid; a resent invite replaces the old link)', 'invite');
    const invite = found[0].data as unknown as InviteRecord;
    const business = await ctx.store.get(businessPath(invite.businessId));
    const state = invite.status !== 'pending' ? invite.status : Date.parse(invite.expiresAt) <= ctx.clock.now() ? 'expired' : 'pending';
    return {
      businessName: String(business?.data.businessName || business?.data.name || ''),
      role: invite.role,
      email: invite.email,
      state,
      expiresAt: invite.expiresAt,
      forYou: invite.email === caller.email.trim().toLowerCase(),
    };
  },
});
