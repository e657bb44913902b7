import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSession, type MailboxSession } from '../../../functions/src/adapters/mailbox/gmail.ts';
import { startFakeGmail, FAKE_GMAIL_CLIENT, type FakeGmail } from '../../fakes/gmail.ts';

let fake: FakeGmail;
let session: MailboxSession;
before(async () => {
  fake = await startFakeGmail();
  fake.refreshTokens.push('1//refresh-for-adapter-test');
  session = await openSession({ ...FAKE_GMAIL_CLIENT, authUrl: fake.authUrl, tokenUrl: fake.tokenUrl, baseUrl: fake.baseUrl }, '1//refresh-for-adapter-test');
});
after(() => fake.close());

const mail = (id: string, i: number) => ({ id, from: 's@x.example', subject: id, dateMs: Date.parse('2026-01-01T00:00:00Z') + i, body: { mimeType: 'text/plain', data: Buffer.from('hi') } });

test('history listing stopped at max hands back a cursor that goes on from there: no mail is skipped', async () => {
  const start = await session.historyId();
  fake.pageSize = 4; // several history pages
  fake.add(...Array.from({ length: 10 }, (_, i) => mail(`h${i}`, i)));
  const first = await session.listHistory({ startHistoryId: start, max: 6 });
  assert.equal(first.truncated, true);
  assert.deepEqual(first.messages.map((m) => m.id), ['h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
  assert.notEqual(first.historyId, String(fake.historyId), 'not the mailbox\'s newest id, or h6-h9 would be lost');
  const rest = await session.listHistory({ startHistoryId: first.historyId, max: 6 });
  assert.equal(rest.truncated, false);
  assert.deepEqual(rest.messages.map((m) => m.id), ['h6', 'h7', 'h8', 'h9']);
  assert.equal(rest.historyId, String(fake.historyId), 'read to the end: the mailbox\'s current id');
  const none = await session.listHistory({ startHistoryId: rest.historyId, max: 6 });
  assert.deepEqual(none, { messages: [], historyId: String(fake.historyId), truncated: false });
});
