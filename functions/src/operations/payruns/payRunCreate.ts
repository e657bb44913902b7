import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { day, id, input, text } from '../../core/schema.ts';
import { businessPath } from '../../domain/business.ts';
import { isRealDay } from '../../domain/invoices/invoiceDocs.ts';
import { approvalPolicyOf } from '../../domain/payments/approvals.ts';
import { isDocId } from '../../domain/payments/paymentView.ts';
import { paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import {
  itemTotals,
  masavSerialPath,
  masavSettings,
  nextSerial,
  payRunsPath,
  RUN_MAX_PAYMENTS,
  runItemOf,
  runRefused,
  runView,
  runViewSchema,
  type PayRunRecord,
  type RunItemRecord,
  type RunRefusal,
} from '../../domain/payruns/payRuns.ts';

export default defineOperation({
  name: 'payRunCreate',
  group: 'payruns',
  summary: 'Batch ready payments into a payment run.',
  description:
    'paymentIds: 1 to 200. payDate: default the earliest due date among the payments, else (or when that has passed) today in Israel. All or nothing: every payment must be ready, approved (or not needing approval), in no other open run, with a known amount and payout that fits a file; ' +
    'otherwise failed-precondition runPaymentsRefused names each (params paymentIds and reasons). Files: MASAV (needs masavInstitutionId and masavSenderId), ' +
    'bank-portal CSV, foreign transfers, Bit; links expire after 7 days, payRunGet renews them.',
  flags: { adminOnly: true },
  input: input({
    paymentIds: z.array(id()).min(1).max(RUN_MAX_PAYMENTS).describe('Payment ids.'),
    payDate: day().optional().describe('YYYY-MM-DD.'),
    note: text().optional().describe('Note.'),
  }),
  output: runViewSchema,
  async run({ paymentIds, payDate, note }, ctx) {
    const { businessId } = ctx.caller;
    const now = ctx.clock.now();
    const today = jerusalemDay(now);
    if (payDate !== undefined) {
      if (!isRealDay(payDate)) throw invalid('payDate', `"${payDate}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: payDate } });
      if (payDate < today) throw invalid('payDate', `${payDate} is before today (${today}) in Israel`, { reason: 'payDateInPast', params: { today } });
    }
    const at = new Date(now).toISOString();
    const runId = ctx.ids();

    const run = await ctx.store.runTransaction(async (tx) => {
      const business = await tx.get(businessPath(businessId));
      if (!business) throw notFound('business', 'business');
      const policy = await approvalPolicyOf(tx, businessId);
      const docs = await tx.getAll(paymentIds.map((pid) => (isDocId(pid) ? paymentsPath(businessId, pid) : paymentsPath(businessId, '_'))));
      const payments = docs.map((d, i) => (d && isDocId(paymentIds[i]) ? (d.data as unknown as PaymentRecord) : null));
      // The runs the payments name: only an open or partly paid one still holds a payment.
      const runIds = [...new Set(payments.flatMap((p) => (p?.runId ? [p.runId] : [])))];
      const runs = runIds.length ? await tx.getAll(runIds.map((r) => payRunsPath(businessId, r))) : [];
      const openRunIds = new Set(runIds.filter((_, i) => ['open', 'partly_paid'].includes(String(runs[i]?.data.status))));
      const keys = [...new Set(payments.flatMap((p) => (p ? [p.supplierKey] : [])))];
      const supplierDocs = keys.length ? await tx.getAll(keys.map((k) => suppliersPath(businessId, k))) : [];
      const suppliers = new Map(keys.map((k, i) => [k, (supplierDocs[i]?.data as unknown as SupplierRecord | undefined) ?? null]));
      const counter = await tx.get(masavSerialPath(businessId));

      const refused: { paymentId: string; reason: RunRefusal }[] = [];
      const items: RunItemRecord[] = [];
      const seen = new Set<string>();
      paymentIds.forEach((pid, i) => {
        const p = payments[i];
        const dup = seen.has(pid);
        seen.add(pid);
        if (!p) return refused.push({ paymentId: pid, reason: 'notFound' });
        if (dup) return refused.push({ paymentId: pid, reason: 'duplicate' });
        const item = runItemOf(p, policy, suppliers.get(p.supplierKey) ?? null, openRunIds);
        if ('refused' in item) refused.push({ paymentId: pid, reason: item.refused });
        else items.push(item);
      });
      if (refused.length) throw runRefused(refused);

      // The pay date: as asked, else the earliest due date (today when that has passed), else today.
      const dues = payments.flatMap((p) => (p?.dueDate && isRealDay(p.dueDate) ? [p.dueDate] : [])).sort();
      const when = payDate ?? (dues[0] && dues[0] > today ? dues[0] : today);
      const { masav, missing } = masavSettings(business.data);
      const hasMasavRows = items.some((it) => it.file === 'masav');
      const serial = hasMasavRows && masav ? nextSerial((counter?.data.last as number | undefined) ?? 0) : null;
      const record: PayRunRecord = {
        id: runId,
        businessId,
        status: 'open',
        payDate: when,
        note: note?.trim() ?? '',
        serial,
        createdBy: ctx.caller.userId,
        createdByEmail: ctx.caller.email,
        createdAt: at,
        createdAtMs: now,
        createdDay: today,
        paidAt: null,
        canceledAt: null,
        updatedAt: at,
        masav: serial !== null ? masav : null,
        items,
        totals: itemTotals(items),
        files: [],
        warnings: hasMasavRows && missing.length ? [{ reason: 'masavSettingsMissing', fields: missing }] : [],
        proof: null,
      };
      tx.create(payRunsPath(businessId, runId), { ...record });
      for (const it of items) tx.update(paymentsPath(businessId, it.paymentId), { runId, updatedAt: at });
      if (serial !== null) tx.set(masavSerialPath(businessId), { last: serial, updatedAt: at });
      return record;
    });
    // The files are built from the run's snapshot after the commit (runView stores them; a rebuild gives the same bytes).
    return runView(ctx, run);
  },
  activity: (_input, r) => {
    const one = r.totals.length === 1 ? r.totals[0] : null;
    return {
      params: { count: r.items.length, payDate: r.payDate, amountAgorot: one ? one.totalAgorot : null, currency: one ? one.currency : null, masav: r.files.some((f) => f.kind === 'masav') },
      targetIds: [r.id, ...r.items.map((i) => i.paymentId)],
      summary: `created a payment run of ${r.items.length} payment(s) for ${r.payDate}`,
    };
  },
});
