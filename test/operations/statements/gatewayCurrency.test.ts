import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { cardcomAmounts, startFakeCardcom, type FakeCardcom } from '../../fakes/cardcom.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';

// Issue 34 B7: a dollar sale deposited in shekels. Cardcom gives the sale in its own currency (BrutoOrgCurAmt) and the
// rest in the deposit's; the statement's Gross, Fees, VAT and Deposited must all be shekels and add up.

let h: Harness;
let cardcom: FakeCardcom;
const USER = 'api-user-fx';
const PASSWORD = 'Fx-Cardcom-Pw-1';
const last = addMonths(currentMonth(Date.now()), -1);
const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-2)!;
const open = async (url: string) => (await h.app.services.files.open(tokenOf(url)))!.bytes.toString().replace(/^\uFEFF/, '');
const agorot = (s: string) => Math.round(Number(s) * 100);

before(async () => {
  cardcom = await startFakeCardcom();
  cardcom.users.set(USER, PASSWORD);
  const base = { SapakNumber: 4444, BankDepositesId: 7300, BankDepositAt: `${last}-12T00:00:00`, Brand: 'Visa', Last4CardDigitsStr: '4242', NoOfPmt: 1, PmtNo: 1 };
  cardcom.rows.push(
    // $100 at 3.70: ₪370.00, fee 2.5% + ₪0.50, VAT 18% on the fees.
    { ...base, Id: 1, CreateDate: `${last}-05T10:00:00`, PurchaseDate: `${last}-05T10:00:00`, ...cardcomAmounts({ amount: 100, currency: 2, depositCurrency: 1, rate: 3.7, feePct: 2.5, fixFee: 0.5 }) },
    { ...base, Id: 2, CreateDate: `${last}-06T11:00:00`, PurchaseDate: `${last}-06T11:00:00`, ...cardcomAmounts({ amount: 200, currency: 1, feePct: 1.5 }) },
  );
  h = await createHarness({ env: { GATEWAY_BASE_URL: cardcom.baseUrl } });
});
after(async () => {
  await h.close();
  await cardcom.close();
});

test('a dollar sale deposited in shekels: Gross, Fees, VAT and Deposited are shekels and gross − fees − VAT = deposited', async () => {
  const c = await h.call('gatewayConnect', { username: USER, password: PASSWORD, sandbox: false });
  const acc = c.accounts[0];
  await h.call('gatewaySync', { accountId: acc.id, month: last });
  await h.app.queue!.drain();
  const st = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acc.id);
  assert.equal(st.status, 'ready', st.reason);

  const summary = (await open(st.files.find((f: any) => f.fileName.endsWith('payouts.csv')).url)).split('\r\n');
  // ₪370.00 + ₪200.00 gross; fees 9.25 + 0.50 + 3.00; VAT 1.76 + 0.54; deposited 358.49 + 196.46.
  assert.equal(summary[1], `7300,${last}-12,ILS,2,570.00,12.75,2.30,554.95`);
  const [, , , , gross, fees, vat, deposited] = summary[1].split(',');
  assert.equal(agorot(gross) - agorot(fees) - agorot(vat), agorot(deposited));

  const lines = (await open(st.files.find((f: any) => f.fileName.endsWith('deposit-7300.csv')).url)).trim().split('\r\n').slice(1);
  assert.equal(lines.length, 2);
  for (const line of lines) {
    const cells = line.split(',');
    const [g, f, v, d] = cells.slice(5, 9).map(agorot);
    assert.equal(g - f - v, d, line);
    assert.equal(cells[9], 'ILS');
  }
  // The sale's own amount and currency stay on its line.
  assert.match(lines[0], /^1,.*,370\.00,9\.75,1\.76,358\.49,ILS,100\.00,USD$/);
  assert.match(lines[1], /^2,.*,200\.00,3\.00,0\.54,196\.46,ILS,200\.00,ILS$/);
});
