import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeWise, type FakeWise } from '../../fakes/wise.ts';
import { startFakeStripe, type FakeStripe } from '../../fakes/stripe.ts';
import { startFakeUpwork, upworkEnv, approveMarketConsent, type FakeUpwork } from '../../fakes/upwork.ts';

// Issue 34 B5: a month is Israel's calendar month, from the zone's data (+2 h in winter, +3 h in summer), never a fixed
// offset. Israel's clocks move forward on the Friday before the last Sunday of March at 02:00 (2025-03-28) and back on
// the last Sunday of October at 02:00 (2025-10-26). The clock is the test's: 2025-12-15 in Israel.

let h: Harness;
let wise: FakeWise;
let stripe: FakeStripe;
let upwork: FakeUpwork;
const TOKEN = 'wise-token-israel-months';
const KEY = 'rk_test_51IsraelMonths';
const unix = (iso: string) => Date.parse(iso) / 1000;
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;
const open = async (url: string) => (await h.app.services.files.open(tokenOf(url)))!.bytes.toString();

/** Wise transfers (created, UTC) and the Israeli month each belongs to. */
const TRANSFERS: [id: number, created: string, month: string][] = [
  [1, '2025-02-28T21:30:00Z', '2025-02'], // 23:30 on Feb 28 in Israel: the last hour of a winter month
  [2, '2025-02-28T22:00:00Z', '2025-03'], // midnight, March 1
  [3, '2025-03-27T23:30:00Z', '2025-03'], // 01:30 on Mar 28, before the clocks move forward at 02:00
  [4, '2025-03-28T00:30:00Z', '2025-03'], // 03:30 the same night, summer time
  [5, '2025-03-31T20:59:59Z', '2025-03'], // 23:59:59 on Mar 31 (summer time)
  [6, '2025-03-31T21:30:00Z', '2025-04'], // 00:30 on April 1: the first hour of a summer month
  [7, '2025-09-30T21:00:00Z', '2025-10'], // midnight, October 1 (summer time)
  [8, '2025-10-25T22:30:00Z', '2025-10'], // 01:30 on Oct 26, summer time, before the clocks move back at 02:00
  [9, '2025-10-25T23:30:00Z', '2025-10'], // 01:30 again, winter time
  [10, '2025-10-31T21:59:59Z', '2025-10'], // 23:59:59 on Oct 31 (winter time)
  [11, '2025-10-31T22:00:00Z', '2025-11'], // midnight, November 1
];

before(async () => {
  wise = await startFakeWise();
  wise.tokens.add(TOKEN);
  wise.profiles.push({ id: 301, type: 'BUSINESS', fullName: 'Israel Months Ltd' });
  wise.balances.set(301, [{ id: 401, currency: 'EUR' }]);
  for (const [id, created] of TRANSFERS) wise.transfers.push({ id, sourceCurrency: 'EUR', status: 'outgoing_payment_sent', created });
  stripe = await startFakeStripe();
  stripe.keys.set(KEY, new Set(['reporting', 'account']));
  stripe.dataAvailable = { start: unix('2024-01-01T00:00:00Z'), end: unix('2025-12-10T00:00:00Z') };
  upwork = await startFakeUpwork();
  upwork.organizations.push({ id: 'org-il', title: 'Israel Months Ltd', aceId: 'ace-il' });
  upwork.transactions.set('org-il', [
    { recordId: 'u1', date: '2025-04-01', type: 'Payment', description: 'first day', amount: '-10.00' },
    { recordId: 'u2', date: '2025-04-30', type: 'Payment', description: 'last day', amount: '-20.00' },
    { recordId: 'u3', date: '2025-05-01', type: 'Payment', description: 'next month', amount: '-30.00' },
    { recordId: 'u4', date: '2024-02-29', type: 'Payment', description: 'leap day', amount: '-40.00' },
  ]);
  const now = Date.parse('2025-12-15T10:00:00Z');
  h = await createHarness({
    env: { FXWALLET_BASE_URL: wise.baseUrl, CARDPROC_BASE_URL: stripe.baseUrl, ...upworkEnv(upwork) },
    overrides: { clock: { now: () => now } },
  });
});
after(async () => {
  await h.close();
  await wise.close();
  await stripe.close();
  await upwork.close();
});

