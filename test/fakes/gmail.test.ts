import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGmail, FAKE_GMAIL_CLIENT, type FakeGmail } from './gmail.ts';

// The fake's batch endpoint refuses what Gmail's batch guide (developers.google.com/gmail/api/guides/batch) rules out,
// so the adapter cannot come to rely on a looser format than the real one takes.
let fake: FakeGmail;
let token: string;
before(async () => {
  fake = await startFakeGmail();
  fake.refreshTokens.push('1//refresh-for-fake-test');
  const r = await fetch(fake.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: '1//refresh-for-fake-test', client_id: FAKE_GMAIL_CLIENT.clientId, client_secret: FAKE_GMAIL_CLIENT.clientSecret }) });
  token = ((await r.json()) as { access_token: string }).access_token;
  fake.add({ id: 'm1', from: 'a@x.example', subject: 'one', dateMs: Date.parse('2026-01-01T00:00:00Z'), body: { mimeType: 'text/plain', data: Buffer.from('hi') } });
});
after(() => fake.close());

const part = (request: string, headers = 'Content-Type: application/http\r\n') => `--b1\r\n${headers}\r\n${request}\r\n\r\n`;
const post = (body: string, contentType = 'multipart/mixed; boundary=b1', auth = `Bearer ${token}`) =>
  fetch(`${fake.baseUrl}/batch/gmail/v1`, { method: 'POST', headers: { 'content-type': contentType, authorization: auth }, body });

test('the batch endpoint answers each call as an HTTP response in its own part, Content-ID prefixed with response-', async () => {
  const r = await post(part('GET /gmail/v1/users/me/messages/m1?format=full', 'Content-Type: application/http\r\nContent-ID: <a>\r\n') + part('GET /gmail/v1/users/me/messages/none') + '--b1--\r\n');
  assert.equal(r.status, 200);
  const boundary = r.headers.get('content-type')!.match(/^multipart\/mixed; boundary=(\S+)$/)![1];
  const parts = (await r.text()).split(`--${boundary}`).slice(1, -1);
  assert.equal(parts.length, 2);
  assert.match(parts[0], /Content-ID: <response-a>/);
  assert.match(parts[0], /HTTP\/1\.1 200 OK[\s\S]*"id":"m1"/);
  assert.match(parts[1], /HTTP\/1\.1 404 Not Found[\s\S]*"NOTFOUND"/);
});

test('the batch endpoint refuses what Gmail refuses, with 400', async () => {
  const ok = part('GET /gmail/v1/users/me/messages/m1');
  const refusals: [string, Response][] = [
    ['not multipart/mixed', await post(ok + '--b1--\r\n', 'application/json')],
    ['no boundary', await post(ok + '--b1--\r\n', 'multipart/mixed')],
    ['no closing delimiter', await post(ok)],
    ['a part not application/http', await post(part('GET /gmail/v1/users/me/messages/m1', 'Content-Type: text/plain\r\n') + '--b1--\r\n')],
    ['a full URL instead of a path', await post(part(`GET ${fake.baseUrl}/gmail/v1/users/me/messages/m1`) + '--b1--\r\n')],
    ['a call to another API', await post(part('GET /drive/v3/files') + '--b1--\r\n')],
    ['101 calls', await post(ok.repeat(101) + '--b1--\r\n')],
  ];
  for (const [why, r] of refusals) assert.equal(r.status, 400, why);
  assert.equal((await post(ok.repeat(100) + '--b1--\r\n')).status, 200, '100 calls are allowed');
});

test('the outer Authorization covers every call; without a valid one each call answers 401', async () => {
  const r = await post(part('GET /gmail/v1/users/me/messages/m1') + '--b1--\r\n', undefined, 'Bearer ya29.not-a-token');
  assert.equal(r.status, 200);
  assert.match(await r.text(), /HTTP\/1\.1 401 Unauthorized/);
});
