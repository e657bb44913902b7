import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reminderPlan, remindable } from '../../../functions/src/domain/reminders/reminderPlan.ts';
import { israelHour } from '../../../functions/src/domain/reminders/reminders.ts';
import type { PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';

/** The pure rules of supplier reminders (issue 39 §2): which payments, which step on which Israeli day. */
const payment = (over: Partial<PaymentRecord> & { reminders?: { step: number; at: string }[] } = {}) =>
  ({ id: 'p1', status: 'sent', channel: 'wa', supplierPhone: '+972521234567', supplierEmail: null, sentAt: '2026-11-05T08:00:00.000Z', supplierSubmittedAt: null, viaPublicLink: false, ...over }) as PaymentRecord;

test('days count in Israel: a link sent at 00:30 Israel time (22:30 UTC the day before) counts from the Israeli day', () => {
  const late = payment({ sentAt: '2026-11-05T22:30:00.000Z' });
  assert.deepEqual(reminderPlan(late, [3, 7], '2026-11-06'), { sent: [], due: null, next: '2026-11-09' });
  assert.equal(reminderPlan(late, [3, 7], '2026-11-09').due, 3);
  assert.equal(israelHour(Date.parse('2026-11-05T22:30:00Z')), 0);
  assert.equal(israelHour(Date.parse('2026-07-05T05:00:00Z')), 8, 'summer time, UTC+3');
});

test('the step due is the latest whose day came; a step sent moves next to the one after; a step older than 7 days is skipped', () => {
  const p = payment();
  assert.deepEqual(reminderPlan(p, [3, 7], '2026-11-08'), { sent: [], due: 3, next: '2026-11-08' });
  assert.equal(reminderPlan(p, [3, 7], '2026-11-12').due, 7, 'down past both: only the latest goes');
  const after3 = payment({ reminders: [{ step: 3, at: '2026-11-08T06:00:00.000Z' }] });
  assert.deepEqual(reminderPlan(after3, [3, 7], '2026-11-09'), { sent: [{ step: 3, at: '2026-11-08T06:00:00.000Z' }], due: null, next: '2026-11-12' });
  assert.equal(reminderPlan(after3, [3, 7], '2026-11-19').due, 7, 'seven days late still goes');
  assert.deepEqual(reminderPlan(after3, [3, 7], '2026-11-20'), { sent: (after3 as any).reminders, due: null, next: null }, 'eight days late: skipped');
  assert.deepEqual(reminderPlan(p, [], '2026-11-08'), { sent: [], due: null, next: null }, '[] is off');
});

test('only a sent link the supplier has not filled, on a channel it has a contact for', () => {
  assert.equal(remindable(payment()), true);
  assert.equal(remindable(payment({ channel: 'em', supplierEmail: 'a@example.com' })), true);
  for (const [why, over] of [
    ['filled', { status: 'ready' }],
    ['awaiting an invoice', { status: 'awaiting_invoice' }],
    ['paid', { status: 'paid' }],
    ['canceled', { status: 'canceled' }],
    ['shared as a link', { channel: 'link', sentAt: null }],
    ['a public filing', { viaPublicLink: true, filedBy: 'public', needsReview: true }],
    ['email without an address', { channel: 'em', supplierEmail: null }],
    ['submitted', { supplierSubmittedAt: '2026-11-06T08:00:00.000Z' }],
  ] as const) {
    assert.equal(remindable(payment(over as Partial<PaymentRecord>)), false, why);
    assert.equal(reminderPlan(payment(over as Partial<PaymentRecord>), [3, 7], '2026-11-08').next, null, why);
  }
});
