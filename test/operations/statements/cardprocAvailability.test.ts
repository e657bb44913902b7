import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeStripe, type FakeStripe } from '../../fakes/stripe.ts';
import { CARDPROC_WAIT_SEC } from '../../../functions/src/adapters/cardproc/cardproc.ts';

// Issue 18 A2: Stripe runs reports only within [data_available_start, data_available_end]. A new account's first month
// is clamped to where the data starts (and the statement says so); the last closed month waits, `pending` with the
// reason, until Stripe's data covers its end; a month before the data is refused. The clock is the test's.

let h: Harness;
let stripe: FakeStripe;
let now = Date.parse('2025-06-15T09:00:00Z');
const KEY = 'rk_test_51FakeAvailability';
const s = (iso: string) => Date.parse(iso) / 1000;
const DATA_START = s('2025-03-14T00:00:00Z');

before(async () => {
  stripe = await startFakeStripe();
  stripe.keys.set(KEY, new Set(['reporting', 'account']));
  // Stripe's data reaches into May 31 (UTC) but not the end of May in Israel (22:00 UTC).
  stripe.dataAvailable = { start: DATA_START, end: s('2025-05-31T12:00:00Z') };
  h = await createHarness({ env: { CARDPROC_BASE_URL: stripe.baseUrl }, overrides: { clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await stripe.close();
});

const statement = async (month: string) => (await h.call('statementsList')).statements.find((x: any) => x.month === month);

test('connect offers the months a run can cover: the partial first month, not the month before the data', async () => {
  const c = await h.call('cardprocConnect', { apiKey: KEY });
  assert.deepEqual(c.months, ['2025-05', '2025-04', '2025-03']);
});

test('the first month is clamped to data_available_start, and the statement says what it covers', async () => {
  const acc = (await h.call('cardprocListAccounts')).accounts[0];
  await h.call('cardprocSync', { accountId: acc.id, month: '2025-03' });
  await h.app.queue!.drain();
  const st = await statement('2025-03');
  assert.equal(st.status, 'ready', st.reason);
  assert.equal(st.files.length, 3);
  assert.match(st.reason, /Stripe's report data starts 2025-03-14 00:00 UTC/);
  const runs = [...stripe.runs.values()];
  assert.equal(runs.length, 3);
  // 1 second after data_available_start (Stripe's run parameters), to the end of March in Israel (21:00 UTC: summer time).
  assert.ok(runs.every((r) => r.interval_start === DATA_START + 1 && r.interval_end === s('2025-03-31T21:00:00Z') && r.timezone === 'Asia/Jerusalem'));
});

test('the last closed month waits pending with the reason until Stripe\'s data covers its end, then syncs', async () => {
  const acc = (await h.call('cardprocListAccounts')).accounts[0];
  const runsBefore = stripe.runs.size;
  await h.call('cardprocSync', { accountId: acc.id, month: '2025-05' });
  await h.app.queue!.drain();
  const waiting = await statement('2025-05');
  assert.equal(waiting.status, 'pending');
  assert.match(waiting.reason, /waiting for Stripe: its report data reaches 2025-05-31 12:00 UTC/);
  assert.equal(stripe.runs.size, runsBefore, 'no run is asked for a month Stripe cannot cover');

  // Before the wait is over nothing runs; after it, with the data moved on, the month is built.
  await h.app.queue!.drain();
  assert.equal((await statement('2025-05')).status, 'pending');
  stripe.dataAvailable = { start: DATA_START, end: s('2025-06-01T00:00:00Z') };
  now += (CARDPROC_WAIT_SEC + 1) * 1000;
  await h.app.queue!.drain();
  const ready = await statement('2025-05');
  assert.equal(ready.status, 'ready', ready.reason);
  assert.equal(ready.reason, null);
  assert.equal(ready.files.length, 3);
});

test('a closed month before Stripe\'s data fails with the reason, without asking for a run', async () => {
  const acc = (await h.call('cardprocListAccounts')).accounts[0];
  const runsBefore = stripe.runs.size;
  await h.call('cardprocSync', { accountId: acc.id, month: '2025-01' });
  await h.app.queue!.drain();
  const st = await statement('2025-01');
  assert.equal(st.status, 'failed');
  assert.match(st.reason, /Stripe has no report data for 2025-01: this account's data starts 2025-03-14/);
  assert.equal(stripe.runs.size, runsBefore);
});
