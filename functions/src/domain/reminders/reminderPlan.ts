/** What a payment's reminders are on a day (issue 39 §2): pure, so the payment view and the job share it (reminders.ts). */
import { jerusalemDay } from '../../core/clock.ts';
import { addDays } from '../payments/dueDates.ts';
import type { PaymentRecord } from '../payments/payments.ts';

/** A step whose day passed while the job did not run (a server down) still goes within this many days; older ones are skipped. */
export const REMINDER_GRACE_DAYS = 7;
/** A run whose pay date passed longer ago than this gets no pay-date email (an old run left open is not news). */
export const PAY_DATE_GRACE_DAYS = 7;
/** One reminder sent: its step (days after sending) and when. */
export interface ReminderMark {
  step: number;
  at: string;
}

/**
 * Whether the payment is one to remind: its link was sent (not `link`, which the business shares itself) on a channel it
 * has a contact for, and the supplier has not filled it (still `sent`). A public filing was filed by the supplier
 * (its review is the owner's, not the supplier's), so it gets none.
 */
export function remindable(p: PaymentRecord): boolean {
  if (p.status !== 'sent' || !p.sentAt || p.supplierSubmittedAt) return false;
  if (p.viaPublicLink || p.filedBy === 'public') return false;
  return (p.channel === 'wa' && Boolean(p.supplierPhone)) || (p.channel === 'em' && Boolean(p.supplierEmail));
}

/**
 * The reminders of a payment on `today` (Israel): those sent, the step due now (the latest step whose day has come and
 * is within the grace; earlier missed steps are skipped, so a late job sends one reminder, not several), and the day
 * of the next one to come (today when one is due; null when none is left, the payment is filled, or reminders are off).
 * Days count from the Israeli day the link was last sent (createPayment, resendPayment).
 */
export function reminderPlan(p: PaymentRecord, days: readonly number[], today: string): { sent: ReminderMark[]; due: number | null; next: string | null } {
  const sent = (p.reminders ?? []).map((r) => ({ step: r.step, at: r.at }));
  if (!remindable(p) || days.length === 0) return { sent, due: null, next: null };
  const sentDay = jerusalemDay(Date.parse(p.sentAt!));
  const last = Math.max(0, ...sent.map((r) => r.step));
  const oldest = addDays(today, -REMINDER_GRACE_DAYS);
  const upcoming = days.filter((d) => d > last).map((step) => ({ step, day: addDays(sentDay, step) })).filter((x) => x.day >= oldest);
  const due = upcoming.filter((x) => x.day <= today).at(-1) ?? null;
  if (due) return { sent, due: due.step, next: today };
  return { sent, due: null, next: upcoming.find((x) => x.day > today)?.day ?? null };
}
