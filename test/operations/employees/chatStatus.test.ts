import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeSlack, slackEnv, connectChat, type FakeSlack } from '../../fakes/slack.ts';

let h: Harness;
let fake: FakeSlack;
const now = Date.parse('2026-06-01T08:30:00Z');
before(async () => {
  fake = await startFakeSlack();
  h = await createHarness({ env: slackEnv(fake), overrides: { clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await fake.close();
});

test('not connected: says so, without calling Slack', async () => {
  const before = fake.requests.length;
  const s = await h.call('chatStatus');
  assert.deepEqual(s, { connected: false, workspace: null, teamId: null, connectedAt: null, needsReconnect: false, message: 'Slack is not connected; call chatConnectStart to connect it' });
  assert.equal(fake.requests.length, before);
});

test('connected: the workspace name and when, checked live with auth.test', async () => {
  const token = await connectChat(h, fake);
  const s = await h.call('chatStatus');
  assert.equal(s.connected, true);
  assert.equal(s.workspace, 'Acme Workspace');
  assert.equal(s.teamId, 'T0FAKE01');
  assert.equal(s.connectedAt, new Date(now).toISOString());
  assert.equal(s.needsReconnect, false);
  const check = fake.requests.at(-1)!;
  assert.equal(check.method, 'auth.test');
  assert.equal(check.token, token);
  assert.equal(check.headers.authorization, `Bearer ${token}`);
});

test('a token Slack refuses (invalid_auth) → not connected, needsReconnect, and the message says reconnect', async () => {
  await connectChat(h, fake);
  fake.killTokens('invalid_auth');
  const s = await h.call('chatStatus');
  assert.equal(s.connected, false);
  assert.equal(s.needsReconnect, true);
  assert.equal(s.workspace, 'Acme Workspace');
  assert.match(s.message, /invalid_auth/);
  assert.match(s.message, /reconnect/);
  assert.match(s.message, /chatConnectStart/);
  // The other chat operations say the same.
  await assert.rejects(h.call('chatListUsers'), { code: 'failed-precondition', message: /invalid_auth.*connect again/ });
  await assert.rejects(h.call('chatImportUsers', { ids: ['U0001PERSON'] }), { code: 'failed-precondition', message: /chatConnectStart/ });
  // Connecting again clears it.
  await connectChat(h, fake);
  assert.equal((await h.call('chatStatus')).connected, true);
});

test('a revoked token (token_revoked) also says reconnect', async () => {
  await connectChat(h, fake);
  fake.killTokens('token_revoked');
  const s = await h.call('chatStatus');
  assert.equal(s.needsReconnect, true);
  assert.match(s.message, /token_revoked/);
});

test('Slack not answering is unavailable, not a broken connection', async () => {
  await connectChat(h, fake);
  fake.failNext(502);
  await assert.rejects(h.call('chatStatus'), { code: 'unavailable' });
  assert.equal((await h.call('chatStatus')).connected, true);
});

test("another business sees its own status only", async () => {
  await connectChat(h, fake);
  const other = await h.newBusiness('Other Co');
  assert.equal((await h.call('chatStatus', {}, other)).connected, false);
});
