/**
 * Reminders and owner due notices (issue 39 §2), one hourly job (`reminders`: index.ts remindersHourly, server.ts's
 * timer, `admin run-job reminders`) that acts only when something is due:
 * - supplier reminders: a request the supplier has not filled gets a reminder `N` days after it was sent, for each N of
 *   the business's `reminderDays`, on the payment's channel, with the same link; sent 08:00-20:59 Israel time;
 * - the morning digest: from 07:00 Israel, once a day, to each admin, of unpaid payments due today or overdue and of
 *   payments waiting for an approval; nothing to list, no email;
 * - the pay-date email: an open payment run whose pay date has come, once per run and pay date, to each admin.
 *
 * Exactly once: each send is one transaction that re-reads its record, checks its marker and writes it with the
 * message(s): the payment's `reminders` (step), the business's `dueDigestDay`, the run's `payDateNotice`; the outbox
 * ids derive from the same keys, so even a replayed write cannot stage a second copy.
 */
import type { Services } from '../../core/context.ts';
import { appendActivity } from '../../core/activity.ts';
import { iso, jerusalemDay, jerusalemMidnightMs, jerusalemOffsetMs } from '../../core/clock.ts';
import type { MemberRecord } from '../../core/members.ts';
import { enqueueDelivery, outboxPath, stageMessage } from '../../core/outbox.ts';
import { ownerLinks } from '../../core/links.ts';
import type { OutboundMessage } from '../../ports/outbox.ts';
import type { Doc, Query, Reader } from '../../ports/store.ts';
import { dueDigestEmail, paymentReminderEmail, runPayDateEmail, type DigestLine } from '../../emails/messages.ts';
import { businessPath, profileOf } from '../business.ts';
import { formatAmount } from '../money.ts';
import { paymentAmounts } from '../vat.ts';
import { membersPath } from '../people/team.ts';
import { approvalOf, approvalPolicyOf } from '../payments/approvals.ts';
import { addDays } from '../payments/dueDates.ts';
import { PAY_DATE_GRACE_DAYS, reminderPlan, REMINDER_GRACE_DAYS } from './reminderPlan.ts';
import { businessContact, paymentRequestMessages, supplierLang, type BusinessContact } from '../payments/paymentMessages.ts';
import { paymentLinkUrl, paymentsPath, UNPAID, type PaymentRecord } from '../payments/payments.ts';
import { suppliersPath, type SupplierRecord } from '../payments/suppliers.ts';
import { payRunsPath, type PayRunRecord } from '../payruns/payRuns.ts';

/** Supplier reminders go out from 08:00 to 20:59 Israel time (never at night); the owner emails from 07:00. */
export const REMINDER_HOURS = { from: 8, until: 21 } as const;
export const DIGEST_HOUR = 7;
/** Lines listed per section of the digest; the rest are counted. */
export const DIGEST_LINES = 20;
const PAGE = 300;
const BUSINESSES_AT_ONCE = 8;

/** The hour of the day in Israel, 0..23. */
export const israelHour = (ms: number) => new Date(ms + jerusalemOffsetMs(ms)).getUTCHours();

/** The reminder itself: WhatsApp as the request went (the approved payment-request template, the same link), or an email saying it is a reminder. */
export async function reminderMessage(s: Services, p: PaymentRecord, business: BusinessContact, lang: 'he' | 'en', step: number): Promise<OutboundMessage | null> {
  if (p.channel === 'wa' && p.supplierPhone) return (await paymentRequestMessages(s.config, p, business, lang, 'wa'))[0] ?? null;
  if (p.channel === 'em' && p.supplierEmail) return paymentReminderEmail(s.config, business, p, paymentLinkUrl(s.config.publicLinkBase, p.linkToken), lang, step);
  return null;
}

export const reminderOutboxId = (paymentId: string, step: number) => `rem_${paymentId}_${step}`;
export const digestOutboxId = (day: string, userId: string) => `due_${day}_${userId}`;
export const payDateOutboxId = (runId: string, payDate: string, userId: string) => `payday_${runId}_${payDate}_${userId}`;

const system = (businessId: string) => ({ businessId, userId: 'system', email: '', role: 'user' as const, keyName: 'reminders' });

