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

const withPdf = (id: string, i: number) => ({ ...mail(id, i), body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'text/plain', data: Buffer.from('see attached') }, { mimeType: 'application/pdf', data: Buffer.from(`%PDF-1.4 ${id}`), filename: `${id}.pdf` }] } });
const batchPosts = () => fake.requests.filter((r) => r.path === '/batch/gmail/v1').length;
const attachmentOf = (m: { payload: { parts?: { body?: { attachmentId?: string | null } }[] } }) => m.payload.parts![1].body!.attachmentId!;

test('getMessages and getAttachments read many mails in one batch request each, every answer in its place', async () => {
  fake.add(...Array.from({ length: 5 }, (_, i) => withPdf(`b${i}`, i)));
  const posts = batchPosts();
  const singles = fake.requests.filter((r) => /\/messages\/b\d$/.test(r.path)).length;
  const mails = await session.getMessages!(['b3', 'b0', 'missing', 'b4']);
  assert.equal(batchPosts(), posts + 1, 'one request for the four calls');
  assert.deepEqual(mails.map((m) => (m instanceof Error ? `${m.name}:${(m as any).failure}` : m.id)), ['b3', 'b0', 'MailboxError:not_found', 'b4']);
  const ok = mails.filter((m) => !(m instanceof Error)) as Awaited<ReturnType<MailboxSession['getMessage']>>[];
  const files = await session.getAttachments!(ok.map((m) => ({ messageId: m.id, attachmentId: attachmentOf(m) })));
  assert.equal(batchPosts(), posts + 2);
  assert.deepEqual(files.map((f) => (f instanceof Error ? f.message : f.toString())), ['%PDF-1.4 b3', '%PDF-1.4 b0', '%PDF-1.4 b4']);
  // Each call inside the batch is still the documented messages.get / attachments.get path, and none went singly.
  assert.equal(fake.requests.filter((r) => /\/messages\/b\d$/.test(r.path)).length, singles + 3, 'each found mail asked once, inside the batch');
});

test('a call that fails inside a batch is that call\'s MailboxError; the others are unaffected', async () => {
  fake.add(...Array.from({ length: 4 }, (_, i) => withPdf(`f${i}`, 100 + i)));
  const mails = (await session.getMessages!(['f0', 'f1', 'f2', 'f3'])) as Awaited<ReturnType<MailboxSession['getMessage']>>[];
  const modes = ['500', 'garbage', 'short'] as const;
  modes.forEach((mode, i) => fake.fault({ on: 'attachment', mode, ids: [`f${i}`], times: 1 }));
  const files = await session.getAttachments!(mails.map((m) => ({ messageId: m.id, attachmentId: attachmentOf(m) })));
  assert.deepEqual(files.map((f) => (f instanceof Error ? (f as any).failure : 'bytes')), ['unavailable', 'unavailable', 'unavailable', 'bytes']);
  assert.match((files[0] as Error).message, /answered 500/);
  assert.match((files[2] as Error).message, /sent \d+ of the attachment's \d+ bytes/);
  fake.heal();
});

test('a batch answer cut off mid-way fails each of its calls as unavailable, so they can be asked again one by one', async () => {
  fake.add(withPdf('c0', 200), withPdf('c1', 201));
  fake.fault({ on: 'message', mode: 'cut', ids: ['c1'], times: 1 });
  const mails = await session.getMessages!(['c0', 'c1']);
  assert.deepEqual(mails.map((m) => (m instanceof Error ? (m as any).failure : 'mail')), ['unavailable', 'unavailable']);
  assert.equal((await session.getMessage('c1', 'full')).id, 'c1', 'asked alone afterwards, it answers');
  fake.heal();
});

test('more calls than a batch takes go in several batch requests of at most 50', async () => {
  fake.add(...Array.from({ length: 120 }, (_, i) => mail(`n${i}`, 300 + i)));
  const before = fake.requests.length;
  const mails = await session.getMessages!(Array.from({ length: 120 }, (_, i) => `n${i}`));
  assert.equal(mails.filter((m) => !(m instanceof Error)).length, 120);
  const posts = fake.requests.slice(before);
  assert.equal(posts.filter((r) => r.path === '/batch/gmail/v1').length, 3, '50 + 50 + 20');
});
