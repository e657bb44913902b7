import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { businessPath } from '../../domain/business.ts';
import { publicLinkUrl, publicSlugPath, slugSchema } from '../../domain/publicLink.ts';

export default defineOperation({
  name: 'setMyPublicLink',
  group: 'account',
  summary: 'Set the slug of the standing request link',
  description:
    'Set the slug of the standing request link; slugs are unique across all businesses and the old one is released.',
  flags: { idempotent: true },
  input: input({ slug: slugSchema().describe('Standing-link slug: lowercase Latin letters, digits and single hyphens, 3 to 40 characters.') }),
  output: z.object({ slug: z.string(), url: z.string() }),
  async run({ slug }, ctx) {
    const { businessId } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    await ctx.store.runTransaction(async (tx) => {
      const [business, taken] = await tx.getAll([businessPath(businessId), publicSlugPath(slug)]);
      if (!business) throw notFound('business', 'business');
      if (taken && taken.data.businessId !== businessId) throw new ApiError('already-exists', `slug: "${slug}" is taken`, { reason: 'slugTaken', params: { slug } });
      const old = business.data.publicSlug as string | null;
      if (old && old !== slug) tx.delete(publicSlugPath(old));
      tx.set(publicSlugPath(slug), { slug, businessId, createdAt: at });
      tx.update(businessPath(businessId), { publicSlug: slug, updatedAt: at });
    });
    return { slug, url: publicLinkUrl(ctx.config.publicLinkBase, slug) };
  },
  activity: ({ slug }) => ({ params: { slug }, targetIds: [slug], summary: `set the public link slug to ${slug}` }),
});
