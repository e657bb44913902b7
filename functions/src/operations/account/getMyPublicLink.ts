import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { businessPath } from '../../domain/business.ts';
import { publicLinkUrl } from '../../domain/publicLink.ts';

export default defineOperation({
  name: 'getMyPublicLink',
  group: 'account',
  summary: 'The standing request link of this business',
  description:
    'The standing request link anyone can open to file a payment request to this business; null until a slug is set.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ slug: z.string().nullable(), url: z.string().nullable() }),
  async run(_input, ctx) {
    const doc = await ctx.store.get(businessPath(ctx.caller.businessId));
    if (!doc) throw notFound('business', 'business');
    const slug = (doc.data.publicSlug as string | null) ?? null;
    return { slug, url: slug ? publicLinkUrl(ctx.config.publicLinkBase, slug) : null };
  },
});
