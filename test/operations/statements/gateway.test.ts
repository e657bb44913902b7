import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeCardcom, type FakeCardcom, type FakeCardcomRow } from '../../fakes/cardcom.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';
import { connectionsPath } from '../../../functions/src/domain/statements/statements.ts';

let h: Harness;
let cardcom: FakeCardcom;
let sandbox: FakeCardcom;
const USER = 'api-user-77';
const PASSWORD = 'S3cret-Cardcom-Pw!';
const last = addMonths(currentMonth(Date.now()), -1);
const prev = addMonths(last, -1);
/** The payouts summary's BOM and bilingual header (core/csv.ts). */
const SUMMARY_HEADER = '\uFEFFמזהה הפקדה / Deposit ID,תאריך הפקדה / Deposit date,מטבע / Currency,עסקאות / Transactions,ברוטו / Gross,עמלות / Fees,מע״מ על עמלות / VAT on fees,הופקד / Deposited\r\n';
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;
const open = async (url: string) => (await h.app.services.files.open(tokenOf(url)))?.bytes.toString() ?? null;

const row = (r: Partial<FakeCardcomRow> & Pick<FakeCardcomRow, 'Id' | 'SapakNumber' | 'CreateDate'>): FakeCardcomRow => ({
  PurchaseDate: r.CreateDate,
  BankDepositesId: null,
  BankDepositAt: null,
  DepositeCurrency: 1,
  BrutoOrgCurAmt: 0,
  IfAmtDepoCur: 0,
  VatIfNisDepoCur: 0,
  DepositeAmount: 0,
  Brand: 'Visa',
  Last4CardDigitsStr: '0042',
  NoOfPmt: 1,
  PmtNo: 1,
  ...r,
});

before(async () => {
  cardcom = await startFakeCardcom();
  sandbox = await startFakeCardcom();
  for (const c of [cardcom, sandbox]) c.users.set(USER, PASSWORD);
  cardcom.rows.push(
    // Created the month before, deposited in `last`: only found through AddDepositedTransaction.
    row({ Id: 1, SapakNumber: 1111, CreateDate: `${prev}-20T10:00:00`, BankDepositesId: 7001, BankDepositAt: `${last}-02T00:00:00`, BrutoOrgCurAmt: 100, IfAmtDepoCur: 1.5, VatIfNisDepoCur: 0.27, DepositeAmount: 98.23 }),
    row({ Id: 2, SapakNumber: 1111, CreateDate: `${last}-03T09:00:00`, BankDepositesId: 7002, BankDepositAt: `${last}-10T00:00:00`, BrutoOrgCurAmt: 250, IfAmtDepoCur: 3.75, VatIfNisDepoCur: 0.68, DepositeAmount: 245.57, NoOfPmt: 3, PmtNo: 1, Brand: 'Mastercard' }),
    row({ Id: 3, SapakNumber: 1111, CreateDate: `${last}-04T09:00:00`, BankDepositesId: 7002, BankDepositAt: `${last}-10T00:00:00`, BrutoOrgCurAmt: 50, IfAmtDepoCur: 0.75, VatIfNisDepoCur: 0.14, DepositeAmount: 49.11 }),
    row({ Id: 4, SapakNumber: 1111, CreateDate: `${prev}-05T09:00:00`, BankDepositesId: 6001, BankDepositAt: `${prev}-12T00:00:00`, BrutoOrgCurAmt: 80, DepositeAmount: 78.6 }),
    row({ Id: 5, SapakNumber: 1111, CreateDate: `${last}-28T09:00:00` }), // not deposited yet
    row({ Id: 10, SapakNumber: 2222, CreateDate: `${last}-06T09:00:00`, BankDepositesId: 7100, BankDepositAt: `${last}-15T00:00:00`, BrutoOrgCurAmt: 40, DepositeAmount: 39.2 }),
  );
  sandbox.rows.push(row({ Id: 90, SapakNumber: 9999, CreateDate: `${last}-06T09:00:00`, BankDepositesId: 9100, BankDepositAt: `${last}-07T00:00:00`, DepositeAmount: 1 }));
  h = await createHarness({ env: { GATEWAY_BASE_URL: cardcom.baseUrl, GATEWAY_SANDBOX_BASE_URL: sandbox.baseUrl } });
});
after(async () => {
  await h.close();
  await cardcom.close();
  await sandbox.close();
});

