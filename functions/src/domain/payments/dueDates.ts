import { invalid } from '../../core/errors.ts';
import { isRealDay } from '../months.ts';

/** Due dates (issue 36 §3): a calendar day in Israel, YYYY-MM-DD, when the business means to pay. */

/** The day `n` days after `day` (both YYYY-MM-DD; calendar arithmetic, no time zone involved). */
export function addDays(day: string, n: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** A sent due date: a real calendar day, or invalid-argument naming `dueDate`. null clears it where allowed. */
export function checkDueDate<T extends string | null | undefined>(value: T): T {
  if (value === undefined || value === null) return value;
  if (!isRealDay(value) || value < '2000-01-01' || value > '2100-12-31') throw invalid('dueDate', `"${value}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value } });
  return value;
}
