import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, unixMs } from '../../core/schema.ts';
import { activityPath, type ActivityRow } from '../../core/activity.ts';
import type { Where } from '../../ports/store.ts';

export const ACTIVITY_PAGE = 60;

export default defineOperation({
  name: 'listActivity',
  group: 'activity',
  summary: 'The activity log, newest first, 60 rows a page',
  description:
    'The activity log, newest first, 60 rows a page; pass the `at` of the last row seen as `before` for the next page.',
  flags: { readOnly: true },
  input: input({ before: unixMs().optional().describe('Unix ms: only rows older than this (the `at` of the last row seen); omit for the newest page.') }),
  output: z.object({
    items: z.array(z.object({ id: z.string(), at: z.number(), actorUserId: z.string(), actorEmail: z.string(), keyName: z.string(), operation: z.string(), targetIds: z.array(z.string()), summary: z.string() })),
    nextBefore: z.number().nullable(),
  }),
  async run({ before }, ctx) {
    const where: Where[] = before === undefined ? [] : [['at', '<', before]];
    const docs = await ctx.store.query({ collection: activityPath(ctx.caller.businessId), where, orderBy: [['at', 'desc']], limit: ACTIVITY_PAGE });
    const items = docs.map((d) => d.data as unknown as ActivityRow);
    return { items, nextBefore: items.length === ACTIVITY_PAGE ? items[items.length - 1].at : null };
  },
});