test('bad input is refused naming the field, and nothing is asked of Cardcom', async () => {
  const before = cardcom.requests.length;
  await assert.rejects(h.call('gatewayConnect', { username: USER, password: PASSWORD }), (e: any) => e.code === 'invalid-argument' && /^sandbox/.test(e.message));
  await assert.rejects(h.call('gatewayConnect', { username: ' ', password: PASSWORD, sandbox: false }), (e: any) => e.code === 'invalid-argument' && /^username/.test(e.message));
  await assert.rejects(h.call('gatewayConnect', { username: USER, password: '', sandbox: false }), (e: any) => e.code === 'invalid-argument' && /^password/.test(e.message));
  assert.equal(cardcom.requests.length, before);
});

test('a Cardcom login failure is refused clearly, never echoes the credential, and stores nothing', async () => {
  const wrong = 'wrong-pass-123';
  await assert.rejects(h.call('gatewayConnect', { username: USER, password: wrong, sandbox: false }), (e: any) => {
    assert.equal(e.code, 'invalid-argument');
    assert.match(e.message, /^password: Cardcom refused this API username and password/);
    assert.ok(!e.message.includes(wrong) && !e.message.includes(USER));
    return true;
  });
  assert.deepEqual((await h.call('gatewayListAccounts')).accounts, []);
  assert.equal((await h.app.services.store.query({ collection: connectionsPath(h.owner.businessId) })).length, 0);
  const req = cardcom.requests.at(-1)!;
  assert.equal(req.path, '/api/v11/Financial/FinancialTransactions');
  assert.equal(req.body.ApiPassword, wrong);
});

test('an API user Cardcom answers with a refusal code gets failed-precondition quoting Cardcom, credential scrubbed, nothing stored', async () => {
  const other = await h.newBusiness('Refused');
  cardcom.refuse = { ResponseCode: 5033, Description: `User ${USER} has no permission for financial reports` };
  try {
    await assert.rejects(h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: false }, other), (e: any) => {
      assert.equal(e.code, 'failed-precondition');
      assert.match(e.message, /code 5033: User … has no permission for financial reports/);
      assert.ok(!e.message.includes(USER) && !e.message.includes(PASSWORD));
      return true;
    });
  } finally {
    cardcom.refuse = null;
  }
  assert.deepEqual((await h.call('gatewayListAccounts', {}, other)).accounts, []);
  assert.equal((await h.app.services.store.query({ collection: connectionsPath(other.businessId) })).length, 0);
});

test('sandbox: true talks to the sandbox host only', async () => {
  const before = cardcom.requests.length;
  const other = await h.newBusiness('Sandboxed');
  const c = await h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: true }, other);
  assert.deepEqual(c.accounts.map((a: any) => a.name), ['Cardcom merchant 9999']);
  assert.equal(cardcom.requests.length, before);
  assert.ok(sandbox.requests.some((r) => r.apiName === USER));
});

