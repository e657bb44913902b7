import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { day, input, int } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { formatAmount } from '../../domain/money.ts';
import { readPaymentRequest } from '../../domain/payments/paymentRequest.ts';
import { CADENCES, MAX_DAY_OF_MONTH } from '../../domain/recurring/schedule.ts';
import { checkRule, checkTemplate, ensureSupplier, getSchedule, nextAtFrom, recurringPath, recurringView, recurringViewSchema, runSchedule, templateSchema, type RecurringRecord } from '../../domain/recurring/recurring.ts';

export default defineOperation({
  name: 'recurringCreate',
  group: 'recurring',
  summary: 'Create a recurring payment request (monthly, weekly or yearly).',
  description:
    'Each occurrence makes one payment request from the template, as createPayment would, and sends it. dayOfMonth 1-28 (monthly, yearly), weekday 0-6 with 0 Sunday (weekly), month 1-12 (yearly); each defaults to today in Israel. Each request is due dueInDays after its day.',
  flags: { openWorld: true },
  input: input({
    template: templateSchema.describe('The request, as createPayment takes it.'),
    cadence: z.enum(CADENCES).describe('monthly, weekly or yearly.'),
    dayOfMonth: int().min(1).max(MAX_DAY_OF_MONTH).optional().describe('1-28.'),
    weekday: int().min(0).max(6).optional().describe('0-6, 0 = Sunday.'),
    month: int().min(1).max(12).optional().describe('1-12.'),
    startDate: day().describe('YYYY-MM-DD.'),
    endDate: day().optional().describe('YYYY-MM-DD, last day.'),
    dueInDays: int().min(0).max(365).optional().describe('Due date: days after each request.'),
  }),
  output: recurringViewSchema,
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const now = ctx.clock.now();
    const today = jerusalemDay(now);
    const { template, contactKey } = checkTemplate(input.template);
    const rule = checkRule(input, today);
    const id = ctx.ids();
    const at = new Date(now).toISOString();
    await ctx.store.runTransaction(async (tx) => {
      const reads = await readPaymentRequest(tx, businessId, contactKey);
      if (!reads.business) throw notFound('business', 'business');
      ensureSupplier(tx, businessId, reads, template, at);
      const record: RecurringRecord = {
        id, businessId, template, supplierKey: reads.supplierKey, ...rule,
        dueInDays: input.dueInDays ?? null,
        paused: false, pausedReason: null,
        nextAt: nextAtFrom({ ...rule, paused: false, lastPeriod: null }, today),
        lastPeriod: null, payments: [],
        createdAt: at, createdAtMs: now, createdBy: ctx.caller.userId, createdByEmail: ctx.caller.email, updatedAt: at,
      };
      tx.create(recurringPath(businessId, id), { ...record });
    });
    // An occurrence due today is made now; should this fail, the job makes it.
    await runSchedule(ctx, businessId, id).catch((e) => ctx.logger.error('recurring: the first occurrence waits for the job', { businessId, scheduleId: id, error: String(e) }));
    return recurringView(await getSchedule(ctx.store, businessId, id));
  },
  activity: (_input, r) => ({
    params: { supplier: r.template.supplierName, cadence: r.cadence, amountAgorot: r.template.openAmount ? null : r.template.amountAgorot, currency: r.template.currency },
    targetIds: [r.id, ...r.payments.map((p) => p.paymentId)],
    summary: `recurring ${r.cadence} request to ${r.template.supplierName}: ${r.template.openAmount ? 'open amount' : formatAmount(r.template.amountAgorot, r.template.currency)}`,
  }),
});
