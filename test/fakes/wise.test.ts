import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWise, type FakeWise } from './wise.ts';

// The fake refuses what Wise's reference says Wise refuses (docs.wise.com/api-reference: balance-statement, transfer).

let wise: FakeWise;
const TOKEN = 'wise-personal-token-1';

before(async () => {
  wise = await startFakeWise();
  wise.tokens.add(TOKEN);
  wise.profiles.push({ id: 11, type: 'business', fullName: 'Fake Ltd' });
  wise.balances.set(11, [{ id: 201, currency: 'EUR' }]);
  wise.transfers.push({ id: 1, sourceCurrency: 'EUR', status: 'outgoing_payment_sent', created: '2025-04-30 23:59:59' }, { id: 2, sourceCurrency: 'EUR', status: 'outgoing_payment_sent', created: '2025-05-01 00:00:00' });
});
after(() => wise.close());

const get = async (path: string, token = TOKEN) => {
  const res = await fetch(`${wise.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('json') ? ((await res.json()) as any) : await res.text() };
};
const statement = (q: Record<string, string>) => get(`/v1/profiles/11/balance-statements/201/statement.pdf?${new URLSearchParams(q)}`);
const full = { currency: 'EUR', intervalStart: '2025-03-31T22:00:00.000Z', intervalEnd: '2025-04-30T21:00:00.000Z', type: 'COMPACT' };

test('a balance statement needs currency, both instants and type; instants are ISO 8601, start before end, ≤ 469 days', async () => {
  assert.equal((await statement(full)).status, 200);
  for (const p of ['currency', 'intervalStart', 'intervalEnd', 'type'] as const) {
    const { [p]: _drop, ...rest } = full;
    const r = await statement(rest);
    assert.equal(r.status, 400, p);
    assert.deepEqual(r.body.errors[0].arguments, [p]);
  }
  assert.equal((await statement({ ...full, intervalStart: '01/04/2025' })).status, 400);
  assert.equal((await statement({ ...full, intervalStart: full.intervalEnd, intervalEnd: full.intervalStart })).status, 400);
  assert.equal((await statement({ ...full, intervalStart: '2024-01-01T00:00:00Z' })).status, 400);
  assert.equal((await statement({ ...full, type: 'FULL' })).status, 400);
  assert.equal((await statement({ ...full, currency: 'USD' })).status, 400);
  assert.equal((await statement({ ...full, lineStyle: 'COMPACT' })).status, 400);
});

test('transfers: profile required, dates ISO 8601 and inclusive, limit 1–1000, unknown parameters refused', async () => {
  assert.equal((await get('/v1/transfers?limit=10')).status, 400);
  assert.equal((await get('/v1/transfers?profile=11&createdDateStart=30-04-2025')).status, 400);
  assert.equal((await get('/v1/transfers?profile=11&limit=1001')).status, 400);
  assert.equal((await get('/v1/transfers?profile=11&from=2025-01-01')).status, 400);
  // Both ends inclusive: the transfer at the end instant is listed (so the adapter filters [start, end) itself).
  const r = await get('/v1/transfers?profile=11&createdDateStart=2025-04-01T00:00:00.000Z&createdDateEnd=2025-05-01T00:00:00.000Z');
  assert.deepEqual(r.body.map((t: any) => [t.id, t.created]), [[1, '2025-04-30 23:59:59'], [2, '2025-05-01 00:00:00']]);
});

test('a wrong token is 401; strong customer authentication is 403 with the one-time token header', async () => {
  assert.equal((await get('/v2/profiles', 'nope')).status, 401);
  wise.sca = true;
  try {
    const res = await fetch(`${wise.baseUrl}/v1/profiles/11/balance-statements/201/statement.csv?${new URLSearchParams(full)}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 403);
    assert.ok(res.headers.get('x-2fa-approval'));
  } finally {
    wise.sca = false;
  }
});
