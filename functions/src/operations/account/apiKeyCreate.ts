import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, text } from '../../core/schema.ts';
import { ApiError } from '../../core/errors.ts';
import { issueApiKey } from '../../core/auth.ts';
import { apiKeyView, apiKeyViewSchema, MAX_KEYS_PER_USER } from '../../domain/apiKeys.ts';

export default defineOperation({
  name: 'apiKeyCreate',
  group: 'account',
  summary: 'Create an API key for yourself; the key is shown this once',
  description: `The key acts as you, with your role. Store it now: only its hash is kept. At most ${MAX_KEYS_PER_USER} live keys per user.`,
  flags: {},
  input: input({ name: text(100).trim().min(1).describe('A name to tell the key apart, e.g. "accounting script".') }),
  output: z.object({ apiKey: z.string(), key: apiKeyViewSchema }),
  async run({ name }, ctx) {
    const { businessId, userId, email } = ctx.caller;
    const live = await ctx.store.count({ collection: 'apiKeys', where: [['businessId', '==', businessId], ['userId', '==', userId], ['revokedAt', '==', null]] });
    if (live >= MAX_KEYS_PER_USER) throw new ApiError('resource-exhausted', `you have ${live} live API keys, the most allowed; revoke one first (apiKeyRevoke)`, { reason: 'tooManyApiKeys' });
    const { apiKey, record } = await issueApiKey(ctx.store, { businessId, userId, name }, ctx.clock.now());
    return { apiKey, key: apiKeyView(record, new Map([[userId, email]])) };
  },
  activity: (input, result) => ({ params: { name: input.name }, targetIds: [result.key.keyId.slice(0, 16)], summary: `created API key "${input.name}" (${result.key.prefix})` }),
});
