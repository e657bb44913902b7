import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { publicSlugPath, slugSchema } from '../../domain/publicLink.ts';

export default defineOperation({
  name: 'checkPublicSlug',
  group: 'account',
  summary: 'Whether a standing-link slug is free',
  description:
    'Whether a slug for the standing request link is free (a slug this business already holds counts as free).',
  flags: { readOnly: true },
  input: input({ slug: slugSchema().describe('Standing-link slug: lowercase Latin letters, digits and single hyphens, 3 to 40 characters.') }),
  output: z.object({ slug: z.string(), available: z.boolean(), mine: z.boolean() }),
  async run({ slug }, ctx) {
    const doc = await ctx.store.get(publicSlugPath(slug));
    const mine = doc?.data.businessId === ctx.caller.businessId;
    return { slug, available: !doc || mine, mine };
  },
});
