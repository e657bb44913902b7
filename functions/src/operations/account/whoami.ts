import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { businessPath } from '../../domain/business.ts';

export default defineOperation({
  name: 'whoami',
  group: 'account',
  summary: 'The business, user, key name and role of this key; call it first',
  description:
    'The business and user this API key acts as, the key name and the role. Call it first.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({
    businessId: z.string(),
    businessName: z.string(),
    userId: z.string(),
    email: z.string(),
    keyName: z.string(),
    role: z.enum(['admin', 'user']),
  }),
  async run(_input, ctx) {
    const { caller } = ctx;
    const business = await ctx.store.get(businessPath(caller.businessId));
    if (!business) throw notFound('business', 'business');
    return {
      businessId: caller.businessId,
      businessName: String(business.data.businessName || business.data.name || ''),
      userId: caller.userId,
      email: caller.email,
      keyName: caller.keyName,
      role: caller.role,
    };
  },
});