async function enqueueAll(s: Services, staged: { path: string; channel: OutboundMessage['channel'] }[]): Promise<void> {
  for (const m of staged) {
    try {
      await enqueueDelivery(s.tasks, m.path, m.channel);
    } catch (e) {
      s.logger.error('could not enqueue outbox delivery; the outbox sweep re-queues it', { path: m.path, error: String(e) });
    }
  }
}

/** Every page of a query ordered by one field (the cursor is that field's value). */
async function* pages(reader: Reader, q: Query, field: string): AsyncGenerator<Doc[]> {
  let after: unknown = undefined;
  for (;;) {
    const page = await reader.query({ ...q, limit: PAGE, ...(after !== undefined && { startAfter: [after] }) });
    yield page;
    if (page.length < PAGE) return;
    after = page.at(-1)!.data[field];
  }
}

/** One reminder step of one payment, in one transaction; null when it is no longer due (filled, canceled, sent by another run). */
export async function sendReminder(s: Services, businessId: string, paymentId: string, days: readonly number[], step: number): Promise<PaymentRecord | null> {
  const now = s.clock.now();
  const today = jerusalemDay(now);
  const path = paymentsPath(businessId, paymentId);
  const done = await s.store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    if (!doc) return null;
    const p = doc.data as unknown as PaymentRecord;
    const plan = reminderPlan(p, days, today);
    if (plan.due !== step) return null;
    const id = reminderOutboxId(p.id, step);
    const [business, supplier, existing] = await Promise.all([businessContact(tx, businessId), tx.get(suppliersPath(businessId, p.supplierKey)), tx.get(outboxPath(businessId, id))]);
    if (!business || existing) return null;
    const message = await reminderMessage(s, p, business, supplierLang(p, (supplier?.data as unknown as SupplierRecord | undefined) ?? null), step);
    if (!message) return null;
    tx.update(path, { reminders: [...plan.sent, { step, at: iso(now) }] });
    return { p, staged: { path: stageMessage(tx, businessId, id, message, 'paymentReminder', now, p.id, s.config.credentialsKey), channel: message.channel } };
  });
  if (!done) return null;
  await enqueueAll(s, [done.staged]);
  const channel = done.p.channel;
  await appendActivity(s.store, s.ids, system(businessId), now, {
    operation: 'paymentReminder',
    kind: 'payments',
    params: { supplier: done.p.supplierName, channel, step },
    targetIds: [paymentId],
    summary: `reminded ${done.p.supplierName} by ${channel === 'wa' ? 'WhatsApp' : 'email'}, ${step} days after the request`,
  }).catch((e) => s.logger.error('reminder activity not written', { businessId, paymentId, error: String(e) }));
  return done.p;
}

/** The business's supplier reminders due now: unfilled payments sent within the window of its steps (bounded by sentAt). */
export async function supplierReminders(s: Services, businessId: string, days: readonly number[]): Promise<number> {
  if (!days.length) return 0;
  const today = jerusalemDay(s.clock.now());
  const from = iso(jerusalemMidnightMs(addDays(today, -(days.at(-1)! + REMINDER_GRACE_DAYS))));
  const until = iso(jerusalemMidnightMs(addDays(today, -days[0]! + 1)));
  let n = 0;
  const q: Query = { collection: paymentsPath(businessId), where: [['status', '==', 'sent'], ['sentAt', '>=', from], ['sentAt', '<', until]], orderBy: [['sentAt', 'asc']] };
  for await (const page of pages(s.store, q, 'sentAt')) {
    for (const d of page) {
      const p = d.data as unknown as PaymentRecord;
      const { due } = reminderPlan(p, days, today);
      if (due !== null && (await sendReminder(s, businessId, p.id, days, due))) n++;
    }
  }
  return n;
}

async function adminsOf(reader: Reader, businessId: string): Promise<{ userId: string; email: string }[]> {
  return (await reader.query({ collection: membersPath(businessId), where: [['role', '==', 'admin']] }))
    .map((d) => d.data as unknown as MemberRecord)
    .filter((m) => m.email)
    .map((m) => ({ userId: m.userId, email: m.email }))
    .sort((a, b) => a.userId.localeCompare(b.userId));
}

