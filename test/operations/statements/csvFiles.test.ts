import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeCardcom, type FakeCardcom, type FakeCardcomRow } from '../../fakes/cardcom.ts';
import { startFakeUpwork, upworkEnv, approveMarketConsent, type FakeUpwork } from '../../fakes/upwork.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';

/**
 * Every CSV the service stores, parsed as a spreadsheet user would get it (issue 20 item 7, issue 17 item 13): the
 * payment gateway's payout reports and the marketplace's transactions, filled by the providers' fakes with values
 * that are formulas, or that a spreadsheet would turn into numbers and dates.
 */

const last = addMonths(currentMonth(Date.now()), -1);
const HOSTILE = ['=HYPERLINK("http://evil.example/x","Refund")', "+cmd|' /C calc'!A0", '@SUM(1+1)', '-2+3', '\t=1+1'];

let h: Harness;
let cardcom: FakeCardcom;
let upwork: FakeUpwork;

const row = (r: Partial<FakeCardcomRow> & Pick<FakeCardcomRow, 'Id'>): FakeCardcomRow => ({
  SapakNumber: 3333,
  CreateDate: `${last}-03T09:00:00`,
  PurchaseDate: `${last}-03T09:00:00`,
  BankDepositesId: 8001,
  BankDepositAt: `${last}-10T00:00:00`,
  DepositeCurrency: 1,
  BrutoOrgCurAmt: 100,
  IfAmtDepoCur: 1.5,
  VatIfNisDepoCur: 0.27,
  DepositeAmount: 98.23,
  Brand: 'Visa',
  Last4CardDigitsStr: '1234',
  NoOfPmt: 1,
  PmtNo: 1,
  ...r,
});

before(async () => {
  cardcom = await startFakeCardcom();
  cardcom.users.set('csv-user', 'csv-password-1');
  // Card brand and last four come from the provider as text: here they are formulas, and a leading-zero ending.
  cardcom.rows.push(
    row({ Id: 1, Brand: HOSTILE[0], Last4CardDigitsStr: HOSTILE[1] }),
    row({ Id: 2, Brand: HOSTILE[2], Last4CardDigitsStr: HOSTILE[3], NoOfPmt: 3, PmtNo: 1 }),
    row({ Id: 3, Brand: HOSTILE[4], Last4CardDigitsStr: '0042' }),
  );
  upwork = await startFakeUpwork();
  upwork.organizations.push({ id: 'org-csv', title: 'CSV Org', aceId: 'ace-csv' });
  upwork.transactions.set('org-csv', [
    { recordId: 'c1', date: `${last}-04`, type: 'Payment', description: HOSTILE[0], amount: '-250.00', freelancer: HOSTILE[2] },
    { recordId: '0042', date: `${last}-05`, type: '@SUM(1+1)', description: '1/3', amount: '-12.50', freelancer: 'דנה לוי' },
  ]);
  h = await createHarness({ env: { GATEWAY_BASE_URL: cardcom.baseUrl, GATEWAY_SANDBOX_BASE_URL: cardcom.baseUrl, ...upworkEnv(upwork) } });
});
after(async () => {
  await h.close();
  await cardcom.close();
  await upwork.close();
});

const open = async (url: string) => (await h.app.services.files.open(new URL(url).pathname.split('/').at(-2)!))!.bytes;

/** Checks the rule on one stored file and returns its rows (header first). */
function checkCsv(name: string, bytes: Buffer): string[][] {
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], `${name}: UTF-8 with a BOM`);
  const rows: string[][] = parse(bytes.subarray(3).toString('utf8'));
  for (const cell of rows[0]) assert.match(cell, /^[^/]*[\u0590-\u05FF][^/]* \/ [A-Z][A-Za-z0-9 ]+$/, `${name}: header "${cell}" in Hebrew and English`);
  for (const r of rows.slice(1)) {
    assert.equal(r.length, rows[0].length, `${name}: every row has every column`);
    for (const cell of r) {
      // Nothing starts a formula, except a plain number or the ="…" text form around digits and separators.
      if (/^[=+\-@\t\r]/.test(cell)) assert.match(cell, /^(-\d+(\.\d+)?|="[0-9/.\-eE]+")$/, `${name}: cell ${JSON.stringify(cell)} is neutralised`);
    }
  }
  return rows;
}

test('the payment gateway payout reports: BOM, bilingual headers, provider formulas neutralised, 0042 and 1/3 kept', async () => {
  const c = await h.call('gatewayConnect', { username: 'csv-user', password: 'csv-password-1', sandbox: false });
  await h.call('gatewaySync', { accountId: c.accounts[0].id, month: last });
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === c.accounts[0].id);
  assert.equal(st.status, 'ready', st.reason);
  assert.equal(st.files.length, 2);
  const cells: string[] = [];
  for (const f of st.files) cells.push(...checkCsv(f.fileName, await open(f.url)).slice(1).flat());
  for (const v of HOSTILE) assert.ok(cells.includes(`'${v}`), `${JSON.stringify(v)} is kept, as text`);
  assert.ok(cells.includes('="0042"'), 'the card ending keeps its zeros');
  assert.ok(cells.includes('="1/3"'), 'the installment is not a date');
  assert.ok(cells.includes('98.23') && cells.includes('100.00'), 'amounts stay numbers');
});

test('the marketplace transactions CSV: BOM, bilingual headers, formulas neutralised, ids and fractions kept as text', async () => {
  const { url } = await h.call('marketConnectStart', { origin: 'https://app.example.com' });
  const consent = await approveMarketConsent(h.http, url);
  assert.equal(consent.res.status, 200, consent.body);
  const acc = (await h.call('marketListAccounts')).accounts.find((a: any) => a.name === 'CSV Org');
  await h.call('marketSync', { accountId: acc.id, month: last });
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acc.id);
  assert.equal(st.status, 'ready', st.reason);
  const rows = checkCsv(st.files[0].fileName, await open(st.files[0].url));
  assert.equal(rows.length, 3);
  const col = (en: string) => rows[0].findIndex((c) => c.endsWith(`/ ${en}`));
  assert.equal(rows[1][col('Description')], `'${HOSTILE[0]}`);
  assert.equal(rows[1][col('Freelancer')], `'${HOSTILE[2]}`);
  assert.equal(rows[1][col('Amount')], '-250.00', 'a negative amount stays a number');
  assert.equal(rows[2][col('ID')], '="0042"');
  assert.equal(rows[2][col('Type')], "'@SUM(1+1)");
  assert.equal(rows[2][col('Description')], '="1/3"');
  assert.equal(rows[2][col('Freelancer')], 'דנה לוי');
  assert.equal(rows[2][col('Date')], `${last}-05`);
});
