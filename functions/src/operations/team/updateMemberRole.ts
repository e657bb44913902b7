import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { email, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { countAdmins, findMemberByEmail } from '../../domain/people/team.ts';
import type { MemberRecord } from '../../core/auth.ts';

export default defineOperation({
  name: 'updateMemberRole',
  group: 'team',
  summary: "Change a member's role",
  description:
    "Change a member's role; takes effect on their next call. The last admin cannot be demoted. Admin only.",
  flags: { adminOnly: true, idempotent: true },
  input: input({ email: email().describe('Email of the member.'), role: z.enum(['admin', 'user']).describe('admin or user.') }),
  output: z.object({ userId: z.string(), email: z.string(), role: z.enum(['admin', 'user']) }),
  async run({ email: who, role }, ctx) {
    const { businessId } = ctx.caller;
    return ctx.store.runTransaction(async (tx) => {
      const doc = await findMemberByEmail(tx, businessId, who);
      if (!doc) throw notFound(`member ${who}`, 'member');
      const member = doc.data as unknown as MemberRecord;
      if (member.role === 'admin' && role === 'user' && (await countAdmins(tx, businessId)) < 2) {
        throw precondition(`${who} is the last admin; make another member admin first`, { reason: 'lastAdmin' });
      }
      if (member.role !== role) tx.update(doc.path, { role });
      return { userId: member.userId, email: member.email, role };
    });
  },
  activity: ({ email: who, role }, result) => ({ params: { email: who, role }, targetIds: [result.userId], summary: `set ${who} to ${role}` }),
});
