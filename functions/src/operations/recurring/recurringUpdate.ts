import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, day, id, input, int } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { readPaymentRequest } from '../../domain/payments/paymentRequest.ts';
import { CADENCES, MAX_DAY_OF_MONTH } from '../../domain/recurring/schedule.ts';
import {
  checkRule, checkTemplate, ensureSupplier, nextAtFrom, recurringPath, recurringView, recurringViewSchema, templatePatchSchema, type RecurringRecord, type TemplateInput,
} from '../../domain/recurring/recurring.ts';

export default defineOperation({
  name: 'recurringUpdate',
  group: 'recurring',
  summary: 'Change, pause or resume a recurring payment request.',
  description:
    'Changes apply to future occurrences only; payments already made stay as they are. template fields replace the ones given. A resumed schedule goes on from today (the occurrences missed while paused are not made). null clears endDate or dueInDays.',
  flags: { idempotent: true },
  input: input({
    id: id().describe('Schedule id.'),
    template: templatePatchSchema.optional().describe('Fields to change, as in recurringCreate.'),
    cadence: z.enum(CADENCES).optional().describe('monthly, weekly or yearly.'),
    dayOfMonth: int().min(1).max(MAX_DAY_OF_MONTH).optional().describe('1-28.'),
    weekday: int().min(0).max(6).optional().describe('0-6, 0 = Sunday.'),
    month: int().min(1).max(12).optional().describe('1-12.'),
    startDate: day().optional().describe('YYYY-MM-DD.'),
    endDate: day().nullable().optional().describe('YYYY-MM-DD; null: no end.'),
    dueInDays: int().min(0).max(365).nullable().optional().describe('Days; null: no due date.'),
    paused: bool().optional().describe('true pauses, false resumes.'),
  }),
  output: recurringViewSchema,
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const now = ctx.clock.now();
    const today = jerusalemDay(now);
    const at = new Date(now).toISOString();
    const path = recurringPath(businessId, input.id);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`recurring schedule ${input.id}`, 'schedule');
      const r = doc.data as unknown as RecurringRecord;
      const t = r.template;
      const merged: TemplateInput = {
        supplierName: t.supplierName, amountAgorot: t.amountAgorot, openAmount: t.openAmount, currency: t.currency, vatIncluded: t.vatIncluded,
        description: t.description, invoiceRequired: t.invoiceRequired, payMethods: t.payMethods,
        ...(t.supplierPhone ? { supplierPhone: t.supplierPhone } : {}),
        ...(t.supplierEmail ? { supplierEmail: t.supplierEmail } : {}),
        ...(t.noVat !== null ? { noVat: t.noVat } : {}),
        ...(t.channel ? { channel: t.channel } : {}),
        ...Object.fromEntries(Object.entries(input.template ?? {}).filter(([, v]) => v !== undefined && v !== null)),
      };
      if (input.template?.channel === null) delete merged.channel;
      const contactChanged = input.template !== undefined && ('supplierPhone' in input.template || 'supplierEmail' in input.template);
      const { template, contactKey } = checkTemplate(merged);
      // A new cadence takes its own fields (the old ones may not apply); otherwise the stored ones stay unless given.
      const cadence = input.cadence ?? r.cadence;
      const same = cadence === r.cadence;
      const rule = checkRule(
        {
          cadence,
          dayOfMonth: input.dayOfMonth ?? (same ? r.dayOfMonth : null),
          weekday: input.weekday ?? (same ? r.weekday : null),
          month: input.month ?? (same ? r.month : null),
          startDate: input.startDate ?? r.startDate,
          endDate: input.endDate === undefined ? r.endDate : input.endDate,
        },
        today,
      );
      // The supplier the template names now: a changed contact may be a new supplier; a resumed schedule needs its supplier.
      const reads = await readPaymentRequest(tx, businessId, contactChanged ? contactKey : r.supplierKey);
      const paused = input.paused ?? r.paused;
      if (!paused && r.paused && !reads.supplier && !contactChanged) {
        throw precondition(`the supplier ${r.supplierKey} of recurring schedule ${r.id} was deleted; give the template a supplierPhone or supplierEmail`, { reason: 'recurringSupplierGone' });
      }
      if (contactChanged) ensureSupplier(tx, businessId, reads, template, at);
      const next = {
        ...rule,
        template,
        supplierKey: reads.supplierKey,
        dueInDays: input.dueInDays === undefined ? r.dueInDays : input.dueInDays,
        paused,
        pausedReason: paused ? (input.paused === true ? 'byUser' : r.pausedReason) : null,
        // Another cadence counts its periods anew (a period made already still keeps its payment id: made once).
        lastPeriod: same ? r.lastPeriod : null,
        updatedAt: at,
      } as const;
      const nextAt = nextAtFrom({ ...rule, paused, lastPeriod: next.lastPeriod }, today);
      tx.update(path, { ...next, nextAt });
      return recurringView({ ...r, ...next, nextAt });
    });
  },
  activity: (input, r) => ({
    params: { supplier: r.template.supplierName, ...(input.paused !== undefined ? { paused: input.paused } : {}) },
    targetIds: [r.id],
    summary: `updated the recurring request to ${r.template.supplierName}${input.paused === true ? ' (paused)' : input.paused === false ? ' (resumed)' : ''}`,
  }),
});
