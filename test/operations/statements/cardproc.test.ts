import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeStripe, type FakeStripe } from '../../fakes/stripe.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';

let h: Harness;
let stripe: FakeStripe;
const KEY = 'rk_test_51FakeRestricted';
const NO_REPORTS = 'rk_test_51FakeNoReports';
const last = addMonths(currentMonth(Date.now()), -1);
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;

before(async () => {
  stripe = await startFakeStripe();
  stripe.keys.set(KEY, new Set(['reporting', 'account']));
  stripe.keys.set(NO_REPORTS, new Set(['account']));
  // Data from the start of the month before last to the end of last month.
  stripe.dataAvailable = { start: Date.parse(`${addMonths(last, -1)}-01T00:00:00Z`) / 1000, end: Date.parse(`${addMonths(last, 1)}-01T00:00:00Z`) / 1000 };
  h = await createHarness({ env: { CARDPROC_BASE_URL: stripe.baseUrl } });
});
after(async () => {
  await h.close();
  await stripe.close();
});

test('a secret key is refused naming least privilege, before Stripe is called', async () => {
  const before = stripe.requests.length;
  await assert.rejects(h.call('cardprocConnect', { apiKey: 'sk_test_51Secret' }), (e: any) => e.code === 'invalid-argument' && /^apiKey:/.test(e.message) && /least privilege/.test(e.message) && !e.message.includes('51Secret'));
  assert.equal(stripe.requests.length, before);
});

test('an unknown key is refused and nothing is stored', async () => {
  await assert.rejects(h.call('cardprocConnect', { apiKey: 'rk_test_51Unknown' }), (e: any) => e.code === 'invalid-argument' && /^apiKey:/.test(e.message));
  assert.deepEqual((await h.call('cardprocListAccounts')).accounts, []);
});

test('a restricted key without Reporting access is refused with what to allow (the typical refusal)', async () => {
  await assert.rejects(h.call('cardprocConnect', { apiKey: NO_REPORTS }), (e: any) => e.code === 'failed-precondition' && /Report runs/.test(e.message));
  assert.deepEqual((await h.call('cardprocListAccounts')).accounts, []);
});

test('connect, sync three report CSVs through report runs, re-sync replaces, disconnect', async () => {
  const c = await h.call('cardprocConnect', { apiKey: KEY });
  assert.deepEqual(c.accounts.map((a: any) => [a.name, a.currency]), [['Fake Shop', 'ILS']]);
  assert.deepEqual(c.months, [last, addMonths(last, -1)]);
  assert.ok(!JSON.stringify(c).includes(KEY));
  const acc = (await h.call('cardprocListAccounts')).accounts[0];
  assert.equal(acc.status, 'connected');

  const s = await h.call('cardprocSync', { accountId: acc.id, month: last });
  assert.equal(s.status, 'pending');
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements[0];
  assert.equal(st.status, 'ready', st.reason);
  assert.equal(st.files.length, 3);
  const runs = [...stripe.runs.values()];
  assert.deepEqual(runs.map((r) => r.report_type), ['balance.summary.1', 'balance_change_from_activity.itemized.3', 'payouts.itemized.3']);
  assert.ok(runs.every((r) => r.interval_end - r.interval_start >= 28 * 86400 && new Date(r.interval_end * 1000).toISOString() <= `${addMonths(last, 1)}-01`));
  assert.ok(stripe.requests.filter((r) => r.path.startsWith('/v1/files/')).every((r) => r.authorization === `Bearer ${KEY}`));
  const csv = (await h.app.services.files.open(tokenOf(st.files.find((f: any) => f.fileName.includes('payouts')).url)))!.bytes.toString();
  assert.match(csv, /payouts\.itemized\.3/);

  stripe.edition = 2;
  await h.call('cardprocSync', { accountId: acc.id, month: last });
  await h.app.queue!.drain();
  const again = (await h.call('statementsList')).statements;
  assert.equal(again.length, 1);
  assert.equal(again[0].files.length, 3);
  for (const f of again[0].files) assert.match((await h.app.services.files.open(tokenOf(f.url)))!.bytes.toString(), /edition 2/);
  for (const f of st.files) assert.equal(await h.app.services.files.open(tokenOf(f.url)), null);

  await h.call('cardprocDisconnect', { accountId: acc.id });
  assert.deepEqual((await h.call('cardprocListAccounts')).accounts, []);
});
