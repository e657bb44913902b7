import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../../harness.ts';
import { invoiceMails as sharedInvoiceMails, startImportHarness } from './importHarness.ts';
import type { FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { IMPORT_BATCH } from '../../../functions/src/domain/mail/mailImport.ts';

// How an import asks Gmail for its mails: a task's mails in one batch request, their attachments in another
// (issue 23), and one by one only for what a batch did not bring back whole.
let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close: () => Promise<void>;
before(async () => ({ h, fake, ai, close } = await startImportHarness({ MAILBOX_FETCH_RETRY_MS: '0' })));
after(() => close());

const T0 = Date.parse('2025-07-01T00:00:00Z');
const invoiceMails = (n: number, since: number, prefix: string) => sharedInvoiceMails(fake, ai, n, since, prefix);

async function importAll(biz: Awaited<ReturnType<Harness['newBusiness']>>, accountId: string, since: number, importId: string) {
  await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  await h.app.queue!.drain();
  return h.call('mailboxImportStart', { accountId, since, importId }, biz);
}

/** messages.get and attachments.get calls for these mails, split by whether they came inside a batch request. */
function fetches(from: number, ids: string[]) {
  const mine = fake.requests.slice(from).filter((r) => ids.some((id) => r.path.includes(`/messages/${id}`)));
  return { inBatch: mine.filter((r) => r.inBatch).length, alone: mine.filter((r) => !r.inBatch).map((r) => r.path.replace(/^.*\/messages\//, '')) };
}

test('an import asks Gmail for a task\'s mails in one batch request and for their attachments in another, nothing one by one', async () => {
  const biz = await h.newBusiness('Batch Fetch Ltd');
  const accountId = await connectMailbox(h, biz);
  const mails = await invoiceMails(10, T0, 'bf');
  const from = fake.requests.length;
  const r = await importAll(biz, accountId, T0, 'bf'.repeat(10));
  assert.equal(r.status, 'done');
  assert.equal(r.invoices, 10);
  const f = fetches(from, mails.map((m) => m.id));
  assert.deepEqual(f, { inBatch: 20, alone: [] }, 'ten mails and ten attachments, all inside batches');
  const posts = fake.requests.slice(from).filter((x) => x.path === '/batch/gmail/v1').length;
  assert.equal(posts, 2 * Math.ceil(10 / IMPORT_BATCH), 'two batch requests a task (of up to 25 mails)');
});

test('a mail or attachment that failed inside the batch is asked for again alone, and imported in the same run', async () => {
  const biz = await h.newBusiness('Batch Retry Ltd');
  const accountId = await connectMailbox(h, biz);
  const since = T0 + 86_400_000;
  const mails = await invoiceMails(6, since, 'br');
  fake.fault({ on: 'message', mode: '500', ids: [mails[1].id], times: 1 });
  fake.fault({ on: 'attachment', mode: 'garbage', ids: [mails[4].id], times: 1 });
  const from = fake.requests.length;
  const r = await importAll(biz, accountId, since, 'br'.repeat(10));
  fake.heal();
  assert.equal(r.status, 'done');
  assert.deepEqual([r.seen, r.invoices, r.errors, r.retryLater], [6, 6, 0, 0]);
  const f = fetches(from, mails.map((m) => m.id));
  // The mail whose get failed in the batch is asked alone, then its attachment too (it was not known in time).
  assert.deepEqual(f.alone.map((p) => p.split('/')[0]).sort(), [mails[1].id, mails[1].id, mails[4].id].sort());
});

test('an import of mails already imported asks Gmail for none of them', async () => {
  const biz = await h.newBusiness('Batch Again Ltd');
  const accountId = await connectMailbox(h, biz);
  const since = T0 + 2 * 86_400_000;
  const mails = await invoiceMails(4, since, 'ba');
  assert.equal((await importAll(biz, accountId, since, 'ba'.repeat(10))).invoices, 4);
  const from = fake.requests.length;
  const again = await importAll(biz, accountId, since, 'bb'.repeat(10));
  assert.equal(again.status, 'done');
  assert.deepEqual(fetches(from, mails.map((m) => m.id)), { inBatch: 0, alone: [] });
});
