import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { recurringPath, type RecurringRecord } from '../../domain/recurring/recurring.ts';

export default defineOperation({
  name: 'recurringDelete',
  group: 'recurring',
  summary: 'Delete a recurring payment request; the payments it made stay.',
  description: 'The schedule makes no more requests; the requests it made stay as they are.',
  flags: { dangerous: true },
  input: input({ id: id().describe('Schedule id.') }),
  output: z.object({ id: z.string(), deleted: z.literal(true), supplierName: z.string() }),
  async run({ id: scheduleId }, ctx) {
    const path = recurringPath(ctx.caller.businessId, scheduleId);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`recurring schedule ${scheduleId}`, 'schedule');
      const r = doc.data as unknown as RecurringRecord;
      tx.delete(path);
      return { id: scheduleId, deleted: true as const, supplierName: r.template.supplierName };
    });
  },
  activity: (_input, r) => ({ params: { supplier: r.supplierName }, targetIds: [r.id], summary: `deleted the recurring request to ${r.supplierName}` }),
});
