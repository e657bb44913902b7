import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { invitesPath, inviteView, membersPath, type InviteRecord } from '../../domain/people/team.ts';
import type { MemberRecord } from '../../core/auth.ts';

const role = z.enum(['admin', 'user']);

export default defineOperation({
  name: 'listTeam',
  group: 'team',
  summary: 'Team members with their roles, and pending invites (expired ones flagged).',
  description:
    'members: everyone in the business, oldest first, with role, join time and isYou for the caller. invites: the pending invites, newest first; expired is true once expiresAt has passed (resendInvite renews one). Accepted and revoked invites are not listed.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({
    members: z.array(z.object({ userId: z.string(), email: z.string(), role, joinedAt: z.string(), isYou: z.boolean() })),
    invites: z.array(z.object({ inviteId: z.string(), email: z.string(), role, status: z.string(), expiresAt: z.string(), expired: z.boolean(), createdAt: z.string(), sentAt: z.string() })),
  }),
  async run(_input, ctx) {
    const { businessId, userId } = ctx.caller;
    const [members, invites] = await Promise.all([
      ctx.store.query({ collection: membersPath(businessId) }),
      ctx.store.query({ collection: invitesPath(businessId), where: [['status', '==', 'pending']] }),
    ]);
    const now = ctx.clock.now();
    return {
      members: members
        .map((d) => d.data as unknown as MemberRecord)
        .sort((a, b) => a.joinedAt.localeCompare(b.joinedAt))
        .map((m) => ({ userId: m.userId, email: m.email, role: m.role, joinedAt: m.joinedAt, isYou: m.userId === userId })),
      invites: invites
        .map((d) => inviteView(d.data as unknown as InviteRecord, now))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    };
  },
});
