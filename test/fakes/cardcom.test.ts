import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeCardcom, type FakeCardcom } from './cardcom.ts';

// The fake refuses what Cardcom's v11 swagger says Cardcom refuses (Financial/FinancialTransactions, FinancialTransactionsReq).

let cardcom: FakeCardcom;
before(async () => {
  cardcom = await startFakeCardcom();
  cardcom.users.set('api-user', 'api-pass');
});
after(() => cardcom.close());

const ok = { ApiName: 'api-user', ApiPassword: 'api-pass', FromCreateDate: '01042025', ToCreateDate: '30042025', AddDepositedTransaction: true, Page: 1, Page_size: 2000 };
const post = async (body: unknown, type = 'application/json') => {
  const res = await fetch(`${cardcom.baseUrl}/Financial/FinancialTransactions`, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

test('dates are DDMMYYYY real calendar dates with from ≤ to; pages from 1, page size 10–2000', async () => {
  assert.equal((await post(ok)).body.ResponseCode, 0);
  for (const bad of [{ FromCreateDate: '2025-04-01' }, { FromCreateDate: '31022025' }, { FromCreateDate: '01052025' }, { Page: 0 }, { Page_size: 5 }, { Page_size: 2001 }]) {
    const r = await post({ ...ok, ...bad });
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal(typeof r.body.Description, 'string');
  }
});

test('required fields, the API user and JSON are checked', async () => {
  const { Page: _p, ...noPage } = ok;
  assert.equal((await post(noPage)).status, 400);
  assert.equal((await post({ ...ok, ApiName: '' })).status, 400);
  const wrong = await post({ ...ok, ApiPassword: 'nope' });
  assert.deepEqual([wrong.status, wrong.body.Description], [401, 'Invalid username']);
  assert.equal((await post(new URLSearchParams({ ApiName: 'api-user' }).toString(), 'application/x-www-form-urlencoded')).status, 415);
});
