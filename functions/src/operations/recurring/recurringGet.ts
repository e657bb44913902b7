import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { getSchedule, recurringView, recurringViewSchema } from '../../domain/recurring/recurring.ts';

export default defineOperation({
  name: 'recurringGet',
  group: 'recurring',
  summary: 'A recurring payment request with its next date and the payments it made.',
  description: 'nextAt is the next occurrence (null when paused or ended); payments lists the last 24 requests it made.',
  flags: { readOnly: true },
  input: input({ id: id().describe('Schedule id.') }),
  output: recurringViewSchema,
  async run({ id: scheduleId }, ctx) {
    return recurringView(await getSchedule(ctx.store, ctx.caller.businessId, scheduleId));
  },
});
