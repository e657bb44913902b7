import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillDescription, nextOccurrence, occurrencePaymentId, periodLabel, periodOf, type ScheduleRule } from '../../../functions/src/domain/recurring/schedule.ts';

const monthly = (dayOfMonth: number, over: Partial<ScheduleRule> = {}): ScheduleRule => ({ cadence: 'monthly', dayOfMonth, weekday: null, month: null, startDate: '2026-01-01', endDate: null, ...over });

/** Every occurrence from `from`, as the job walks them: the next after each one made. */
function walk(rule: ScheduleRule, from: string, n: number): string[] {
  const out: string[] = [];
  let last: string | null = null;
  let at = from;
  for (let i = 0; i < n; i++) {
    const d = nextOccurrence(rule, last, at);
    if (!d) break;
    out.push(d);
    last = periodOf(rule.cadence, d);
    at = d;
  }
  return out;
}

test('the 28th falls in every month, February of a leap year and not, once a month', () => {
  assert.deepEqual(walk(monthly(28), '2026-01-01', 14), [
    '2026-01-28', '2026-02-28', '2026-03-28', '2026-04-28', '2026-05-28', '2026-06-28', '2026-07-28',
    '2026-08-28', '2026-09-28', '2026-10-28', '2026-11-28', '2026-12-28', '2027-01-28', '2027-02-28',
  ]);
  assert.deepEqual(walk(monthly(28, { startDate: '2028-02-01' }), '2028-02-01', 2), ['2028-02-28', '2028-03-28']);
  // Starting after this month's day: next month's.
  assert.equal(nextOccurrence(monthly(5), null, '2026-11-06'), '2026-12-05');
  assert.equal(nextOccurrence(monthly(5), null, '2026-12-06'), '2027-01-05');
  // Not before the start date, and nothing after the end date.
  assert.equal(nextOccurrence(monthly(5, { startDate: '2027-03-01' }), null, '2026-11-01'), '2027-03-05');
  assert.equal(nextOccurrence(monthly(5, { endDate: '2026-12-04' }), '2026-11', '2026-11-06'), null);
});

test('a period is made once: moving the day within a month made already waits for the next month', () => {
  // November's request was made on the 5th; the day moves to the 20th: the next is December 20th, not November 20th.
  assert.equal(nextOccurrence(monthly(20), '2026-11', '2026-11-10'), '2026-12-20');
  // Weekly: the period is the week from Sunday; a new weekday later in a week made already waits a week.
  const weekly: ScheduleRule = { cadence: 'weekly', dayOfMonth: null, weekday: 2, month: null, startDate: '2026-01-01', endDate: null };
  assert.equal(periodOf('weekly', '2026-11-24'), '2026-11-22', 'Tuesday 24 Nov 2026 is in the week of Sunday the 22nd');
  assert.equal(nextOccurrence(weekly, '2026-11-22', '2026-11-23'), '2026-12-01');
  assert.deepEqual(walk(weekly, '2026-11-28', 3), ['2026-12-01', '2026-12-08', '2026-12-15']);
  const yearly: ScheduleRule = { cadence: 'yearly', dayOfMonth: 15, weekday: null, month: 3, startDate: '2026-01-01', endDate: null };
  assert.deepEqual(walk(yearly, '2026-11-28', 2), ['2027-03-15', '2028-03-15']);
  assert.equal(periodOf('yearly', '2027-03-15'), '2027');
});

test('occurrence ids are fixed by business, schedule and period, and differ between them', () => {
  const a = occurrencePaymentId('b1', 's1', '2026-11');
  assert.match(a, /^[A-Za-z0-9]{20}$/);
  assert.equal(occurrencePaymentId('b1', 's1', '2026-11'), a);
  assert.notEqual(occurrencePaymentId('b1', 's1', '2026-12'), a);
  assert.notEqual(occurrencePaymentId('b1', 's2', '2026-11'), a);
  assert.notEqual(occurrencePaymentId('b2', 's1', '2026-11'), a);
});

test('{month} and {period} in Hebrew and English', () => {
  assert.equal(fillDescription('ריטיינר {month}', 'monthly', '2026-11-05', 'he'), 'ריטיינר נובמבר 2026');
  assert.equal(fillDescription('Retainer {month} ({period})', 'monthly', '2026-11-05', 'en'), 'Retainer November 2026 (November 2026)');
  assert.equal(fillDescription('{period}', 'yearly', '2027-03-15', 'he'), '2027');
  assert.equal(periodLabel('weekly', '2026-11-24', 'en').replace(/\s/g, ' '), '22 – 28 November 2026');
  assert.match(periodLabel('weekly', '2026-12-01', 'he'), /^29 .*נובמבר.*5 .*דצמבר 2026$/);
});
