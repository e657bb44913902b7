import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeSlack, slackEnv, connectChat, type FakeSlack } from '../../fakes/slack.ts';

let h: Harness;
let fake: FakeSlack;
let token: string;
before(async () => {
  fake = await startFakeSlack({ members: 460 });
  h = await createHarness({ env: slackEnv(fake) });
  token = await connectChat(h, fake);
});
after(async () => {
  await h.close();
  await fake.close();
});

const listCalls = () => fake.requests.filter((r) => r.method === 'users.list');

test('pages users.list by cursor past 450 members and leaves out bots, apps, deactivated members and Slackbot', async () => {
  const start = listCalls().length;
  const r = await h.call('chatListUsers');
  const calls = listCalls().slice(start);
  assert.equal(calls.length, 3, '464 members in pages of 200');
  assert.equal(calls[0].params.cursor, undefined);
  assert.ok(calls[1].params.cursor && calls[2].params.cursor && calls[1].params.cursor !== calls[2].params.cursor);
  for (const c of calls) {
    assert.equal(c.token, token);
    assert.equal(String(c.params.limit), '200');
  }
  assert.equal(r.workspace, 'Acme Workspace');
  assert.equal(r.total, 460);
  assert.equal(r.items.length, 460);
  assert.equal(r.truncated, false);
  const ids = new Set(r.items.map((u: any) => u.chatUserId));
  for (const gone of ['USLACKBOT', 'UBOT0001', 'UAPP0001', 'UGONE0001']) assert.equal(ids.has(gone), false, gone);
  assert.ok(ids.has('U0460PERSON'), 'a member from the last page');
  const first = r.items.find((u: any) => u.chatUserId === 'U0001PERSON');
  assert.deepEqual(first, { chatUserId: 'U0001PERSON', name: 'Person 0001', email: 'person0001@example.com', phone: '+972501000000', title: 'Role 0001', imported: false, employeeId: null });
});

test('members already imported are flagged with their employee id', async () => {
  const imported = await h.call('chatImportUsers', { ids: ['U0002PERSON', 'U0451PERSON'] });
  const r = await h.call('chatListUsers');
  const flagged = r.items.filter((u: any) => u.imported);
  assert.deepEqual(flagged.map((u: any) => u.chatUserId).sort(), ['U0002PERSON', 'U0451PERSON']);
  const byUser = Object.fromEntries(imported.items.map((e: any) => [e.chatUserId, e.id]));
  for (const u of flagged) assert.equal(u.employeeId, byUser[u.chatUserId]);
});

test('a ratelimited answer (429 with Retry-After) is waited out and retried', async () => {
  fake.rateLimitNext(1, 1, 'users.list');
  const start = fake.requests.length;
  const r = await h.call('chatListUsers');
  assert.equal(r.total, 460);
  const calls = fake.requests.slice(start).filter((x) => x.method === 'users.list');
  assert.equal(calls.length, 4, 'the limited page is asked for again');
  assert.equal(calls[0].params.cursor, undefined);
  assert.equal(calls[1].params.cursor, undefined);
});

test('a long Retry-After is not waited for inside a request: resource-exhausted with the wait', async () => {
  fake.rateLimitNext(1, 120, 'users.list');
  await assert.rejects(h.call('chatListUsers'), { code: 'resource-exhausted', message: /120 seconds/ });
});

test('not connected: failed-precondition pointing at chatConnectStart; another business never uses this token', async () => {
  const other = await h.newBusiness('Other Co');
  const calls = fake.requests.length;
  await assert.rejects(h.call('chatListUsers', {}, other), { code: 'failed-precondition', message: /chatConnectStart/ });
  assert.equal(fake.requests.length, calls);
});

test('is read-only and open-world', () => {
  const op = h.registry.get('chatListUsers')!;
  assert.equal(op.flags.readOnly, true);
  assert.equal(op.flags.openWorld, true);
});
