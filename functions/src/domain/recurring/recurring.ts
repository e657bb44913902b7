import { z } from 'zod';
import type { Services } from '../../core/context.ts';
import type { Transaction } from '../../ports/store.ts';
import type { OutboundMessage } from '../../ports/outbox.ts';
import { bool, emailText, int, LIMITS, multilineText, text } from '../../core/schema.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { enqueueDelivery, outboxPath, stageMessage } from '../../core/outbox.ts';
import { chargeQuota, quotaUsed } from '../../core/quota.ts';
import { appendActivity } from '../../core/activity.ts';
import { CURRENCIES, type Currency } from '../money.ts';
import { paymentAmounts } from '../vat.ts';
import { isRealDay } from '../invoices/invoiceDocs.ts';
import { addDays } from '../payments/dueDates.ts';
import { newPaymentLink, PAY_METHODS, paymentsPath, type PayMethod } from '../payments/payments.ts';
import { supplierLang } from '../payments/paymentMessages.ts';
import { checkPaymentRequest, readPaymentRequest, writePaymentRequest, type RequestReads } from '../payments/paymentRequest.ts';
import { suppliersPath, type SupplierRecord } from '../payments/suppliers.ts';
import { PHONE_MAX } from '../payments/paymentView.ts';
import {
  CADENCES, MAX_CATCH_UP, MAX_DAY_OF_MONTH, PAYMENTS_KEPT, fillDescription, nextOccurrence, occurrenceMessageId, occurrencePaymentId, periodOf, weekdayOf,
  type Cadence, type ScheduleRule,
} from './schedule.ts';

export const RECURRING_COLLECTION = 'recurring';
export const recurringPath = (businessId: string, id = '') => `businesses/${businessId}/${RECURRING_COLLECTION}${id ? '/' + id : ''}`;

/** What each occurrence's request is made of: createPayment's fields, without a due date (dueInDays gives it) or an invoice. */
export const templateSchema = z.strictObject({
  supplierName: text().trim().min(1).describe('Supplier name.'),
  supplierPhone: text(PHONE_MAX).optional().describe('Phone; gets the link by WhatsApp.'),
  supplierEmail: emailText().optional().describe('Email; gets the link by email.'),
  amountAgorot: int().min(0).max(1_000_000_000).describe('Agorot; 0 with openAmount.'),
  openAmount: bool().default(false).describe('The supplier fills the amount.'),
  currency: z.enum(CURRENCIES).default('ILS').describe('ILS, USD or EUR.'),
  vatIncluded: bool().describe('The amount includes VAT.'),
  noVat: bool().optional().describe('No VAT applies.'),
  description: multilineText(LIMITS.text).trim().min(1).describe('{month}, {period} filled per request.'),
  payMethods: z.array(z.enum(PAY_METHODS)).max(2).optional().describe('bank, bit; omit for both.'),
  invoiceRequired: bool().default(false).describe('Ready only with an invoice.'),
  channel: z.enum(['link']).optional().describe('link: send nothing.'),
});
export type TemplateInput = z.output<typeof templateSchema>;

/** recurringUpdate's template: any of the fields, no defaults (a field left out keeps its value); channel null sends again. */
export const templatePatchSchema = z.strictObject({
  supplierName: text().trim().min(1).optional().describe('Supplier name.'),
  supplierPhone: text(PHONE_MAX).optional().describe('Phone (WhatsApp).'),
  supplierEmail: emailText().optional().describe('Email.'),
  amountAgorot: int().min(0).max(1_000_000_000).optional().describe('Agorot.'),
  openAmount: bool().optional().describe('The supplier fills the amount.'),
  currency: z.enum(CURRENCIES).optional().describe('Currency.'),
  vatIncluded: bool().optional().describe('Includes VAT.'),
  noVat: bool().optional().describe('No VAT.'),
  description: multilineText(LIMITS.text).trim().min(1).optional().describe('Text.'),
  payMethods: z.array(z.enum(PAY_METHODS)).max(2).optional().describe('bank, bit.'),
  invoiceRequired: bool().optional().describe('Needs an invoice.'),
  channel: z.enum(['link']).nullable().optional().describe('link; null: send.'),
});

