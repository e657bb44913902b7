import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import type { Harness, TestUser } from '../../harness.ts';
import { startImportHarness } from './importHarness.ts';
import { reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, encodedWord, type FakeGmail, type FakeMail } from '../../fakes/gmail.ts';
import { pngBytes } from '../../fakes/pdfs.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { importsPath, mailsPath, runImportBatch } from '../../../functions/src/domain/mail/mailImport.ts';

let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close: () => Promise<void>;
before(async () => ({ h, fake, ai, close } = await startImportHarness()));
after(() => close());

const T0 = Date.parse('2025-03-01T00:00:00Z');
const text = (s: string, charset = 'UTF-8') => ({ mimeType: 'text/plain', charset, data: charset === 'UTF-8' ? Buffer.from(s, 'utf8') : Buffer.from(s, 'latin1') });
const attach = (data: Buffer, filename = 'invoice.pdf', mimeType = 'application/pdf') => ({ mimeType, data, filename });
const docs = async (biz: TestUser) => (await h.app.services.store.query({ collection: invoicesPath(biz.businessId) })).map((d) => d.data as any);
const tasks = async () => (await h.app.services.store.query({ collection: '_tasks' })).filter((t) => t.data.queue === 'mailboxImportBatch');

let mails: { dup: Buffer; forwarded: Buffer } | null = null;
/** 60 mails: 54 with one invoice each (one of them the duplicated file), an inline logo only, a forwarded invoice, a duplicate, a Hebrew no-invoice mail (windows-1255), a broken PDF, a plain note. */
async function seedMails() {
  if (mails) return mails;
  const dup = await pdf();
  ai.script(dup, reading({ number: 'DUP-1' }));
  const forwarded = await pdf();
  ai.script(forwarded, reading({ number: 'FWD-1' }));
  const list: FakeMail[] = [];
  for (let i = 0; i < 54; i++) {
    const bytes = await pdf();
    ai.script(bytes, reading());
    list.push({ id: `m${i}`, from: `Supplier ${i} <s${i}@supplier.co.il>`, subject: `Invoice ${i}`, dateMs: T0 + (i + 1) * 60_000, body: { mimeType: 'multipart/mixed', parts: [text('see attached'), attach(bytes, `inv${i}.pdf`)] } });
  }
  list[0].body = { mimeType: 'multipart/mixed', parts: [text('see attached'), attach(dup, 'dup-a.pdf')] };
  list.push(
    { id: 'logo', from: 'news@shop.example', subject: 'Newsletter', dateMs: T0 + 100, body: { mimeType: 'multipart/related', parts: [{ mimeType: 'text/html', data: Buffer.from('<p>hi<img src="cid:logo1"></p>') }, { mimeType: 'image/png', data: pngBytes('logo'), filename: 'logo.png', inline: true, contentId: 'logo1' }] } },
    {
      id: 'fwd',
      from: 'Boss <boss@example.co.il>',
      subject: 'Fwd: invoice',
      dateMs: T0 + 200,
      body: { mimeType: 'multipart/mixed', parts: [text('fyi'), { mimeType: 'message/rfc822', parts: [{ mimeType: 'multipart/mixed', parts: [text('original'), attach(forwarded, 'orig.pdf')] }] }] },
    },
    { id: 'dup2', from: 'Acme <a@acme.example>', subject: 'Invoice again', dateMs: T0 + 300, body: { mimeType: 'multipart/mixed', parts: [text('again'), attach(dup, 'dup-b.pdf')] } },
    { id: 'heb', from: encodedWord('ספק') + ' <x@y.co.il>', subject: encodedWord('שלום, אין חשבונית'), dateMs: T0 + 400, body: { mimeType: 'text/plain', charset: 'windows-1255', data: Buffer.from([0xf9, 0xec, 0xe5, 0xed]) } },
    { id: 'broken', from: 'bad@x.example', subject: 'Broken', dateMs: T0 + 500, body: { mimeType: 'multipart/mixed', parts: [text('x'), attach(Buffer.from('%PDF-1.4\nnot really a pdf'), 'broken.pdf')] } },
    { id: 'note', from: 'friend@x.example', subject: 'Lunch?', dateMs: T0 + 600, body: text('lunch tomorrow?') },
  );
  // One mail before `since`: not looked at.
  list.push({ id: 'old', from: 'o@x', subject: 'old', dateMs: T0 - 86_400_000, body: { mimeType: 'multipart/mixed', parts: [attach(await pdf())] } });
  fake.add(...list);
  mails = { dup, forwarded };
  return mails;
}

