import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { jerusalemDay } from '../../../functions/src/core/clock.ts';
import { addDays } from '../../../functions/src/domain/payments/dueDates.ts';
import { post } from '../../http.ts';
import { createPayment, paymentsEnv, simulateSubmission, stored, type PaymentsEnv } from './helpers.ts';

/** Due dates (issue 36 §3): createPayment and updatePaymentSettings take them, paymentsList filters overdue and this week. */
let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

const today = () => jerusalemDay(env.h.app.services.clock.now());
const update = (input: Record<string, unknown>) => env.h.call('updatePaymentSettings', input);

test('addDays is calendar arithmetic across months, years and leap days', () => {
  assert.equal(addDays('2026-11-28', 6), '2026-12-04');
  assert.equal(addDays('2026-12-30', 3), '2027-01-02');
  assert.equal(addDays('2028-02-28', 1), '2028-02-29');
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
});

test('createPayment stores a due date; a date that does not exist is invalid-argument naming dueDate, and nothing is created', async () => {
  const p = await createPayment(env.h, { channel: 'link', dueDate: '2027-01-15' });
  assert.equal(p.dueDate, '2027-01-15');
  assert.equal((await stored(env.h, p.id)).dueDate, '2027-01-15');
  assert.equal((await env.h.call('paymentGet', { paymentId: p.id })).dueDate, '2027-01-15');
  assert.equal((await createPayment(env.h, { channel: 'link' })).dueDate, null, 'optional');
  const count = (await env.h.call('paymentsList', {})).total;
  for (const bad of ['2026-02-30', '2026-13-01', '15/01/2027', '2027-1-5', '1999-12-31', '']) {
    await assert.rejects(createPayment(env.h, { channel: 'link', dueDate: bad }), (e: any) => e.code === 'invalid-argument' && e.details.field === 'dueDate', bad);
  }
  assert.equal((await env.h.call('paymentsList', {})).total, count);
  // Over HTTP, a 400 with the field, never a 5xx.
  const origin = await env.h.listen();
  const res = await post(origin, '/v1/createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'Y', supplierPhone: '0501234567', channel: 'link', dueDate: '2026-02-29' }, env.h.owner.apiKey);
  assert.equal(res.status, 400);
  assert.deepEqual([res.body.error.code, res.body.error.details.field, res.body.error.details.reason], ['invalid-argument', 'dueDate', 'notARealDate']);
});

test('updatePaymentSettings changes and clears the due date while unpaid, and refuses it once paid (rule 2)', async () => {
  const p = await createPayment(env.h, { channel: 'link', dueDate: '2027-01-15' });
  assert.equal((await update({ paymentId: p.id, dueDate: '2027-02-01' })).dueDate, '2027-02-01');
  await assert.rejects(update({ paymentId: p.id, dueDate: '2027-02-30' }), (e: any) => e.code === 'invalid-argument' && e.details.field === 'dueDate');
  assert.equal((await update({ paymentId: p.id, dueDate: null })).dueDate, null);
  assert.equal((await stored(env.h, p.id)).dueDate, null);
  await update({ paymentId: p.id, dueDate: '2027-03-01' });
  await env.h.call('markPaid', { paymentId: p.id });
  await assert.rejects(update({ paymentId: p.id, dueDate: '2027-04-01' }), { code: 'failed-precondition', message: /^rule 2 \(while unpaid\): dueDate/ });
  assert.equal((await update({ paymentId: p.id, dueDate: '2027-03-01' })).dueDate, '2027-03-01', 'the same date is no change');
});

test('paymentsList due: overdue (before today in Israel) and week (today through 6 days on), unpaid only, with paging', async () => {
  const t = today();
  const tag = `duetag${Date.now()}`;
  const mk = async (dueDate: string | undefined, name: string) => (await createPayment(env.h, { channel: 'link', description: `${tag} ${name}`, ...(dueDate ? { dueDate } : {}) })).id;
  const yesterday = await mk(addDays(t, -1), 'yesterday');
  const longAgo = await mk(addDays(t, -40), 'longago');
  const todayId = await mk(t, 'today');
  const sixth = await mk(addDays(t, 6), 'sixth');
  const seventh = await mk(addDays(t, 7), 'seventh');
  await mk(undefined, 'none');
  const paidOverdue = await mk(addDays(t, -2), 'paid');
  await env.h.call('markPaid', { paymentId: paidOverdue });
  const readyThisWeek = await mk(addDays(t, 3), 'ready');
  await simulateSubmission(env.h, readyThisWeek);

  const ids = async (input: Record<string, unknown>) => (await env.h.call('paymentsList', { q: tag, ...input })).items.map((i: any) => i.id).sort();
  assert.deepEqual(await ids({ due: 'overdue' }), [yesterday, longAgo].sort());
  assert.deepEqual(await ids({ due: 'week' }), [todayId, sixth, readyThisWeek].sort());
  assert.ok(!(await ids({ due: 'week' })).includes(seventh));
  assert.deepEqual(await ids({ due: 'week', status: 'ready' }), [readyThisWeek]);

  // Paged one at a time, the pages hold each overdue payment once; a token of another filter is refused.
  const first = await env.h.call('paymentsList', { q: tag, due: 'overdue', limit: 1 });
  assert.equal(first.items.length, 1);
  assert.ok(first.nextPageToken);
  const second = await env.h.call('paymentsList', { q: tag, due: 'overdue', limit: 1, pageToken: first.nextPageToken });
  assert.deepEqual([first.items[0].id, second.items[0].id].sort(), [yesterday, longAgo].sort());
  await assert.rejects(env.h.call('paymentsList', { q: tag, due: 'week', limit: 1, pageToken: first.nextPageToken }), { code: 'invalid-argument' });
  await assert.rejects(env.h.call('paymentsList', { due: 'later' }), { code: 'invalid-argument' });
});