const figureOf = (p: PaymentRecord) => (p.openAmount && p.amountAgorot === 0 ? 'סכום פתוח' : formatAmount(paymentAmounts(p).totalAgorot, p.currency));

/** What the digest lists today: unpaid payments due today or before (oldest due first), and payments pending an approval (newest first). */
export async function digestContent(reader: Reader, businessId: string, today: string): Promise<{ due: PaymentRecord[]; approvals: PaymentRecord[] }> {
  const due: PaymentRecord[] = [];
  for (const status of UNPAID) {
    const docs = await reader.query({ collection: paymentsPath(businessId), where: [['status', '==', status], ['dueDate', '<=', today]], orderBy: [['dueDate', 'asc']], limit: PAGE });
    for (const d of docs) {
      const p = d.data as unknown as PaymentRecord;
      if (p.dueDate && p.dueDate <= today) due.push(p);
    }
  }
  due.sort((a, b) => a.dueDate!.localeCompare(b.dueDate!) || a.createdAtMs - b.createdAtMs);
  const policy = await approvalPolicyOf(reader, businessId);
  const approvals: PaymentRecord[] = [];
  for (const status of UNPAID) {
    const docs = await reader.query({ collection: paymentsPath(businessId), where: [['status', '==', status]], orderBy: [['createdAtMs', 'desc']], limit: PAGE });
    for (const d of docs) {
      const p = d.data as unknown as PaymentRecord;
      // A request the supplier has not filled waits for the supplier, not for an approval (a public filing's review does).
      if (p.status === 'sent' && !p.needsReview) continue;
      if (approvalOf(p, policy).state === 'pending') approvals.push(p);
    }
  }
  approvals.sort((a, b) => b.createdAtMs - a.createdAtMs);
  return { due, approvals };
}

/** The morning digest of one business, once per Israeli day; returns the emails staged (0 when nothing is due or it went already). */
export async function dueDigest(s: Services, businessId: string): Promise<number> {
  const now = s.clock.now();
  const today = jerusalemDay(now);
  const bdoc = await s.store.get(businessPath(businessId));
  if (!bdoc || bdoc.data.dueDigestDay === today || !profileOf(bdoc.data).notifyDueEmail) return 0;
  const { due, approvals } = await digestContent(s.store, businessId, today);
  const links = ownerLinks(s.config.dashboardUrl);
  const line = (p: PaymentRecord): DigestLine => ({ supplierName: p.supplierName, figure: figureOf(p), dueDate: p.dueDate ?? null, url: links.payment(p.id) });
  const staged = await s.store.runTransaction(async (tx) => {
    const b = await tx.get(businessPath(businessId));
    if (!b || b.data.dueDigestDay === today || !profileOf(b.data).notifyDueEmail) return [];
    const business = await businessContact(tx, businessId);
    const admins = await adminsOf(tx, businessId);
    const existing = await tx.getAll(admins.map((a) => outboxPath(businessId, digestOutboxId(today, a.userId))));
    // The day is marked considered even when nothing is due: the digest is the morning's, not one later in the day.
    tx.update(businessPath(businessId), { dueDigestDay: today });
    if (!business || (due.length === 0 && approvals.length === 0)) return [];
    const out: { path: string; channel: OutboundMessage['channel'] }[] = [];
    for (const [i, a] of admins.entries()) {
      if (existing[i]) continue;
      const message = await dueDigestEmail(s.config, business, a.email, {
        today,
        due: due.slice(0, DIGEST_LINES).map(line),
        dueTotal: due.length,
        approvals: approvals.slice(0, DIGEST_LINES).map(line),
        approvalsTotal: approvals.length,
        payUrl: `${s.config.dashboardUrl.replace(/\/+$/, '')}/pay`,
      });
      out.push({ path: stageMessage(tx, businessId, digestOutboxId(today, a.userId), message, 'dueDigest', now, null, s.config.credentialsKey), channel: 'email' });
    }
    return out;
  });
  await enqueueAll(s, staged);
  return staged.length;
}