test('connect lists the merchants and the months with payouts; a month stores its payout reports; re-sync replaces them', async () => {
  const c = await h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: false });
  assert.deepEqual(c.accounts.map((a: any) => a.name), ['Cardcom merchant 1111', 'Cardcom merchant 2222']);
  assert.deepEqual(c.months, [last, prev]);
  // The credential is sealed: not in the answer, not in the stored connection.
  assert.ok(!JSON.stringify(c).includes(PASSWORD));
  const [conn] = await h.app.services.store.query({ collection: connectionsPath(h.owner.businessId) });
  assert.ok(!JSON.stringify(conn.data).includes(PASSWORD) && !JSON.stringify(conn.data).includes(USER));
  assert.deepEqual((conn.data as any).meta, { sandbox: false });
  const q = cardcom.requests.at(-1)!.body;
  assert.equal(q.FromCreateDate, `01${addMonths(last, -23).slice(5)}${addMonths(last, -23).slice(0, 4)}`);
  assert.equal(q.AddDepositedTransaction, true);

  const list = await h.call('gatewayListAccounts');
  assert.ok(list.accounts.every((a: any) => a.status === 'connected' && a.source === 'gateway'));
  const m1 = list.accounts.find((a: any) => a.name.endsWith('1111'));

  await assert.rejects(h.call('gatewaySync', { accountId: m1.id, month: currentMonth(Date.now()) }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));
  await assert.rejects(h.call('gatewaySync', { accountId: m1.id, month: `${last}-01` }), (e: any) => e.code === 'invalid-argument' && /^month:/.test(e.message));

  const s = await h.call('gatewaySync', { accountId: m1.id, month: last });
  assert.equal(s.status, 'pending');
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((x: any) => x.accountId === m1.id);
  assert.equal(st.status, 'ready');
  assert.deepEqual(st.files.map((f: any) => f.fileName).sort(), [
    `cardcom-1111-${last}-deposit-7001.csv`,
    `cardcom-1111-${last}-deposit-7002.csv`,
    `cardcom-1111-${last}-payouts.csv`,
  ]);
  assert.ok(st.files.every((f: any) => f.contentType === 'text/csv'));
  const summary = st.files.find((f: any) => f.fileName.endsWith('payouts.csv'));
  assert.equal(
    await open(summary.url),
    SUMMARY_HEADER +
      `7001,${last}-02,ILS,1,100.00,1.50,0.27,98.23\r\n` +
      `7002,${last}-10,ILS,2,300.00,4.50,0.82,294.68\r\n`,
  );
  const d7002 = (await open(st.files.find((f: any) => f.fileName.endsWith('7002.csv')).url))!.split('\r\n');
  // The card ending and the installment in the text form a spreadsheet keeps (core/csv.ts): not 42, not a date.
  assert.equal(d7002[1], `2,${last}-03,Mastercard,"=""0042""","=""1/3""",250.00,3.75,0.68,245.57,ILS,250.00,ILS`);
  assert.equal(d7002.length, 4); // header, two lines, final newline
  const sq = cardcom.requests.at(-1)!.body;
  assert.equal(sq.FromCreateDate, `01${last.slice(5)}${last.slice(0, 4)}`);

  // Cardcom corrects a line: the re-sync brings the new figures, replaces the files, keeps one statement.
  cardcom.rows.find((r) => r.Id === 3)!.DepositeAmount = 49.21;
  await h.call('gatewaySync', { accountId: m1.id, month: last });
  await h.app.queue!.drain();
  const again = (await h.call('statementsList')).statements.filter((x: any) => x.accountId === m1.id);
  assert.equal(again.length, 1);
  assert.equal(again[0].files.length, 3);
  assert.match((await open(again[0].files.find((f: any) => f.fileName.endsWith('payouts.csv')).url))!, /7002,[^\r]*,294\.78\r\n/);
  for (const f of st.files) assert.equal(await open(f.url), null, 'old links are dead');
});

test('a refusal during a sync fails the month with Cardcom\'s reason and leaves the merchants connected', async () => {
  const m2 = (await h.call('gatewayListAccounts')).accounts.find((a: any) => a.name.endsWith('2222'));
  cardcom.refuse = { ResponseCode: 5033, Description: 'No permission for financial reports' };
  await h.call('gatewaySync', { accountId: m2.id, month: prev });
  await h.app.queue!.drain();
  cardcom.refuse = null;
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === m2.id && s.month === prev);
  assert.equal(st.status, 'failed');
  assert.match(st.reason, /No permission for financial reports/);
  assert.ok((await h.call('gatewayListAccounts')).accounts.every((a: any) => a.status === 'connected'));
  // A month with no deposit for the merchant is an answer: ready, with a header-only summary.
  await h.call('gatewaySync', { accountId: m2.id, month: prev });
  await h.app.queue!.drain();
  const empty = (await h.call('statementsList')).statements.find((s: any) => s.accountId === m2.id && s.month === prev);
  assert.equal(empty.status, 'ready');
  assert.equal(empty.files.length, 1);
  assert.equal(await open(empty.files[0].url), SUMMARY_HEADER);
});

test('a rate limit (429 + Retry-After) is retried within the call', async () => {
  cardcom.rateLimitNext(2, '0');
  const c = await h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: false });
  assert.equal(c.accounts.length, 2);
});

