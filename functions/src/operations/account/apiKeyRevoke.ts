import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { z } from 'zod';
import { apiKeyPath } from '../../core/auth.ts';
import { apiKeyView, apiKeyViewSchema, manageableKey } from '../../domain/apiKeys.ts';

export default defineOperation({
  name: 'apiKeyRevoke',
  group: 'account',
  summary: 'Revoke an API key: it stops working on its next request',
  description: 'Your own keys; an admin may revoke any key of the business. Revoking a revoked key changes nothing.',
  flags: { dangerous: true, idempotent: true },
  input: input({ keyId: z.string().max(64).describe('The keyId from apiKeysList (the key\'s hash, not the key).') }),
  output: apiKeyViewSchema,
  async run({ keyId }, ctx) {
    const at = new Date(ctx.clock.now()).toISOString();
    const record = await ctx.store.runTransaction(async (tx) => {
      const r = await manageableKey(tx, ctx.caller, keyId);
      if (!r.revokedAt) tx.update(apiKeyPath(r.keyHash), { revokedAt: at });
      return { ...r, revokedAt: r.revokedAt ?? at };
    });
    return apiKeyView(record, new Map([[ctx.caller.userId, ctx.caller.email]]));
  },
  activity: (_input, result) => ({ params: { name: result.name }, targetIds: [result.keyId.slice(0, 16)], summary: `revoked API key "${result.name}" (${result.prefix})` }),
});
