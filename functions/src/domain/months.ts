import { invalid } from '../core/errors.ts';
import { iso, jerusalemDay, jerusalemMidnightMs } from '../core/clock.ts';

/** How far back connect offers months: the 24 closed months before the current one (docs/decisions.md). */
export const MONTHS_BACK = 24;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The earliest month any month input takes: nothing in this service predates it (docs/decisions.md). */
export const FIRST_MONTH = '2000-01';

/** The current month in Israel, `YYYY-MM`. */
export const currentMonth = (nowMs: number) => jerusalemDay(nowMs).slice(0, 7);

/** The month `delta` months from `month` (negative goes back). */
export function addMonths(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number);
  const n = y * 12 + (m - 1) + delta;
  return `${String(Math.floor(n / 12)).padStart(4, '0')}-${String((n % 12) + 1).padStart(2, '0')}`;
}

/** The last closed month in Israel: the one before the current month. */
export const lastClosedMonth = (nowMs: number) => addMonths(currentMonth(nowMs), -1);

/** A strict `YYYY-MM` that is closed in Israel (before the current month); else `invalid-argument` naming the field. */
export function closedMonth(value: string, nowMs: number, field = 'month'): string {
  if (!MONTH.test(value)) throw invalid(field, 'must be a month as YYYY-MM', { reason: 'badFormat', params: { format: 'YYYY-MM' } });
  if (value < FIRST_MONTH) throw invalid(field, `${value} is before ${FIRST_MONTH}; months from ${FIRST_MONTH} on are accepted`, { reason: 'monthTooEarly', params: { value, first: FIRST_MONTH } });
  if (value >= currentMonth(nowMs)) throw invalid(field, `${value} is not closed yet; only months before ${currentMonth(nowMs)} can be synced`, { reason: 'monthNotClosed', params: { value } });
  return value;
}

/** A strict `YYYY-MM` from FIRST_MONTH to the current month in Israel (a range bound: the current month may be asked for). */
export function pastMonth(value: string, nowMs: number, field: string): string {
  if (!MONTH.test(value)) throw invalid(field, 'must be a month as YYYY-MM', { reason: 'badFormat', params: { format: 'YYYY-MM' } });
  if (value < FIRST_MONTH) throw invalid(field, `${value} is before ${FIRST_MONTH}; months from ${FIRST_MONTH} on are accepted`, { reason: 'monthTooEarly', params: { value, first: FIRST_MONTH } });
  if (value > currentMonth(nowMs)) throw invalid(field, `${value} is in the future; the latest month is ${currentMonth(nowMs)}`, { reason: 'monthInFuture', params: { value } });
  return value;
}

/** The closed months a connect offers, newest first, back to MONTHS_BACK. */
export function closedMonths(nowMs: number, back = MONTHS_BACK): string[] {
  const cur = currentMonth(nowMs);
  return Array.from({ length: back }, (_, i) => addMonths(cur, -(i + 1)));
}

/** The month's bounds as UTC instants: [00:00 Israel time on its first day, 00:00 Israel time on the next month's first). */
export function monthBounds(month: string): { start: string; end: string } {
  // Providers filter by instant; Israel's offset (+2 h winter, +3 h summer) comes from the zone data, never a constant.
  return { start: iso(jerusalemMidnightMs(`${month}-01`)), end: iso(jerusalemMidnightMs(`${addMonths(month, 1)}-01`)) };
}

/** The month's last calendar day, `YYYY-MM-DD` (calendar arithmetic: no instant, no zone). */
export function lastDayOf(month: string): string {
  const [y, m] = month.split('-').map(Number);
  // Day 0 of the next month is this month's last day (leap years included).
  return `${month}-${new Date(Date.UTC(y, m, 0)).getUTCDate()}`;
}

/** YYYY-MM-DD naming a day that exists (no 2025-02-30). */
export function isRealDay(s: string | null | undefined): s is string {
  if (!s || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}
