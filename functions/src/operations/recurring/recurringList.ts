import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { recurringPath, recurringView, recurringViewSchema, type RecurringRecord } from '../../domain/recurring/recurring.ts';

/** A business keeps a handful of schedules; the list is bounded rather than paged. */
export const RECURRING_LIST_MAX = 200;

export default defineOperation({
  name: 'recurringList',
  group: 'recurring',
  summary: 'Recurring payment requests, newest first.',
  description: `Up to ${RECURRING_LIST_MAX} schedules, each as recurringGet gives it.`,
  flags: { readOnly: true },
  input: input({}),
  output: z.object({ items: z.array(recurringViewSchema) }),
  async run(_input, ctx) {
    const docs = await ctx.store.query({ collection: recurringPath(ctx.caller.businessId), orderBy: [['createdAtMs', 'desc']], limit: RECURRING_LIST_MAX });
    return { items: docs.map((d) => recurringView(d.data as unknown as RecurringRecord)) };
  },
});
