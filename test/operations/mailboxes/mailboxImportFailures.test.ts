import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { fakeAi, type FakeAi } from '../invoices/helpers.ts';
import { invoiceMails as sharedInvoiceMails } from './importHarness.ts';
import { startFakeGmail, gmailEnv, connectMailbox, type FakeFault, type FakeGmail } from '../../fakes/gmail.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { BATCH_ATTEMPTS, importsPath, mailsPath, RETRY_DELAYS_S } from '../../../functions/src/domain/mail/mailImport.ts';

/**
 * Issue 20, items 5 and 6: Gmail failing while an import runs, through the operations, the real local queue and the
 * fake Gmail spoiling its answers (a 500 with Gmail's backendError body, a 200 that is not JSON, a body cut off
 * half-way, an attachment with fewer bytes than its declared size). The clock is the test's, so the batches'
 * scheduled retries come due when the test says.
 */
let h: Harness;
let gmail: FakeGmail;
let ai: FakeAi;
let now = Date.now();
before(async () => {
  gmail = await startFakeGmail();
  ai = fakeAi();
  h = await createHarness({ env: { ...gmailEnv(gmail), MAILBOX_IMPORT_WAIT_MS: '0', MAILBOX_FETCH_RETRY_MS: '0' }, overrides: { ai, clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await gmail.close();
});

const T0 = Date.parse('2024-06-01T00:00:00Z');
const invoiceMails = (n: number, since: number, prefix: string) => sharedInvoiceMails(gmail, ai, n, since, prefix);

const importOf = async (biz: TestUser, importId: string) => (await h.app.services.store.get(importsPath(biz.businessId, importId)))!.data as any;
const mailOf = async (biz: TestUser, accountId: string, id: string) => (await h.app.services.store.get(mailsPath(biz.businessId, `${accountId}_${id}`)))?.data as any;
const invoiceCount = async (biz: TestUser) => (await h.app.services.store.query({ collection: invoicesPath(biz.businessId) })).length;

/** Runs the queue, then lets the next scheduled retry come due, until the import is no longer running; answers the rounds. */
async function settle(biz: TestUser, importId: string): Promise<number> {
  for (let round = 1; round <= BATCH_ATTEMPTS + 2; round++) {
    await h.app.queue!.drain();
    if ((await importOf(biz, importId)).status !== 'running') return round;
    now += Math.max(...RETRY_DELAYS_S) * 1000 + 1000;
  }
  assert.fail(`import ${importId} still running: ${JSON.stringify(await importOf(biz, importId))}`);
}

const deadTasks = async () => (await h.app.services.store.query({ collection: '_tasks' })).filter((t) => t.data.queue === 'mailboxImportBatch' && t.data.state === 'dead');

test('Gmail failing on every message: the batches give up on their own and the import ends failed with Gmail\'s error; a later import reads every mail', async () => {
  const biz = await h.newBusiness('Gmail Down');
  const accountId = await connectMailbox(h, biz);
  const since = T0;
  const mails = await invoiceMails(30, since, 'down');
  gmail.fault({ on: 'message', mode: '500', ids: mails.map((m) => m.id) });
  const importId = 'd'.repeat(20);
  const started = await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(started.status, 'running');
  assert.equal(started.total, 30);

  const rounds = await settle(biz, importId);
  assert.ok(rounds <= BATCH_ATTEMPTS + 1, `settled after ${rounds} rounds`);
  const r = await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(r.status, 'failed');
  assert.match(r.reason, /gave up after 5 runs: the mailbox provider answered 500: Internal error encountered\./);
  assert.match(r.reason, /30 mail\(s\) will be tried again/);
  assert.deepEqual([r.invoices, r.retryLater, r.resumesAt], [0, 30, null]);
  assert.deepEqual(await deadTasks(), [], 'the queue never had to give up: the batches did');
  const unread = await mailOf(biz, accountId, mails[0].id);
  assert.equal(unread.result, 'error');
  assert.equal(unread.willRetry, true);
  assert.match(unread.reason, /^not read: .*answered 500/);
  const listed = await h.call('mailsList', { accountId, result: 'error', limit: 50 }, biz);
  assert.equal(listed.total, 30);
  assert.ok(listed.items.every((m: any) => m.willRetry === true && m.attempts >= 1));

  // Gmail is back: the next import of the mailbox reads every mail, the failed import keeps its record.
  gmail.heal();
  const again = await h.call('mailboxImportStart', { accountId, since, importId: 'e'.repeat(20) }, biz);
  await settle(biz, again.importId);
  const done = await h.call('mailboxImportStart', { accountId, since, importId: again.importId }, biz);
  assert.equal(done.status, 'done');
  assert.deepEqual([done.seen, done.invoices, done.errors, done.retryLater], [30, 30, 0, 0]);
  assert.equal(await invoiceCount(biz), 30);
  assert.equal((await mailOf(biz, accountId, mails[0].id)).willRetry, false);
  assert.equal((await importOf(biz, importId)).status, 'failed');
});

test('Gmail failing on some messages only: the import ends partial, naming the error; what could be read was imported', async () => {
  const biz = await h.newBusiness('Gmail Flaky');
  const accountId = await connectMailbox(h, biz);
  const since = T0 + 86_400_000;
  const mails = await invoiceMails(30, since, 'some');
  const failing = mails.slice(0, 3).map((m) => m.id);
  gmail.fault({ on: 'message', mode: 'garbage', ids: failing });
  const importId = 'f'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  await settle(biz, importId);
  const r = await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(r.status, 'partial');
  assert.match(r.reason, /garbled or cut off/);
  assert.ok(r.invoices > 0 && r.invoices < 30, `${r.invoices} of 30 imported`);
  assert.equal(r.invoices + r.retryLater, 30, 'every mail is imported or waits for a retry');
  for (const id of failing) assert.equal((await mailOf(biz, accountId, id)).willRetry, true);
  gmail.heal();
});

test('15 invoices whose attachment fetch hit a 500, garbage, a cut-off or a short answer are not lost: retried within the import, then by the next import once the fault clears', async () => {
  const biz = await h.newBusiness('Attachments Flaky');
  const accountId = await connectMailbox(h, biz);
  const since = T0 + 2 * 86_400_000;
  const good = await invoiceMails(5, since, 'ok');
  const bad = await invoiceMails(15, since + 10_000, 'att');
  const modes: FakeFault[] = ['500', 'garbage', 'cut', 'short'];
  bad.forEach((m, i) => gmail.fault({ on: 'attachment', mode: modes[i % 4], ids: [m.id] }));
  const importId = 'g'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  const spoiledBefore = gmail.spoiled;
  await settle(biz, importId);
  const r = await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(r.status, 'partial');
  assert.deepEqual([r.seen, r.invoices, r.errors, r.retryLater], [20, 5, 15, 15]);
  assert.match(r.reason, /15 mail\(s\) will be tried again/);
  // Each run of the batch asked each attachment once in its batch request, then 3 times alone; the batch ran 5 times.
  assert.equal(gmail.spoiled - spoiledBefore, 15 * (1 + 3) * BATCH_ATTEMPTS);
  const reasons = await Promise.all(bad.map(async (m) => (await mailOf(biz, accountId, m.id)) as any));
  assert.ok(reasons.every((m) => m.result === 'error' && m.willRetry === true && m.attempts === BATCH_ATTEMPTS));
  assert.ok(reasons.some((m) => /answered 500/.test(m.reason)));
  assert.ok(reasons.some((m) => /garbled or cut off/.test(m.reason)));
  assert.ok(reasons.some((m) => /sent \d+ of the attachment's \d+ bytes/.test(m.reason)));
  assert.equal(await invoiceCount(biz), 5);

  // The fault clears; the next import of the mailbox (the same window) takes the 15 again, and only those.
  gmail.heal();
  const readsBefore = ai.reads.length;
  const later = 'h'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since, importId: later }, biz);
  await settle(biz, later);
  const l = await h.call('mailboxImportStart', { accountId, since, importId: later }, biz);
  assert.equal(l.status, 'done');
  assert.deepEqual([l.seen, l.invoices, l.errors, l.retryLater], [15, 15, 0, 0]);
  assert.equal(ai.reads.length - readsBefore, 15, 'only the 15 were read; the 5 done before were not');
  assert.equal(await invoiceCount(biz), 20);
  const after = await Promise.all(bad.map((m) => mailOf(biz, accountId, m.id)));
  assert.ok(after.every((m) => m.result === 'imported' && m.willRetry === false && m.attempts === BATCH_ATTEMPTS + 1 && m.importId === later));
});

test('a fault that clears within the tries costs nothing: the invoice is imported in the same run, the batch does not wait', async () => {
  const biz = await h.newBusiness('Blip');
  const accountId = await connectMailbox(h, biz);
  const since = T0 + 3 * 86_400_000;
  const mails = await invoiceMails(4, since, 'blip');
  gmail.fault({ on: 'attachment', mode: 'cut', ids: mails.map((m) => m.id), times: 2 });
  gmail.fault({ on: 'message', mode: '500', ids: [mails[0].id], times: 1 });
  const importId = 'i'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(await settle(biz, importId), 1, 'done in the first round, no retry scheduled');
  const r = await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  assert.equal(r.status, 'done');
  assert.deepEqual([r.invoices, r.errors, r.retryLater], [4, 0, 0]);
  gmail.heal();
});

test('a mailbox automation\'s next poll tries again the mails its import left in a temporary error', async () => {
  const biz = await h.newBusiness('Poll Retry');
  const accountId = await connectMailbox(h, biz);
  const a = await h.call('automationCreate', { type: 'mailbox_invoices', config: { accountId, labelId: null } }, biz);
  const mails = await invoiceMails(3, Date.now(), 'poll');
  gmail.fault({ on: 'attachment', mode: '500', ids: mails.map((m) => m.id) });
  const first = await h.call('automationRunNow', { id: a.id }, biz);
  assert.equal(first.import.found, 3);
  await settle(biz, first.import.importId);
  assert.equal((await importOf(biz, first.import.importId)).status, 'failed');
  gmail.heal();
  // No new mail has arrived; the poll still has work: the three to try again.
  const second = await h.call('automationRunNow', { id: a.id }, biz);
  assert.notEqual(second.import.importId, first.import.importId);
  assert.match(second.summary, /3 mail\(s\) to try again sent to import/);
  await settle(biz, second.import.importId);
  const [run] = (await h.call('automationRuns', { id: a.id }, biz)).items;
  assert.equal(run.import.status, 'done');
  assert.equal(run.import.invoices, 3);
  // Nothing is left to retry: a third poll finds no work.
  const third = await h.call('automationRunNow', { id: a.id }, biz);
  assert.equal(third.import, null);
});