/** Open runs whose pay date has come (within the grace): one email to each admin, once per run and pay date. */
export async function payDateNotices(s: Services, businessId: string): Promise<number> {
  const now = s.clock.now();
  const today = jerusalemDay(now);
  const oldest = addDays(today, -PAY_DATE_GRACE_DAYS);
  const runs = (await s.store.query({ collection: payRunsPath(businessId), where: [['status', '==', 'open']], orderBy: [['createdAtMs', 'desc']], limit: PAGE }))
    .map((d) => d.data as unknown as PayRunRecord & { payDateNotice?: string })
    .filter((r) => r.payDate <= today && r.payDate >= oldest && r.payDateNotice !== r.payDate);
  let n = 0;
  for (const candidate of runs) {
    const staged = await s.store.runTransaction(async (tx) => {
      const path = payRunsPath(businessId, candidate.id);
      const r = (await tx.get(path))?.data as unknown as (PayRunRecord & { payDateNotice?: string }) | undefined;
      if (!r || r.status !== 'open' || r.payDateNotice === r.payDate || r.payDate > today) return [];
      const b = await tx.get(businessPath(businessId));
      if (!b || !profileOf(b.data).notifyDueEmail) return [];
      const business = await businessContact(tx, businessId);
      const admins = await adminsOf(tx, businessId);
      const existing = await tx.getAll(admins.map((a) => outboxPath(businessId, payDateOutboxId(r.id, r.payDate, a.userId))));
      tx.update(path, { payDateNotice: r.payDate });
      if (!business) return [];
      const out: { path: string; channel: OutboundMessage['channel'] }[] = [];
      for (const [i, a] of admins.entries()) {
        if (existing[i]) continue;
        const message = await runPayDateEmail(s.config, business, a.email, {
          payDate: r.payDate,
          count: r.items.length,
          totals: r.totals.map((t) => formatAmount(t.totalAgorot, t.currency)),
          note: r.note ?? '',
          url: `${s.config.dashboardUrl.replace(/\/+$/, '')}/pay/runs/${encodeURIComponent(r.id)}`,
        });
        out.push({ path: stageMessage(tx, businessId, payDateOutboxId(r.id, r.payDate, a.userId), message, 'runPayDate', now, r.id, s.config.credentialsKey), channel: 'email' });
      }
      return out;
    });
    await enqueueAll(s, staged);
    n += staged.length;
  }
  return n;
}

export interface RemindersOutcome {
  businesses: number;
  reminders: number;
  digests: number;
  payDateEmails: number;
}

/** One business's round: each part acts only in its hours; a failure is logged and the next hour tries again. */
export async function remindBusiness(s: Services, businessId: string, data: Record<string, unknown>): Promise<Omit<RemindersOutcome, 'businesses'>> {
  const now = s.clock.now();
  const hour = israelHour(now);
  const profile = profileOf(data);
  const out = { reminders: 0, digests: 0, payDateEmails: 0 };
  if (hour >= REMINDER_HOURS.from && hour < REMINDER_HOURS.until && profile.reminderDays.length) out.reminders = await supplierReminders(s, businessId, profile.reminderDays);
  if (hour >= DIGEST_HOUR && profile.notifyDueEmail) {
    out.digests = await dueDigest(s, businessId);
    out.payDateEmails = await payDateNotices(s, businessId);
  }
  return out;
}

/** The hourly job: every business, a page at a time (as the monthly statements schedule finds them). */
export async function runReminders(s: Services): Promise<RemindersOutcome> {
  const total: RemindersOutcome = { businesses: 0, reminders: 0, digests: 0, payDateEmails: 0 };
  if (israelHour(s.clock.now()) < DIGEST_HOUR) return total;
  for await (const page of pages(s.store, { collection: 'businesses', orderBy: [['id', 'asc']] }, 'id')) {
    // A few businesses at a time: each is independent, and one slow business does not hold the rest of the hour.
    let next = 0;
    const worker = async () => {
      while (next < page.length) {
        const b = page[next++]!;
        total.businesses++;
        try {
          const r = await remindBusiness(s, b.id, b.data);
          total.reminders += r.reminders;
          total.digests += r.digests;
          total.payDateEmails += r.payDateEmails;
        } catch (e) {
          s.logger.error('reminders failed for a business; the next hourly run tries again', { businessId: b.id, error: String(e) });
        }
      }
    };
    await Promise.all(Array.from({ length: BUSINESSES_AT_ONCE }, worker));
  }
  return total;
}
