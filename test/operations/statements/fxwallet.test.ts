import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeWise, type FakeWise } from '../../fakes/wise.ts';
import { addMonths, currentMonth, monthBounds } from '../../../functions/src/domain/months.ts';

let h: Harness;
let wise: FakeWise;
let sandbox: FakeWise;
const TOKEN = 'wise-personal-token-1';
const last = addMonths(currentMonth(Date.now()), -1);
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;
const open = async (url: string) => (await h.app.services.files.open(tokenOf(url)))?.bytes.toString();

before(async () => {
  wise = await startFakeWise();
  sandbox = await startFakeWise();
  for (const w of [wise, sandbox]) {
    w.tokens.add(TOKEN);
    w.profiles.push({ id: 101, type: 'PERSONAL', fullName: 'Dana Levi' });
    w.balances.set(101, [{ id: 201, currency: 'EUR' }, { id: 202, currency: 'USD' }]);
  }
  wise.transfers.push(
    { id: 9001, sourceCurrency: 'EUR', status: 'outgoing_payment_sent', created: `${last}-10T09:00:00.000Z` },
    { id: 9002, sourceCurrency: 'USD', status: 'outgoing_payment_sent', created: `${last}-11T09:00:00.000Z` },
    { id: 9003, sourceCurrency: 'EUR', status: 'cancelled', created: `${last}-12T09:00:00.000Z` },
    // At the very instant the month ends: Wise's createdDateEnd is inclusive, so the adapter must leave it to the next month.
    { id: 9004, sourceCurrency: 'EUR', status: 'outgoing_payment_sent', created: monthBounds(last).end },
  );
  h = await createHarness({ env: { FXWALLET_BASE_URL: wise.baseUrl, FXWALLET_SANDBOX_BASE_URL: sandbox.baseUrl } });
});
after(async () => {
  await h.close();
  await wise.close();
  await sandbox.close();
});

test('a wrong token is refused naming token and stores nothing', async () => {
  await assert.rejects(h.call('fxwalletConnect', { token: 'nope' }), (e: any) => e.code === 'invalid-argument' && /^token:/.test(e.message));
  assert.deepEqual((await h.call('fxwalletListAccounts')).accounts, []);
});

test('sandbox: true talks to the sandbox host only', async () => {
  const before = wise.requests.length;
  const other = await h.newBusiness('Sandboxed');
  const c = await h.call('fxwalletConnect', { token: TOKEN, sandbox: true }, other);
  assert.equal(c.accounts.length, 2);
  assert.equal(wise.requests.length, before);
  assert.ok(sandbox.requests.some((r) => r.path === '/v2/profiles' && r.authorization === `Bearer ${TOKEN}`));
});

test('each balance is an account; a month stores statement PDF + CSV and the sent transfers\' receipts; re-sync replaces', async () => {
  const c = await h.call('fxwalletConnect', { token: TOKEN });
  assert.deepEqual(c.accounts.map((a: any) => a.currency).sort(), ['EUR', 'USD']);
  assert.deepEqual(c.months, [last]);
  const eur = c.accounts.find((a: any) => a.currency === 'EUR');
  await h.call('fxwalletSync', { accountId: eur.id, month: last });
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === eur.id);
  assert.equal(st.status, 'ready');
  assert.deepEqual(st.files.map((f: any) => f.contentType).sort(), ['application/pdf', 'application/pdf', 'text/csv']);
  const receipt = st.files.find((f: any) => f.fileName.includes('9001'));
  assert.equal(await open(receipt.url), '%PDF-1.4 receipt 9001');
  assert.ok(!st.files.some((f: any) => /9002|9003/.test(f.fileName)), 'only EUR transfers that were sent');
  assert.ok(!st.files.some((f: any) => /9004/.test(f.fileName)), 'a transfer at the month\'s end belongs to the next month');
  const stmtReq = wise.requests.find((r) => r.path.startsWith('/v1/profiles/101/balance-statements/201/statement.pdf'))!;
  const q = new URL(stmtReq.path, 'http://x').searchParams;
  assert.equal(q.get('currency'), 'EUR');
  assert.equal(q.get('type'), 'COMPACT');
  assert.ok(q.get('intervalStart')! < `${last}-01T00:00:00.000Z` && q.get('intervalEnd')! < `${addMonths(last, 1)}-01T00:00:00.000Z`);

  wise.edition = 2;
  await h.call('fxwalletSync', { accountId: eur.id, month: last });
  await h.app.queue!.drain();
  const again = (await h.call('statementsList')).statements.filter((s: any) => s.accountId === eur.id);
  assert.equal(again.length, 1);
  assert.equal(again[0].files.length, 3);
  const pdf = again[0].files.find((f: any) => f.fileName.endsWith('statement.pdf'));
  assert.match((await open(pdf.url))!, /edition 2/);
  for (const f of st.files) assert.equal(await h.app.services.files.open(tokenOf(f.url)), null);
});

test('Wise SCA 403 answers failed with what the user can do, never a 5xx', async () => {
  const usd = (await h.call('fxwalletListAccounts')).accounts.find((a: any) => a.currency === 'USD');
  wise.sca = true;
  await h.call('fxwalletSync', { accountId: usd.id, month: last });
  await h.app.queue!.drain();
  wise.sca = false;
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === usd.id);
  assert.equal(st.status, 'failed');
  assert.match(st.reason, /strong customer authentication/);
  assert.match(st.reason, /public key/);
  assert.ok((await h.call('fxwalletListAccounts')).accounts.every((a: any) => a.status === 'connected'));
});

test('disconnect forgets the balances', async () => {
  const accs = (await h.call('fxwalletListAccounts')).accounts;
  const d = await h.call('fxwalletDisconnect', { accountId: accs[0].id });
  assert.equal(d.removedAccountIds.length, 2);
  assert.deepEqual((await h.call('fxwalletListAccounts')).accounts, []);
});
