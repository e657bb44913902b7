import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { acceptInvite } from '../../domain/people/team.ts';
import { usersPath } from '../../domain/business.ts';

export default defineOperation({
  name: 'acceptInvite',
  group: 'team',
  summary: 'Join a business through an invite link sent to your verified email.',
  description:
    'For a user signed in to the dashboard (Authorization: Bearer <Firebase ID token>) whose verified email is the one ' +
    'the invite was sent to. The user joins with the invite\'s role; API keys cannot accept invites.',
  flags: {},
  input: input({
    token: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, 'not an invite token').describe('The token at the end of the invite link (…/invite/<token>).'),
  }),
  output: z.object({ businessId: z.string(), userId: z.string(), email: z.string(), role: z.enum(['admin', 'user']), joinedAt: z.string() }),
  async run({ token }, ctx) {
    const { caller } = ctx;
    if (!caller.firebaseUid) throw new ApiError('permission-denied', 'acceptInvite: sign in to the dashboard to accept an invite; an API key cannot', { reason: 'dashboardOnly' });
    const found = await ctx.store.query({ collection: 'invites', group: true, where: [['tokenHash', '==', sha256(token)]], limit: 1 });
    if (!found.length) throw notFound('invite (this link is not valid; a resent invite replaces the old link)', 'invite');
    const inviteId = (found[0].data as { id: string }).id;
    // The admin CLI's rules: pending, unexpired, sent to this email, not already a member.
    const member = await acceptInvite(ctx.store, ctx.ids, inviteId, caller.email, ctx.clock.now());
    const userPath = usersPath(member.userId);
    const user = await ctx.store.get(userPath);
    if (user && !user.data.firebaseUid) await ctx.store.update(userPath, { firebaseUid: caller.firebaseUid });
    // The activity row belongs to the business joined, as the new member.
    Object.assign(caller, { businessId: member.businessId, userId: member.userId, role: member.role });
    return { businessId: member.businessId, userId: member.userId, email: member.email, role: member.role, joinedAt: member.joinedAt };
  },
  activity: (_input, result) => ({ params: { email: result.email, role: result.role }, targetIds: [result.userId], summary: `${result.email} joined as ${result.role}` }),
});
