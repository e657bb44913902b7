import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeSlack, FAKE_SLACK_CLIENT, type FakeSlack } from '../../fakes/slack.ts';
import { slackClient, SlackError, type SlackClient } from '../../../functions/src/adapters/chat/slackClient.ts';

let fake: FakeSlack;
let client: SlackClient;
let token: string;

before(async () => {
  fake = await startFakeSlack({ members: 460 });
  client = slackClient({ authUrl: fake.authUrl, baseUrl: fake.baseUrl, ...FAKE_SLACK_CLIENT });
  // A real consent through the fake: authorize → code → oauth.v2.access.
  const url = client.authorizeUrl({ redirectUri: 'https://app.example.com/oauth/chat/callback', state: 'state-1' });
  const r = await fetch(url, { redirect: 'manual' });
  const code = new URL(r.headers.get('location')!).searchParams.get('code')!;
  const grant = await client.exchangeCode({ code, redirectUri: 'https://app.example.com/oauth/chat/callback' });
  token = grant.accessToken;
  assert.deepEqual([grant.teamId, grant.teamName, grant.botUserId], ['T0FAKE01', 'Acme Workspace', 'UBOTSELF1']);
});
after(() => fake.close());

test('Web API calls are form-encoded POSTs with the bot token as a bearer', async () => {
  await client.authTest(token);
  const r = fake.requests.at(-1)!;
  assert.equal(r.httpMethod, 'POST');
  assert.match(r.contentType, /^application\/x-www-form-urlencoded/);
  assert.equal(r.headers.authorization, `Bearer ${token}`);
  const exchange = fake.requests.find((x) => x.method === 'oauth.v2.access')!;
  assert.match(exchange.contentType, /^application\/x-www-form-urlencoded/);
  assert.equal(exchange.params.client_secret, FAKE_SLACK_CLIENT.clientSecret);
});

test('the fake also takes JSON bodies and a token field, as Slack does', async () => {
  const json = await fetch(`${fake.baseUrl}users.list`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` }, body: JSON.stringify({ limit: 2 }) });
  const body = (await json.json()) as any;
  assert.equal(body.ok, true);
  assert.equal(body.members.length, 2);
  assert.ok(body.response_metadata.next_cursor);
  const form = await fetch(`${fake.baseUrl}auth.test`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) });
  assert.equal(((await form.json()) as any).team_id, 'T0FAKE01');
});

test('a code works once: the second exchange is refused (invalid_code)', async () => {
  const url = client.authorizeUrl({ redirectUri: 'https://app.example.com/cb', state: 's' });
  const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
  await client.exchangeCode({ code, redirectUri: 'https://app.example.com/cb' });
  await assert.rejects(client.exchangeCode({ code, redirectUri: 'https://app.example.com/cb' }), (e: unknown) => e instanceof SlackError && e.failure === 'refused' && e.error === 'invalid_code');
});

test('{ok:false,error} answers become SlackError with Slack\'s code; auth errors are told apart', async () => {
  await assert.rejects(client.authTest('xoxb-not-issued'), (e: unknown) => e instanceof SlackError && e.failure === 'auth' && e.error === 'invalid_auth');
  const bad = slackClient({ authUrl: fake.authUrl, baseUrl: fake.baseUrl, clientId: FAKE_SLACK_CLIENT.clientId, clientSecret: 'wrong' });
  await assert.rejects(bad.exchangeCode({ code: 'x', redirectUri: 'https://a.example/cb' }), (e: unknown) => e instanceof SlackError && e.failure === 'refused' && e.error === 'bad_client_secret');
});

test('a gateway failure (HTTP 502, not JSON) is unavailable', async () => {
  fake.failNext(502);
  await assert.rejects(client.authTest(token), (e: unknown) => e instanceof SlackError && e.failure === 'unavailable' && e.error === 'http_502');
});

test('cursor paging stops at the cap and says it was truncated', async () => {
  const all = await client.listMembers(token, 5000);
  assert.equal(all.members.length, 464);
  assert.equal(all.pages, 3);
  assert.equal(all.truncated, false);
  assert.equal(new Set(all.members.map((m) => m.id)).size, 464, 'no member twice across pages');
  const capped = await client.listMembers(token, 250);
  assert.equal(capped.members.length, 250);
  assert.equal(capped.pages, 2);
  assert.equal(capped.truncated, true);
});

test('ratelimited: retried after Retry-After up to 3 attempts, then a ratelimited SlackError', async () => {
  fake.rateLimitNext(3, 1, 'auth.test');
  const start = fake.requests.length;
  await assert.rejects(client.authTest(token), (e: unknown) => e instanceof SlackError && e.failure === 'ratelimited' && e.retryAfterSec === 1);
  assert.equal(fake.requests.slice(start).filter((r) => r.method === 'auth.test').length, 3);
  // The limit is over: the next call goes through.
  assert.equal((await client.authTest(token)).teamId, 'T0FAKE01');
});

test('auth.revoke revokes: the token then answers token_revoked', async () => {
  const url = client.authorizeUrl({ redirectUri: 'https://app.example.com/cb', state: 's2' });
  const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
  const { accessToken } = await client.exchangeCode({ code, redirectUri: 'https://app.example.com/cb' });
  assert.equal(await client.revoke(accessToken), true);
  await assert.rejects(client.authTest(accessToken), (e: unknown) => e instanceof SlackError && e.failure === 'auth' && e.error === 'token_revoked');
});
