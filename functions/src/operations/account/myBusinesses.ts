import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { businessPath } from '../../domain/business.ts';

const MAX_BUSINESSES = 100;

export default defineOperation({
  name: 'myBusinesses',
  group: 'account',
  summary: 'The businesses you are a member of, to pick one (dashboard sign-in)',
  description:
    'For the dashboard: the businesses the signed-in user (Firebase ID token) belongs to, with names and roles, so a member of several ' +
    'picks one and sends it as X-Business-Id. Works before a business is picked; an empty list means the email belongs to no business. ' +
    'With an API key: the key\'s own business only.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({
    items: z.array(z.object({ businessId: z.string(), businessName: z.string(), role: z.enum(['admin', 'user']) })),
  }),
  async run(_input, ctx) {
    const { caller } = ctx;
    // An API key (and a member already bound to a business) sees that business alone.
    const memberships =
      caller.businessId !== ''
        ? [{ businessId: caller.businessId, role: caller.role }]
        : caller.userId === ''
          ? []
          : (await ctx.store.query({ collection: 'members', group: true, where: [['userId', '==', caller.userId]], limit: MAX_BUSINESSES })).map((d) => ({
              businessId: d.path.split('/')[1],
              role: (d.data as { role: 'admin' | 'user' }).role,
            }));
    const items = await Promise.all(
      memberships.map(async (m) => {
        const b = await ctx.store.get(businessPath(m.businessId));
        return { businessId: m.businessId, businessName: String(b?.data.businessName || b?.data.name || ''), role: m.role };
      }),
    );
    return { items: items.sort((a, b) => a.businessName.localeCompare(b.businessName)) };
  },
});