test('Wise: each transfer lands in its Israeli month, across the last hour of a winter month, the first hour of a summer month and both clock-change nights', async () => {
  const c = await h.call('fxwalletConnect', { token: TOKEN });
  assert.deepEqual(c.months, ['2025-11', '2025-10', '2025-04', '2025-03', '2025-02']);
  const acc = c.accounts[0];
  for (const month of ['2025-02', '2025-03', '2025-04', '2025-09', '2025-10', '2025-11']) {
    await h.call('fxwalletSync', { accountId: acc.id, month });
    await h.app.queue!.drain();
    const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acc.id && s.month === month);
    assert.equal(st.status, 'ready', st.reason);
    const receipts = st.files.map((f: any) => /transfer-(\d+)\.pdf$/.exec(f.fileName)?.[1]).filter(Boolean).map(Number).sort((a: number, b: number) => a - b);
    assert.deepEqual(receipts, TRANSFERS.filter((t) => t[2] === month).map((t) => t[0]), month);
  }
  // The statement asked of Wise covers the Israeli month: April from 00:00 summer time (21:00 UTC the day before).
  const april = wise.requests.map((r) => new URL(r.path, 'http://x')).find((u) => u.pathname.endsWith('/statement.csv') && u.searchParams.get('intervalEnd')?.startsWith('2025-04-30'))!;
  assert.deepEqual([april.searchParams.get('intervalStart'), april.searchParams.get('intervalEnd')], ['2025-03-31T21:00:00.000Z', '2025-04-30T21:00:00.000Z']);
});

test('Stripe: report runs cover the Israeli month (start inclusive, end exclusive) and write Israel\'s time', async () => {
  const acc = (await h.call('cardprocConnect', { apiKey: KEY })).accounts[0];
  const intervals: Record<string, [string, string]> = {
    '2025-03': ['2025-02-28T22:00:00Z', '2025-03-31T21:00:00Z'], // starts in winter, ends in summer
    '2025-04': ['2025-03-31T21:00:00Z', '2025-04-30T21:00:00Z'], // a summer month: its first hour is 21:00 UTC
    '2025-10': ['2025-09-30T21:00:00Z', '2025-10-31T22:00:00Z'], // starts in summer, ends in winter
    '2025-11': ['2025-10-31T22:00:00Z', '2025-11-30T22:00:00Z'],
  };
  for (const [month, [start, end]] of Object.entries(intervals)) {
    const before = stripe.runs.size;
    await h.call('cardprocSync', { accountId: acc.id, month });
    await h.app.queue!.drain();
    const runs = [...stripe.runs.values()].slice(before);
    assert.equal(runs.length, 3, month);
    for (const r of runs) assert.deepEqual([r.interval_start, r.interval_end, r.timezone], [unix(start), unix(end), 'Asia/Jerusalem'], month);
    const st = (await h.call('statementsList')).statements.find((s: any) => s.source === 'cardproc' && s.month === month);
    assert.equal(st.status, 'ready', st.reason);
    // The report's own timestamps are Israel's: the month runs from midnight to midnight.
    const next = month === '2025-11' ? '2025-12' : `${month.slice(0, 5)}${String(Number(month.slice(5)) + 1).padStart(2, '0')}`;
    assert.match(await open(st.files[0].url), new RegExp(`,${month}-01 00:00:00,${next}-01 00:00:00,Asia/Jerusalem,`));
  }
});

test('Upwork: the month\'s range takes its first and last day (Upwork\'s dates, both inclusive), leap day included', async () => {
  const { url } = await h.call('marketConnectStart', { origin: 'https://app.example.com' });
  assert.equal((await approveMarketConsent(h.http, url)).res.status, 200);
  const acc = (await h.call('marketListAccounts')).accounts[0];
  for (const [month, ids, end] of [
    ['2025-04', ['u1', 'u2'], '2025-04-30'],
    ['2024-02', ['u4'], '2024-02-29'],
  ] as const) {
    await h.call('marketSync', { accountId: acc.id, month });
    await h.app.queue!.drain();
    const tx = await h.call('marketTransactions', { accountId: acc.id, month });
    assert.equal(tx.status, 'ready');
    assert.deepEqual(tx.transactions.map((t: any) => t.id), ids, month);
    const range = upwork.requests.findLast((r) => r.query?.includes('transactionHistory'))!.variables!.transactionHistoryFilter.transactionDateTime_bt;
    assert.deepEqual(range, { rangeStart: `${month}-01`, rangeEnd: end });
  }
});
