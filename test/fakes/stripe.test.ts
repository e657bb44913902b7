import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { startFakeStripe, type FakeStripe } from './stripe.ts';

// The fake refuses what Stripe documents it refuses (docs.stripe.com/reports/report-types, "About run parameters";
// github.com/stripe/openapi spec3.json), called through the official `stripe` SDK as the adapter calls it.
// The first test is the run the old adapter asked for a new account's first month (A2 of issue 18).

let fake: FakeStripe;
let stripe: Stripe;
const KEY = 'rk_test_51FakeStrictKey';
const START = Date.parse('2025-03-14T00:00:00Z') / 1000;
const END = Date.parse('2025-05-31T00:00:00Z') / 1000;
const t = (iso: string) => Date.parse(iso) / 1000;

before(async () => {
  fake = await startFakeStripe();
  fake.keys.set(KEY, new Set(['reporting', 'account']));
  fake.dataAvailable = { start: START, end: END };
  const u = new URL(fake.baseUrl);
  stripe = new Stripe(KEY, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });
});
after(() => fake.close());

const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as { type: string; statusCode: number; message: string; param?: string };
  }
  assert.fail('Stripe accepted it');
};

test('a run starting before data_available_start is refused with 400 (Israel month bounds of the first month)', async () => {
  const e = await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: t('2025-02-28T22:00:00Z'), interval_end: t('2025-03-31T21:00:00Z') } }));
  assert.equal(e.statusCode, 400);
  assert.equal(e.type, 'StripeInvalidRequestError');
  assert.match(e.message, /data_available_start/);
  // Stripe's parameter text: interval_start from 1 second after data_available_start; the start itself is refused.
  const atStart = await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: START, interval_end: t('2025-03-31T21:00:00Z') } }));
  assert.equal(atStart.statusCode, 400);
  assert.match(atStart.message, /1 second after the report type's data_available_start/);
  const ok = await stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: START + 1, interval_end: t('2025-03-31T21:00:00Z') } });
  assert.equal(ok.status, 'pending');
});

test('a run ending at or after data_available_end is refused; 1 second before it is allowed', async () => {
  for (const end of [END + 1, END]) {
    const e = await refusal(stripe.reporting.reportRuns.create({ report_type: 'payouts.itemized.3', parameters: { interval_start: t('2025-05-01T00:00:00Z'), interval_end: end } }));
    assert.equal(e.statusCode, 400);
    assert.match(e.message, /data_available_end/);
  }
  const ok = await stripe.reporting.reportRuns.create({ report_type: 'payouts.itemized.3', parameters: { interval_start: t('2025-05-01T00:00:00Z'), interval_end: END - 1 } });
  assert.equal(ok.report_type, 'payouts.itemized.3');
});

test('timezone must be an IANA zone; it changes the report\'s timestamps, not the interval', async () => {
  for (const timezone of ['Israel Standard Time', '+02:00', 'Mars/Olympus']) {
    const e = await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: t('2025-04-01T00:00:00Z'), interval_end: t('2025-05-01T00:00:00Z'), timezone } }));
    assert.equal(e.statusCode, 400);
    assert.equal(e.param, 'parameters[timezone]');
  }
  const csvOf = async (timezone?: string) => {
    const run = await stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: t('2025-03-31T21:00:00Z'), interval_end: t('2025-04-30T21:00:00Z'), ...(timezone && { timezone }) } });
    const done = await stripe.reporting.reportRuns.retrieve(run.id);
    assert.deepEqual([done.parameters.interval_start, done.parameters.timezone], [t('2025-03-31T21:00:00Z'), timezone ?? 'Etc/UTC']);
    return (await fetch(`${fake.baseUrl}${new URL(done.result!.url!).pathname}`, { headers: { authorization: `Bearer ${KEY}` } })).text();
  };
  assert.match(await csvOf(), /,2025-03-31 21:00:00,2025-04-30 21:00:00,Etc\/UTC,/);
  assert.match(await csvOf('Asia/Jerusalem'), /,2025-04-01 00:00:00,2025-05-01 00:00:00,Asia\/Jerusalem,/);
});

test('start not before end, missing interval, unknown parameters and unknown report types are refused', async () => {
  assert.equal((await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: END, interval_end: END } }))).statusCode, 400);
  const missing = await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: START } }));
  assert.equal(missing.statusCode, 400);
  assert.match(missing.message, /Missing required param: parameters\[interval_end\]/);
  const unknown = await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: START, interval_end: END, month: '2025-04' } as any }));
  assert.match(unknown.message, /Received unknown parameter: parameters\[month\]/);
  assert.equal((await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance.summary.9', parameters: { interval_start: START, interval_end: END } }))).statusCode, 400);
});

test('a live-only report type refuses a test key; an unknown key is 401 with the key masked', async () => {
  fake.liveOnly.add('balance_change_from_activity.itemized.3');
  try {
    const e = await refusal(stripe.reporting.reportRuns.create({ report_type: 'balance_change_from_activity.itemized.3', parameters: { interval_start: START, interval_end: END } }));
    assert.equal(e.statusCode, 400);
    assert.match(e.message, /live mode/);
  } finally {
    fake.liveOnly.clear();
  }
  const u = new URL(fake.baseUrl);
  const other = new Stripe('rk_test_51UnknownKey0000', { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });
  const e = await refusal(other.reporting.reportTypes.retrieve('balance.summary.1'));
  assert.equal(e.statusCode, 401);
  assert.doesNotMatch(e.message, /UnknownKey0000/);
});

test('report types answer their availability window; a run succeeds after a poll and its file needs the key', async () => {
  const type = await stripe.reporting.reportTypes.retrieve('balance.summary.1');
  assert.deepEqual([type.data_available_start, type.data_available_end], [START, END]);
  const run = await stripe.reporting.reportRuns.create({ report_type: 'balance.summary.1', parameters: { interval_start: START + 1, interval_end: END - 1 } });
  const done = await stripe.reporting.reportRuns.retrieve(run.id);
  assert.equal(done.status, 'succeeded');
  const path = new URL(done.result!.url!).pathname;
  assert.equal((await fetch(`${fake.baseUrl}${path}`)).status, 401);
  assert.equal((await fetch(`${fake.baseUrl}${path}`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
});
