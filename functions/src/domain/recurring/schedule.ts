import { createHash } from 'node:crypto';
import { addDays } from '../payments/dueDates.ts';

/**
 * Recurring payment requests (issue 39 §1): when a schedule's occurrences fall, which period each one is, and its
 * deterministic key. Calendar arithmetic on YYYY-MM-DD days (Israel's calendar day); no instants, no zones.
 */
export const CADENCES = ['monthly', 'weekly', 'yearly'] as const;
export type Cadence = (typeof CADENCES)[number];

/** Every month has a 28th: a later day would skip February (and the 29th-31st of short months). */
export const MAX_DAY_OF_MONTH = 28;
/** At most this many missed occurrences of one schedule are made per job run (the next run goes on). */
export const MAX_CATCH_UP = 24;
/** The payments a schedule's view lists, most recent first. */
export const PAYMENTS_KEPT = 24;

export interface ScheduleRule {
  cadence: Cadence;
  /** 1..28: monthly and yearly. */
  dayOfMonth: number | null;
  /** 0..6, 0 = Sunday: weekly. */
  weekday: number | null;
  /** 1..12: yearly. */
  month: number | null;
  startDate: string;
  endDate: string | null;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** Day of the week of a calendar day, 0 = Sunday. */
export const weekdayOf = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();

/**
 * The period an occurrence on `day` belongs to: `YYYY-MM` (monthly), `YYYY` (yearly), or for weekly the Sunday that
 * starts its week (Israel's week), `YYYY-MM-DD`. One occurrence per period at most, so a schedule moved within a
 * period (a new day or weekday) never makes a second request for it.
 */
export function periodOf(cadence: Cadence, day: string): string {
  if (cadence === 'monthly') return day.slice(0, 7);
  if (cadence === 'yearly') return day.slice(0, 4);
  return addDays(day, -weekdayOf(day));
}

/** The first day on or after `from` the rule falls on, ignoring start and end. */
function fallsOnOrAfter(rule: ScheduleRule, from: string): string {
  const [y, m] = from.split('-').map(Number);
  if (rule.cadence === 'weekly') return addDays(from, ((rule.weekday ?? 0) - weekdayOf(from) + 7) % 7);
  const d = pad(rule.dayOfMonth ?? 1);
  if (rule.cadence === 'monthly') {
    const here = `${y}-${pad(m)}-${d}`;
    return here >= from ? here : m === 12 ? `${y + 1}-01-${d}` : `${y}-${pad(m + 1)}-${d}`;
  }
  const here = `${y}-${pad(rule.month ?? 1)}-${d}`;
  return here >= from ? here : `${y + 1}-${pad(rule.month ?? 1)}-${d}`;
}

/**
 * The next occurrence on or after `from` (and on or after the start) whose period comes after `lastPeriod` (the last
 * one made), or null when it would fall after the end date.
 */
export function nextOccurrence(rule: ScheduleRule, lastPeriod: string | null, from: string): string | null {
  let at = from < rule.startDate ? rule.startDate : from;
  for (let i = 0; i < 8; i++) {
    const day = fallsOnOrAfter(rule, at);
    if (rule.endDate && day > rule.endDate) return null;
    if (!lastPeriod || periodOf(rule.cadence, day) > lastPeriod) return day;
    at = addDays(day, 1);
  }
  return null;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * The payment id of one occurrence: derived from the business, the schedule and the period, so a second job run, a
 * retried transaction or a run after a crash finds the payment there and makes no other.
 */
export function occurrencePaymentId(businessId: string, scheduleId: string, period: string): string {
  const digest = createHash('sha256').update(`recurring/${businessId}/${scheduleId}/${period}`).digest();
  let out = '';
  for (let i = 0; i < 20; i++) out += ALPHABET[digest[i] % ALPHABET.length];
  return out;
}

/** The message ids of an occurrence's request: fixed, so a retried transaction stages the same records. */
export const occurrenceMessageId = (paymentId: string, i: number) => `${paymentId}m${i}`;

const LOCALE = { he: 'he-IL', en: 'en-GB' } as const;
const noon = (day: string) => Date.parse(`${day}T12:00:00Z`);

/** The month of `day` in words: "נובמבר 2026", "November 2026". */
export const monthLabel = (day: string, lang: 'he' | 'en') => new Intl.DateTimeFormat(LOCALE[lang], { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(noon(day));

/** The period in words: the month (monthly), the week's Sunday to Saturday (weekly), the year (yearly). */
export function periodLabel(cadence: Cadence, day: string, lang: 'he' | 'en'): string {
  if (cadence === 'monthly') return monthLabel(day, lang);
  if (cadence === 'yearly') return day.slice(0, 4);
  const start = periodOf('weekly', day);
  return new Intl.DateTimeFormat(LOCALE[lang], { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).formatRange(noon(start), noon(addDays(start, 6)));
}

/** The description of one occurrence: `{month}` and `{period}` filled in the supplier's language. */
export const fillDescription = (text: string, cadence: Cadence, day: string, lang: 'he' | 'en') =>
  text.replace(/\{month\}/g, () => monthLabel(day, lang)).replace(/\{period\}/g, () => periodLabel(cadence, day, lang));
