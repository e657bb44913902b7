import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createHarness, type Harness } from '../../harness.ts';
import { fakeAi, reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { startFakeGmail, gmailEnv, connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { importsPath, STALE_MS } from '../../../functions/src/domain/mail/mailImport.ts';

/**
 * Issue 20, item 15: the server is killed (kill -9) while an import batch runs. A second process on the same data
 * directory shows when the import resumes and, the holder being known gone, takes the batch over at once instead of
 * waiting for its lease.
 */
let h: Harness;
let gmail: FakeGmail;
let ai: FakeAi;
let now = Date.now();
before(async () => {
  gmail = await startFakeGmail();
  ai = fakeAi();
  h = await createHarness({ env: { ...gmailEnv(gmail), MAILBOX_IMPORT_WAIT_MS: '0' }, overrides: { ai, clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await gmail.close();
});

test('an import whose server was killed mid-batch says when it resumes, and the next process takes the batch over at once', { timeout: 120_000 }, async (t) => {
  const biz = await h.newBusiness('Killed Mid-Import');
  const accountId = await connectMailbox(h, biz);
  const since = Date.parse('2024-01-01T00:00:00Z');
  for (let i = 0; i < 3; i++) {
    const bytes = await pdf();
    ai.script(bytes, reading({ number: `K-${i}` }));
    gmail.add({ id: `k${i}`, from: 'Supplier <s@x.co.il>', subject: `Invoice ${i}`, dateMs: since + 1000 * (i + 1), body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'application/pdf', data: bytes, filename: `k${i}.pdf` }] } });
  }
  const importId = 'k'.repeat(20);
  const started = await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(started.status, 'running');

  // The other process: its queue claims the batch, which then waits on Gmail; it is killed there.
  gmail.delayMs = 600_000;
  const child = spawn(process.execPath, [fileURLToPath(new URL('./importWorker.ts', import.meta.url)), h.config.dataDir, JSON.stringify(gmailEnv(gmail))], { stdio: 'inherit' });
  t.after(() => void child.kill('SIGKILL'));
  const exited = new Promise((r) => child.once('exit', r));
  const asked = () => gmail.requests.some((r) => /\/messages\/k\d$/.test(r.path));
  for (let i = 0; !asked(); i++) {
    assert.ok(i < 1000, 'the worker never asked Gmail for a message');
    await new Promise((r) => setTimeout(r, 50));
  }
  const running = (await h.app.services.store.get(importsPath(biz.businessId, importId)))!.data as any;
  assert.ok(running.beatAt, 'the batch beats while it runs');
  child.kill('SIGKILL');
  await exited;
  gmail.delayMs = 0;

  const view = () => h.call('mailboxImportStart', { accountId, since, importId }, biz);
  const clock = now;
  // Moving (a fresh beat): no resume time.
  now = Date.parse(running.beatAt);
  assert.equal((await view()).resumesAt, null);
  // Silent for three beats: it says when the queue delivers the batch again at the latest.
  now = Date.parse(running.beatAt) + STALE_MS + 1000;
  const stalled = await view();
  assert.equal(stalled.status, 'running');
  assert.equal(stalled.resumesAt, new Date(Date.parse(running.beatAt) + h.app.services.tasks.redeliveryMs).toISOString());

  // This process's queue, before the killed worker's lease lapsed: the holder is gone, so the batch runs now.
  now = clock;
  const [task] = (await h.app.services.store.query({ collection: '_tasks' })).filter((d) => d.data.queue === 'mailboxImportBatch' && (d.data.payload as any).importId === importId);
  assert.ok(Number(task.data.runAt) > now, 'still leased to the killed worker');
  assert.equal(await h.app.queue!.drain(), 1);
  const done = await view();
  assert.equal(done.status, 'done');
  assert.deepEqual([done.seen, done.invoices, done.resumesAt], [3, 3, null]);
});