export interface Template {
  supplierName: string;
  supplierPhone: string | null;
  supplierEmail: string | null;
  amountAgorot: number;
  openAmount: boolean;
  currency: Currency;
  vatIncluded: boolean;
  noVat: boolean | null;
  description: string;
  payMethods: PayMethod[];
  invoiceRequired: boolean;
  channel: 'link' | null;
}

export type PausedReason = 'byUser' | 'supplierDeleted';

export interface RecurringPaymentRef {
  paymentId: string;
  period: string;
  createdAt: string;
}

export interface RecurringRecord extends ScheduleRule {
  id: string;
  businessId: string;
  template: Template;
  /** The supplier the template files under (a merge moves it to the supplier merged into). */
  supplierKey: string;
  dueInDays: number | null;
  paused: boolean;
  pausedReason: PausedReason | null;
  /** The next occurrence's day (Israel), or null when paused or past the end date. */
  nextAt: string | null;
  /** The period of the last occurrence made. */
  lastPeriod: string | null;
  payments: RecurringPaymentRef[];
  createdAt: string;
  createdAtMs: number;
  createdBy: string;
  createdByEmail: string;
  updatedAt: string;
}

export const recurringViewSchema = z.object({
  id: z.string(),
  template: z.object({
    supplierName: z.string(), supplierPhone: z.string().nullable(), supplierEmail: z.string().nullable(), supplierKey: z.string(),
    amountAgorot: z.int(), openAmount: z.boolean(), currency: z.enum(CURRENCIES), vatIncluded: z.boolean(), noVat: z.boolean().nullable(),
    description: z.string(), payMethods: z.array(z.enum(PAY_METHODS)), invoiceRequired: z.boolean(), channel: z.enum(['link']).nullable(),
  }),
  cadence: z.enum(CADENCES),
  dayOfMonth: z.int().nullable(),
  weekday: z.int().nullable(),
  month: z.int().nullable(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  dueInDays: z.int().nullable(),
  paused: z.boolean(),
  pausedReason: z.enum(['byUser', 'supplierDeleted']).nullable().describe('byUser or supplierDeleted.'),
  nextAt: z.string().nullable().describe('Next occurrence, YYYY-MM-DD; null when paused or ended.'),
  createdAt: z.string(),
  createdBy: z.string(),
  payments: z.array(z.object({ paymentId: z.string(), period: z.string(), createdAt: z.string() })).describe('Most recent first (last 24).'),
});
export type RecurringView = z.infer<typeof recurringViewSchema>;

export const recurringView = (r: RecurringRecord): RecurringView => ({
  id: r.id,
  template: { ...r.template, supplierKey: r.supplierKey },
  cadence: r.cadence,
  dayOfMonth: r.dayOfMonth,
  weekday: r.weekday,
  month: r.month,
  startDate: r.startDate,
  endDate: r.endDate,
  dueInDays: r.dueInDays,
  paused: r.paused,
  pausedReason: r.pausedReason,
  nextAt: r.nextAt,
  createdAt: r.createdAt,
  createdBy: r.createdBy,
  payments: r.payments,
});

export async function getSchedule(reader: { get: Services['store']['get'] }, businessId: string, id: string): Promise<RecurringRecord> {
  const doc = await reader.get(recurringPath(businessId, id));
  if (!doc) throw notFound(`recurring schedule ${id}`, 'schedule');
  return doc.data as unknown as RecurringRecord;
}

/** A template as stored, after createPayment's checks (each refusal names its field under `template.`). */
export function checkTemplate(t: TemplateInput) {
  try {
    const checked = checkPaymentRequest({ ...t, supplierPhone: t.supplierPhone ?? null, supplierEmail: t.supplierEmail ?? null, channel: t.channel ?? null });
    const template: Template = {
      supplierName: t.supplierName,
      supplierPhone: checked.phone,
      supplierEmail: checked.email,
      amountAgorot: t.amountAgorot,
      openAmount: t.openAmount,
      currency: t.currency,
      vatIncluded: t.vatIncluded,
      noVat: t.noVat ?? null,
      description: t.description,
      payMethods: t.payMethods ?? [],
      invoiceRequired: t.invoiceRequired,
      channel: t.channel ?? null,
    };
    return { template, contactKey: checked.contactKey };
  } catch (e) {
    const d = (e as { details?: { field?: string } }).details;
    if (d?.field && !d.field.startsWith('template.')) d.field = `template.${d.field}`;
    throw e;
  }
}

/** The rule's fields for its cadence: the ones that do not apply are refused when sent, the missing ones default to today. */
export function checkRule(
  s: { cadence: Cadence; dayOfMonth?: number | null; weekday?: number | null; month?: number | null; startDate: string; endDate?: string | null },
  today: string,
): ScheduleRule {
  const uses = { dayOfMonth: s.cadence !== 'weekly', weekday: s.cadence === 'weekly', month: s.cadence === 'yearly' } as const;
  for (const f of ['dayOfMonth', 'weekday', 'month'] as const) {
    if (!uses[f] && s[f] !== undefined && s[f] !== null) throw invalid(f, `does not apply to a ${s.cadence} schedule`, { reason: 'notForCadence', params: { cadence: s.cadence } });
  }
  if (!isRealDay(s.startDate) || s.startDate < '2000-01-01' || s.startDate > '2100-12-31') throw invalid('startDate', `"${s.startDate}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: s.startDate } });
  const endDate = s.endDate ?? null;
  if (endDate !== null && (!isRealDay(endDate) || endDate > '2100-12-31')) throw invalid('endDate', `"${endDate}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: endDate } });
  if (endDate !== null && endDate < s.startDate) throw invalid('endDate', 'is before startDate', { reason: 'dateRangeReversed' });
  return {
    cadence: s.cadence,
    dayOfMonth: uses.dayOfMonth ? (s.dayOfMonth ?? Math.min(MAX_DAY_OF_MONTH, Number(today.slice(8, 10)))) : null,
    weekday: uses.weekday ? (s.weekday ?? weekdayOf(today)) : null,
    month: uses.month ? (s.month ?? Number(today.slice(5, 7))) : null,
    startDate: s.startDate,
    endDate,
  };
}

/** Creates the template's supplier when it has no record yet (so a supplier deleted later is noticed), inside `tx` after its reads. */
export function ensureSupplier(tx: Transaction, businessId: string, reads: RequestReads, template: Template, at: string): void {
  if (reads.supplier) return;
  const record: SupplierRecord = {
    key: reads.supplierKey, name: template.supplierName, phone: template.supplierPhone, email: template.supplierEmail, kind: 'supplier',
    manual: false, paymentCount: 0, lastPaymentAt: null, card: {}, supplierSide: null, createdAt: at, updatedAt: at,
  };
  tx.set(suppliersPath(businessId, reads.supplierKey), { ...record });
}

/** Where a schedule stands after a change: its next occurrence from today (none while paused). */
export const nextAtFrom = (r: Pick<RecurringRecord, 'paused' | 'lastPeriod'> & ScheduleRule, today: string) => (r.paused ? null : nextOccurrence(r, r.lastPeriod, today));

export interface RunOptions {
  /** Test hook: called before each occurrence's transaction and after its commit (before its messages are queued). */
  hook?: (stage: 'before' | 'committed', info: { businessId: string; scheduleId: string; period: string; paymentId: string }) => Promise<void>;
}

export interface RunResult {
  created: { businessId: string; scheduleId: string; paymentId: string; period: string }[];
  paused: string[];
}

type Step =
  | { kind: 'stop' }
  | { kind: 'skipped' }
  | { kind: 'paused' }
  | { kind: 'capped' }
  | { kind: 'created'; paymentId: string; period: string; staged: { path: string; channel: OutboundMessage['channel'] }[]; schedule: RecurringRecord; amountAgorot: number | null };

/**
 * Makes a schedule's due occurrences, oldest first, up to MAX_CATCH_UP: each in one transaction with the schedule's
 * advance, under the payment id its period gives, so a concurrent run, a retry or a run after a crash makes it once.
 */
export async function runSchedule(s: Services, businessId: string, scheduleId: string, opts: RunOptions = {}, out: RunResult = { created: [], paused: [] }): Promise<RunResult> {
  for (let i = 0; i < MAX_CATCH_UP; i++) {
    const now = s.clock.now();
    const today = jerusalemDay(now);
    const peek = await s.store.get(recurringPath(businessId, scheduleId));
    const r0 = peek?.data as unknown as RecurringRecord | undefined;
    if (!r0 || r0.paused || !r0.nextAt || r0.nextAt > today) break;
    const day0 = r0.nextAt;
    const period0 = periodOf(r0.cadence, day0);
    const id0 = occurrencePaymentId(businessId, scheduleId, period0);
    await opts.hook?.('before', { businessId, scheduleId, period: period0, paymentId: id0 });
    const link = newPaymentLink(s.config.publicLinkBase);
    const step: Step = await s.store.runTransaction(async (tx): Promise<Step> => {
      const staged: { path: string; channel: OutboundMessage['channel'] }[] = [];
      const doc = await tx.get(recurringPath(businessId, scheduleId));
      const r = doc?.data as unknown as RecurringRecord | undefined;
      if (!r || r.paused || !r.nextAt || r.nextAt > today) return { kind: 'stop' };
      const day = r.nextAt;
      const period = periodOf(r.cadence, day);
      const paymentId = occurrencePaymentId(businessId, scheduleId, period);
      const existing = await tx.get(paymentsPath(businessId, paymentId));
      const at = new Date(now).toISOString();
      const advance = { lastPeriod: period, nextAt: nextOccurrence(r, period, addDays(day, 1)), updatedAt: at };
      if (existing) {
        // Made already (a run that stopped before moving the schedule on cannot happen: both commit together; kept for safety).
        tx.update(doc!.path, advance);
        return { kind: 'skipped' };
      }
      const contactKey = r.supplierKey;
      const reads = await readPaymentRequest(tx, businessId, contactKey);
      if (!reads.business) return { kind: 'stop' };
      if (!reads.supplier) {
        tx.update(doc!.path, { paused: true, pausedReason: 'supplierDeleted', nextAt: null, updatedAt: at });
        return { kind: 'paused' };
      }
      const t = r.template;
      // The daily cap on outgoing messages holds as for createPayment: a request that would pass it waits for a later run.
      const cap = s.config.quotas.messages;
      const sends = t.channel === 'link' ? 0 : (t.supplierPhone ? 1 : 0) + (t.supplierEmail ? 1 : 0);
      if (cap !== undefined && sends && (await quotaUsed(tx, businessId, 'messages', now)) + sends > cap) return { kind: 'capped' };
      const lang = supplierLang({ currency: t.currency }, reads.supplier);
      const fields = { ...t, description: fillDescription(t.description, r.cadence, day, lang), dueDate: r.dueInDays === null ? null : addDays(day, r.dueInDays) };
      const checked = checkPaymentRequest(fields);
      const { record } = await writePaymentRequest(tx, s.config, {
        businessId,
        paymentId,
        input: fields,
        checked,
        reads: { ...reads, business: reads.business },
        link,
        createdBy: r.createdBy,
        now,
        extra: { recurringId: scheduleId, recurringPeriod: period },
        outbox: (t2, message, n) => {
          const path = stageMessage(t2, businessId, occurrenceMessageId(paymentId, n), message, 'recurring', now, paymentId, s.config.credentialsKey);
          staged.push({ path, channel: message.channel });
        },
      });
      const payments = [{ paymentId, period, createdAt: at }, ...(r.payments ?? [])].slice(0, PAYMENTS_KEPT);
      tx.update(doc!.path, { ...advance, payments, supplierKey: reads.supplierKey });
      return { kind: 'created', paymentId, period, staged, schedule: r, amountAgorot: record.openAmount ? null : paymentAmounts(record).totalAgorot };
    });
    if (step.kind === 'stop') break;
    if (step.kind === 'capped') {
      s.logger.warn('recurring request waits: the daily message cap is reached', { businessId, scheduleId });
      break;
    }
    if (step.kind === 'paused') {
      out.paused.push(scheduleId);
      s.logger.warn('recurring schedule paused: its supplier is gone', { businessId, scheduleId });
      break;
    }
    if (step.kind !== 'created') continue;
    await opts.hook?.('committed', { businessId, scheduleId, period: step.period, paymentId: step.paymentId });
    // Committed: a lost enqueue is taken up by the outbox sweep (the records are pending).
    for (const { path, channel } of step.staged) {
      try {
        await enqueueDelivery(s.tasks, path, channel);
      } catch (e) {
        s.logger.error('could not enqueue outbox delivery; the outbox sweep re-queues it', { path, error: String(e) });
      }
    }
    if (step.staged.length) await chargeQuota(s.store, s.config.quotas, businessId, 'messages', step.staged.length, now).catch(() => undefined);
    const sc = step.schedule;
    await appendActivity(s.store, s.ids, { businessId, userId: sc.createdBy, email: sc.createdByEmail, role: 'user', keyName: 'recurring' }, now, {
      operation: 'recurringOccurrence',
      kind: 'recurring',
      params: { supplier: sc.template.supplierName, period: step.period, amountAgorot: step.amountAgorot, currency: sc.template.currency },
      targetIds: [step.paymentId, scheduleId],
      summary: `recurring request to ${sc.template.supplierName} for ${step.period}`,
    }).catch((e) => s.logger.error('could not write the activity row of a recurring request', { error: String(e) }));
    out.created.push({ businessId, scheduleId, paymentId: step.paymentId, period: step.period });
  }
  return out;
}

const PAGE = 200;

/**
 * The job (a scheduled function, the local timer, `admin run-job recurring`): every schedule due by today in Israel,
 * its missed occurrences each with its own period. Safe to run twice at once or again after a crash.
 */
export async function runRecurring(s: Services, opts: RunOptions = {}): Promise<RunResult> {
  const out: RunResult = { created: [], paused: [] };
  const seen = new Set<string>();
  for (;;) {
    const today = jerusalemDay(s.clock.now());
    const page = await s.store.query({ collection: RECURRING_COLLECTION, group: true, where: [['paused', '==', false], ['nextAt', '<=', today]], orderBy: [['nextAt', 'asc']], limit: PAGE });
    const fresh = page.filter((d) => !seen.has(d.path));
    for (const d of fresh) {
      seen.add(d.path);
      const r = d.data as unknown as RecurringRecord;
      try {
        await runSchedule(s, r.businessId, r.id, opts, out);
      } catch (e) {
        s.logger.error('recurring schedule failed; the next run tries again', { businessId: r.businessId, scheduleId: r.id, error: String(e) });
      }
    }
    if (page.length < PAGE || !fresh.length) break;
  }
  return out;
}

/** The outbox path of an occurrence's message (tests and the payment's view find them by `ref`). */
export const occurrenceMessagePath = (businessId: string, paymentId: string, i: number) => outboxPath(businessId, occurrenceMessageId(paymentId, i));