test('an import of 60 mails: attachments read, inline images ignored, a forwarded invoice, a duplicate, no-invoice, a broken PDF; then the same importId again', async () => {
  await seedMails();
  const biz = await h.newBusiness('Import Co');
  const accountId = await connectMailbox(h, biz);
  const importId = 'a'.repeat(20);
  const first = await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  assert.equal(first.importId, importId);
  assert.equal(first.status, 'running');
  assert.equal(first.total, 60);
  assert.equal((await tasks()).length, 3, '60 mails in batches of 25');
  await h.app.queue!.drain();
  const r = await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  assert.equal(r.status, 'done');
  assert.deepEqual([r.seen, r.invoices, r.duplicates, r.noInvoice, r.errors], [60, 55, 1, 3, 1]);
  assert.equal((await tasks()).length, 3, 'the second start enqueued nothing');
  const stored = await docs(biz);
  assert.equal(stored.length, 55);
  assert.ok(stored.every((d) => d.source === 'mailbox' && d.mailbox.accountId === accountId));
  const fwd = stored.find((d) => d.reading?.number === 'FWD-1');
  assert.equal(fwd.mailbox.subject, 'Fwd: invoice');
  assert.equal(fwd.fileName, 'orig.pdf');
  assert.ok(!ai.reads.some((f) => f.fileName === 'logo.png'), 'the inline logo was not read');
  const store = h.app.services.store;
  const heb = (await store.get(mailsPath(biz.businessId, `${accountId}_heb`)))!.data;
  assert.equal(heb.subject, 'שלום, אין חשבונית');
  assert.match(String(heb.from), /^ספק/);
  assert.equal(heb.result, 'no_invoice');
  const broken = (await store.get(mailsPath(biz.businessId, `${accountId}_broken`)))!.data;
  assert.equal(broken.result, 'error');
  assert.match(String(broken.reason), /broken\.pdf/);
  assert.equal(await store.get(mailsPath(biz.businessId, `${accountId}_old`)), null);
  // Each invoice's file is recorded with it (in its transaction); the duplicate's and the broken PDF's left neither a record nor bytes.
  const fileRecords = await store.query({ collection: `businesses/${biz.businessId}/files` });
  assert.deepEqual(fileRecords.map((d) => d.id).sort(), stored.map((d) => d.fileId).sort());
  // Bytes kept for this business: small files are rows of files.sqlite (adapters/local-files), larger ones files.
  const dir = join(h.app.services.config.dataDir, 'files', biz.businessId);
  const db = new DatabaseSync(join(h.app.services.config.dataDir, 'files.sqlite'));
  const rows = db.prepare('SELECT id FROM files WHERE id LIKE ?').all(`${biz.businessId}/%`).map((r) => String(r.id).split('/')[1]);
  db.close();
  const kept = [...rows, ...(existsSync(dir) ? readdirSync(dir) : [])];
  assert.deepEqual(kept.sort(), stored.map((d) => d.fileId).sort());
  const file = await h.app.services.files.open(new URL(fwd.file?.url ?? (await h.app.services.files.ref(biz.businessId, fwd.fileId))!.url).pathname.split('/')[2]);
  assert.deepEqual(file?.bytes, mails!.forwarded, 'the link of an imported file opens its bytes');
  // Another business sees none of it.
  const stranger = await h.newBusiness('Stranger');
  await assert.rejects(h.call('mailboxImportStart', { accountId, since: T0, importId }, stranger), (e: any) => e.code === 'not-found');
});

test('a task retried after a crash imports nothing twice', async () => {
  await seedMails();
  const biz = await h.newBusiness('Retry Co');
  const accountId = await connectMailbox(h, biz);
  const importId = 'b'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  const [task] = (await tasks()).filter((t) => (t.data.payload as any).importId === importId && (t.data.payload as any).businessId === biz.businessId);
  await runImportBatch(h.app.services, task.data.payload as any);
  const afterFirst = (await h.app.services.store.get(importsPath(biz.businessId, importId)))!.data;
  const docsFirst = (await docs(biz)).length;
  const reads = ai.reads.length;
  const gets = fake.gets();
  // The crash: the batch ran but its completion marker was lost, so the queue delivers it again.
  await h.app.services.store.delete(`${importsPath(biz.businessId, importId)}/batches/0`);
  await runImportBatch(h.app.services, task.data.payload as any);
  const afterRetry = (await h.app.services.store.get(importsPath(biz.businessId, importId)))!.data;
  assert.equal((await docs(biz)).length, docsFirst);
  assert.equal(ai.reads.length, reads, 'no AI reading twice');
  assert.equal(fake.gets(), gets, 'no mail fetched twice');
  assert.deepEqual([afterRetry.seen, afterRetry.invoices], [afterFirst.seen, afterFirst.invoices]);
  assert.equal(afterRetry.seen, 25);
});

test('cancel midway: the import ends canceled with what was done so far', async () => {
  await seedMails();
  const biz = await h.newBusiness('Cancel Co');
  const accountId = await connectMailbox(h, biz);
  const importId = 'c'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  const mine = (await tasks()).filter((t) => (t.data.payload as any).businessId === biz.businessId);
  await runImportBatch(h.app.services, mine[0].data.payload as any);
  const c = await h.call('mailboxImportCancel', { importId }, biz);
  assert.equal(c.status, 'canceled');
  await h.app.queue!.drain();
  const r = await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  assert.equal(r.status, 'canceled');
  assert.equal(r.seen, 25, 'nothing after the cancel');
  assert.equal((await h.app.services.store.query({ collection: mailsPath(biz.businessId) })).length, 25);
});
