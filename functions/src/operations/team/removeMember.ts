import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { email, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { countAdmins, findMemberByEmail } from '../../domain/people/team.ts';
import { revokeUserKeys, type MemberRecord } from '../../core/auth.ts';

export default defineOperation({
  name: 'removeMember',
  group: 'team',
  summary: 'Remove a member and revoke their API keys',
  description: 'Their keys stop working at once and stay revoked if they re-join. The last admin cannot be removed.',
  flags: { adminOnly: true, dangerous: true },
  input: input({ email: email().describe('Email of the member to remove.') }),
  output: z.object({ userId: z.string(), email: z.string(), removed: z.literal(true), keysRevoked: z.int() }),
  async run({ email: who }, ctx) {
    const { businessId } = ctx.caller;
    const removed = await ctx.store.runTransaction(async (tx) => {
      const doc = await findMemberByEmail(tx, businessId, who);
      if (!doc) throw notFound(`member ${who}`, 'member');
      const member = doc.data as unknown as MemberRecord;
      if (member.role === 'admin' && (await countAdmins(tx, businessId)) < 2) {
        throw precondition(`${who} is the last admin and cannot be removed`, { reason: 'lastAdmin' });
      }
      // Auth reads the membership on every call, so deleting it locks every key of this user out immediately.
      tx.delete(doc.path);
      return { userId: member.userId, email: member.email, removed: true as const };
    });
    // The keys are revoked too, so re-joining later does not bring them back.
    const keysRevoked = await revokeUserKeys(ctx.store, businessId, removed.userId, ctx.clock.now());
    return { ...removed, keysRevoked };
  },
  activity: ({ email: who }, result) => ({ params: { email: who }, targetIds: [result.userId], summary: `removed ${who}` }),
});
