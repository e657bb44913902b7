import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { FAKE_UPWORK_CLIENT, startFakeUpwork, type FakeUpwork } from './upwork.ts';

// The fake refuses what Upwork refuses: the token request without the client in the body (as Upwork's own client sends
// it), a spent code, a GraphQL call without a live token, and a transaction query without its required filter.

let upwork: FakeUpwork;
before(async () => {
  upwork = await startFakeUpwork();
  upwork.organizations.push({ id: 'org-1', title: 'Fake Client Org', aceId: 'ace-1' });
});
after(() => upwork.close());

const tokenCall = async (form: Record<string, string>, headers: Record<string, string> = {}) => {
  const res = await fetch(upwork.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
  return { status: res.status, body: (await res.json()) as any };
};

async function code(): Promise<string> {
  const u = new URL(upwork.authUrl);
  u.search = new URLSearchParams({ response_type: 'code', client_id: FAKE_UPWORK_CLIENT.clientId, redirect_uri: 'https://app.example.com/cb', state: 's' }).toString();
  const r = await fetch(u, { redirect: 'manual' });
  return new URL(r.headers.get('location')!).searchParams.get('code')!;
}

test('the token endpoint wants the client in the body; Basic alone is invalid_client; a code works once', async () => {
  const c = await code();
  const basic = `Basic ${Buffer.from(`${FAKE_UPWORK_CLIENT.clientId}:${FAKE_UPWORK_CLIENT.clientSecret}`).toString('base64')}`;
  const viaBasic = await tokenCall({ grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb' }, { authorization: basic });
  assert.deepEqual([viaBasic.status, viaBasic.body.error], [401, 'invalid_client']);
  const form = { grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb', client_id: FAKE_UPWORK_CLIENT.clientId, client_secret: FAKE_UPWORK_CLIENT.clientSecret };
  const ok = await tokenCall(form);
  assert.equal(ok.status, 200);
  assert.ok(ok.body.access_token && ok.body.refresh_token);
  const again = await tokenCall(form);
  assert.deepEqual([again.status, again.body.error], [400, 'invalid_grant']);
});

test('GraphQL needs a live Bearer token, and transactionHistory its accounting entities and a YYYY-MM-DD range', async () => {
  const c = await code();
  const { body: tokens } = await tokenCall({ grant_type: 'authorization_code', code: c, redirect_uri: 'https://app.example.com/cb', client_id: FAKE_UPWORK_CLIENT.clientId, client_secret: FAKE_UPWORK_CLIENT.clientSecret });
  const gql = async (variables: Record<string, unknown>, token = tokens.access_token) => {
    const res = await fetch(upwork.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-upwork-api-tenantid': 'org-1' },
      body: JSON.stringify({ query: 'query transactionHistory($transactionHistoryFilter: TransactionHistoryFilter) { transactionHistory(transactionHistoryFilter: $transactionHistoryFilter) { transactionDetail { transactionHistoryRow { recordId } } } }', variables }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  assert.equal((await gql({}, 'not-a-token')).status, 401);
  const noAce = await gql({ transactionHistoryFilter: { transactionDateTime_bt: { rangeStart: '2025-04-01', rangeEnd: '2025-04-30' } } });
  assert.match(noAce.body.errors[0].message, /aceIds_any/);
  const badRange = await gql({ transactionHistoryFilter: { aceIds_any: ['ace-1'], transactionDateTime_bt: { rangeStart: '2025-04-01T00:00:00Z', rangeEnd: '2025-04-30' } } });
  assert.match(badRange.body.errors[0].message, /YYYY-MM-DD/);
  const ok = await gql({ transactionHistoryFilter: { aceIds_any: ['ace-1'], transactionDateTime_bt: { rangeStart: '2025-04-01', rangeEnd: '2025-04-30' } } });
  assert.deepEqual(ok.body, { data: { transactionHistory: { transactionDetail: { transactionHistoryRow: [] } } } });
});