test('a changed password marks the merchants needs_reconnect and the month failed; reconnecting restores them', async () => {
  const m2 = (await h.call('gatewayListAccounts')).accounts.find((a: any) => a.name.endsWith('2222'));
  cardcom.users.set(USER, 'rotated-password');
  await h.call('gatewaySync', { accountId: m2.id, month: last });
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === m2.id);
  assert.equal(st.status, 'failed');
  assert.match(st.reason, /reconnect/);
  assert.ok(!st.reason.includes(PASSWORD));
  assert.ok((await h.call('gatewayListAccounts')).accounts.every((a: any) => a.status === 'needs_reconnect'));
  await assert.rejects(h.call('gatewaySync', { accountId: m2.id, month: last }), (e: any) => e.code === 'failed-precondition');
  cardcom.users.set(USER, PASSWORD);
  const again = await h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: false });
  assert.ok(again.accounts.some((a: any) => a.id === m2.id && a.status === 'connected'));
});

test('another business cannot list, sync, delete, disconnect or download the gateway statements', async () => {
  const b = await h.newBusiness('Other');
  const mine = (await h.call('statementsList')).statements.filter((s: any) => s.source === 'gateway' && s.status === 'ready');
  assert.ok(mine.length >= 1);
  assert.deepEqual((await h.call('statementsList', {}, b)).statements, []);
  assert.deepEqual((await h.call('gatewayListAccounts', {}, b)).accounts, []);
  const acc = (await h.call('gatewayListAccounts')).accounts[0];
  await assert.rejects(h.call('gatewaySync', { accountId: acc.id, month: last }, b), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('statementDelete', { id: mine[0].id }, b), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('gatewayDisconnect', { accountId: acc.id }, b), (e: any) => e.code === 'not-found');
  for (const f of mine[0].files) assert.equal(await h.app.services.files.read(b.businessId, f.fileId), null);
  // The owner deletes: files gone, links dead.
  await h.call('statementDelete', { id: mine[0].id });
  for (const f of mine[0].files) assert.equal(await open(f.url), null);
});

test('disconnect forgets the merchants and the credential; stored statements stay', async () => {
  const m1 = (await h.call('gatewayListAccounts')).accounts.find((a: any) => a.name.endsWith('1111'));
  const kept = (await h.call('statementsList')).statements.filter((s: any) => s.source === 'gateway').length;
  const d = await h.call('gatewayDisconnect', { accountId: m1.id });
  assert.equal(d.removedAccountIds.length, 2);
  assert.deepEqual((await h.call('gatewayListAccounts')).accounts, []);
  assert.equal((await h.app.services.store.query({ collection: connectionsPath(h.owner.businessId) })).filter((c) => (c.data as any).source === 'gateway').length, 0);
  assert.equal((await h.call('statementsList')).statements.filter((s: any) => s.source === 'gateway').length, kept);
  await assert.rejects(h.call('gatewaySync', { accountId: m1.id, month: last }), (e: any) => e.code === 'not-found');
});

test('a busy account is read page by page (and month by month at connect); the month report counts every line', async () => {
  const busy = await h.newBusiness('Busy');
  for (let i = 0; i < 6500; i++) {
    sandbox.rows.push(row({ Id: 100000 + i, SapakNumber: 8888, CreateDate: `${last}-${String(1 + (i % 20)).padStart(2, '0')}T08:00:00`, BankDepositesId: 8100, BankDepositAt: `${last}-25T00:00:00`, BrutoOrgCurAmt: 1, DepositeAmount: 0.99 }));
  }
  const before = sandbox.requests.length;
  const c = await h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: true }, busy);
  assert.deepEqual(c.accounts.map((a: any) => a.name), ['Cardcom merchant 8888', 'Cardcom merchant 9999']);
  assert.deepEqual(c.months, [last]);
  const asked = sandbox.requests.slice(before).map((r) => r.body);
  assert.deepEqual(asked.slice(0, 3).map((b) => b.Page), [1, 2, 3], 'the window, up to three pages');
  assert.equal(asked.length, 3 + 24 + 3, 'then each of the 24 months, the busy one in four pages');
  const acc = c.accounts.find((a: any) => a.name.endsWith('8888'));
  await h.call('gatewaySync', { accountId: acc.id, month: last }, busy);
  await h.app.queue!.drain();
  const st = (await h.call('statementsList', {}, busy)).statements.find((s: any) => s.accountId === acc.id);
  assert.equal(st.status, 'ready');
  const summary = await open(st.files.find((f: any) => f.fileName.endsWith('payouts.csv')).url);
  assert.equal(summary!.split('\r\n')[1], `8100,${last}-25,ILS,6500,6500.00,0.00,0.00,6435.00`);
});
