import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../../harness.ts';
import { startImportHarness } from './importHarness.ts';
import { reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { runImportBatch } from '../../../functions/src/domain/mail/mailImport.ts';

/** mailboxImportGet: the import's progress as it stands, without waiting (the dashboard's progress bar polls it). */
let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close: () => Promise<void>;
  // The start answers at once; the batches run only when the test says.
before(async () => ({ h, fake, ai, close } = await startImportHarness()));
after(() => close());

const T0 = Date.parse('2025-05-01T00:00:00Z');

test('progress moves batch by batch: running 0/30, then 25/30, then done 30/30, each read without waiting', async () => {
  for (let i = 0; i < 30; i++) {
    const bytes = await pdf();
    ai.script(bytes, reading());
    fake.add({ id: `g${i}`, from: `S ${i} <s${i}@x.example>`, subject: `Invoice ${i}`, dateMs: T0 + (i + 1) * 60_000, body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'application/pdf', data: bytes, filename: `i${i}.pdf` }] } });
  }
  const biz = await h.newBusiness('Progress Co');
  const accountId = await connectMailbox(h, biz);
  const importId = 'p'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  const start = await h.call('mailboxImportGet', { importId }, biz);
  assert.deepEqual([start.status, start.seen, start.total, start.accountId], ['running', 0, 30, accountId]);

  const tasks = (await h.app.services.store.query({ collection: '_tasks' })).filter((t) => t.data.queue === 'mailboxImportBatch' && (t.data.payload as any).importId === importId);
  assert.equal(tasks.length, 2);
  await runImportBatch(h.app.services, tasks[0].data.payload as any);
  const half = await h.call('mailboxImportGet', { importId }, biz);
  assert.deepEqual([half.status, half.seen, half.invoices], ['running', 25, 25]);

  await h.app.queue!.drain();
  const done = await h.call('mailboxImportGet', { importId }, biz);
  assert.deepEqual([done.status, done.seen, done.invoices, done.errors], ['done', 30, 30, 0]);

  // Another business cannot read it; an unknown or malformed id is refused naming the field.
  const stranger = await h.newBusiness('Stranger Co');
  await assert.rejects(h.call('mailboxImportGet', { importId }, stranger), (e: any) => e.code === 'not-found' && /^importId: /.test(e.message));
  await assert.rejects(h.call('mailboxImportGet', { importId: 'q'.repeat(20) }, biz), (e: any) => e.code === 'not-found' && /^importId: /.test(e.message));
  await assert.rejects(h.call('mailboxImportGet', { importId: 'NOT-AN-ID' }, biz), (e: any) => e.code === 'invalid-argument' && /importId/.test(e.message));
});
