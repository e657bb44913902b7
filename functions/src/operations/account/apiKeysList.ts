import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { memberPath, type MemberRecord } from '../../core/auth.ts';
import { apiKeyView, apiKeyViewSchema, visibleKeys } from '../../domain/apiKeys.ts';

export default defineOperation({
  name: 'apiKeysList',
  group: 'account',
  summary: 'API keys: your own, or all of the business\'s for an admin',
  description: 'Name, prefix, created, last used (refreshed at most once a minute), revoked and creator of each key, newest first. Keys themselves are never shown again.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(apiKeyViewSchema) }),
  async run(_input, ctx) {
    const keys = await visibleKeys(ctx.store, ctx.caller);
    const users = [...new Set(keys.map((k) => k.userId))];
    const members = await ctx.store.getAll(users.map((u) => memberPath(ctx.caller.businessId, u)));
    const emails = new Map(members.filter((m) => m).map((m) => [(m!.data as unknown as MemberRecord).userId, (m!.data as unknown as MemberRecord).email]));
    return { items: keys.map((k) => apiKeyView(k, emails)) };
  },
});
