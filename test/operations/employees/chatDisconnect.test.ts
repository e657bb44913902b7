import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeSlack, slackEnv, connectChat, type FakeSlack } from '../../fakes/slack.ts';
import { chatConnectionPath } from '../../../functions/src/domain/people/chat.ts';

let h: Harness;
let fake: FakeSlack;
before(async () => {
  fake = await startFakeSlack();
  h = await createHarness({ env: slackEnv(fake) });
});
after(async () => {
  await h.close();
  await fake.close();
});

test('revokes the token at Slack (auth.revoke) and forgets it; imported employees stay', async () => {
  const token = await connectChat(h, fake);
  await h.call('chatImportUsers', { ids: ['U0001PERSON'] });
  assert.deepEqual(await h.call('chatDisconnect'), { connected: false, removed: true, revoked: true });
  const revoke = fake.requests.find((r) => r.method === 'auth.revoke')!;
  assert.equal(revoke.token, token);
  assert.equal(await h.app.services.store.get(chatConnectionPath(h.owner.businessId)), null);
  assert.equal((await h.call('chatStatus')).connected, false);
  await assert.rejects(h.call('chatListUsers'), { code: 'failed-precondition', message: /not connected/ });
  assert.equal((await h.call('employeesList')).total, 1);
  const { items } = await h.call('listActivity');
  assert.ok(items.some((r: any) => r.operation === 'chatDisconnect' && r.summary === 'disconnected Slack'));
});

test('not connected is not an error', async () => {
  const other = await h.newBusiness('Never Connected');
  assert.deepEqual(await h.call('chatDisconnect', {}, other), { connected: false, removed: false, revoked: false });
});

test('a token Slack already refuses is forgotten anyway', async () => {
  await connectChat(h, fake);
  fake.killTokens('token_revoked');
  assert.deepEqual(await h.call('chatDisconnect'), { connected: false, removed: true, revoked: false });
  assert.equal(await h.app.services.store.get(chatConnectionPath(h.owner.businessId)), null);
});

test('Slack not answering: unavailable, and the connection is kept so the revoke can be retried', async () => {
  await connectChat(h, fake);
  fake.failNext(503);
  await assert.rejects(h.call('chatDisconnect'), { code: 'unavailable' });
  assert.ok(await h.app.services.store.get(chatConnectionPath(h.owner.businessId)));
  assert.equal((await h.call('chatDisconnect')).revoked, true);
});

test("disconnecting one business leaves another's connection alone", async () => {
  const other = await h.newBusiness('Other Co');
  const otherToken = await connectChat(h, fake, other);
  await connectChat(h, fake);
  await h.call('chatDisconnect');
  assert.equal((await h.call('chatStatus', {}, other)).connected, true);
  assert.equal(fake.requests.filter((r) => r.method === 'auth.revoke' && r.token === otherToken).length, 0);
});

test('is flagged dangerous', () => {
  assert.equal(h.registry.get('chatDisconnect')!.flags.dangerous, true);
});
