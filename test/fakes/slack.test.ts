import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { FAKE_SLACK_CLIENT, startFakeSlack, type FakeSlack } from './slack.ts';

// The fake refuses what Slack's method pages say Slack refuses (api.slack.com/methods/oauth.v2.access, users.list):
// HTTP 200 with `{ok:false, error}`, Slack's way.

let slack: FakeSlack;
before(async () => {
  slack = await startFakeSlack({ members: 3 });
});
after(() => slack.close());

const call = async (method: string, params: Record<string, string>, token?: string) => {
  const res = await fetch(`${slack.baseUrl}${method}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token && { authorization: `Bearer ${token}` }) }, body: new URLSearchParams(params).toString() });
  assert.equal(res.status, 200);
  return (await res.json()) as any;
};

test('oauth.v2.access: wrong secret, unknown code, another redirect_uri and a reused code are refused', async () => {
  const q = new URLSearchParams({ client_id: FAKE_SLACK_CLIENT.clientId, scope: 'users:read', redirect_uri: 'https://app.example.com/cb', state: 's' });
  const r = await fetch(`${slack.authUrl}?${q}`, { redirect: 'manual' });
  const code = new URL(r.headers.get('location')!).searchParams.get('code')!;
  const base = { client_id: FAKE_SLACK_CLIENT.clientId, client_secret: FAKE_SLACK_CLIENT.clientSecret, code, redirect_uri: 'https://app.example.com/cb' };
  assert.equal((await call('oauth.v2.access', { ...base, client_secret: 'nope' })).error, 'bad_client_secret');
  assert.equal((await call('oauth.v2.access', { ...base, code: 'nope' })).error, 'invalid_code');
  assert.equal((await call('oauth.v2.access', { ...base, redirect_uri: 'https://evil.example/cb' })).error, 'bad_redirect_uri');
  const ok = await call('oauth.v2.access', base);
  assert.equal(ok.ok, true);
  assert.equal((await call('oauth.v2.access', base)).error, 'invalid_code');

  // users.list: no token is not_authed, a forged cursor invalid_cursor; paging by next_cursor ends with "".
  assert.equal((await call('users.list', {})).error, 'not_authed');
  assert.equal((await call('users.list', { cursor: 'bm9wZQ==' }, ok.access_token)).error, 'invalid_cursor');
  const ids: string[] = [];
  let cursor = '';
  for (let i = 0; i < 20; i++) {
    const page = await call('users.list', { limit: '2', ...(cursor && { cursor }) }, ok.access_token);
    assert.ok(page.members.length <= 2);
    ids.push(...page.members.map((m: any) => m.id));
    cursor = page.response_metadata.next_cursor;
    if (!cursor) break;
  }
  assert.deepEqual(ids, slack.members.map((m) => m.id));
});
