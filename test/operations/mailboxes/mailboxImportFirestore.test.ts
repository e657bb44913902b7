/**
 * The mailbox import on Firestore, the production engine: the same path as on SQLite (mailboxImportStart, the
 * queue, batches that read their mails' records in one getAll and fetch through Gmail's batch endpoint, the invoice
 * and the mail's record in one transaction). Skipped unless a Firestore emulator is given (CI passes
 * TEST_FIRESTORE_EMULATOR_HOST), so only this test process talks to it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../../harness.ts';
import { invoiceMails as sharedInvoiceMails, startImportHarness } from './importHarness.ts';
import type { FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { IMPORT_BATCH } from '../../../functions/src/domain/mail/mailImport.ts';

const emulator = process.env.FIRESTORE_EMULATOR_HOST || process.env.TEST_FIRESTORE_EMULATOR_HOST;
const skip = emulator ? false : 'no Firestore emulator (TEST_FIRESTORE_EMULATOR_HOST is not set)';

let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close = async () => {};
before(async () => {
  if (!emulator) return;
  // firebase-admin reads these from the process (app.ts opens the store with them).
  process.env.FIRESTORE_EMULATOR_HOST = emulator;
  process.env.GCLOUD_PROJECT ??= 'demo-bfo';
  // Three mails at a time, not ten: on the emulator, the duplicate queries inside each mail's transaction contend
  // with the other mails' invoice writes, and ten at a time take about 50 s here (docs/performance.md, sixth pass).
  ({ h, fake, ai, close } = await startImportHarness({ STORE: 'firestore', FILES: 'local', CREDENTIALS_KEY: 'firestore-import-test-key', MAILBOX_FETCH_RETRY_MS: '0', MAILBOX_IMPORT_PARALLELISM: '3' }));
});
after(() => close());

const T0 = Date.parse('2025-09-01T00:00:00Z');

async function importAll(biz: Awaited<ReturnType<Harness['newBusiness']>>, accountId: string, since: number, importId: string) {
  await h.call('mailboxImportStart', { accountId, since, importId }, biz);
  await h.app.queue!.drain();
  return h.call('mailboxImportStart', { accountId, since, importId }, biz);
}

test('on Firestore, an import of two tasks stores every invoice once, records every mail, and a second import adds nothing', { skip }, async () => {
  assert.equal(h.app.services.config.store, 'firestore');
  const biz = await h.newBusiness('Firestore Import Ltd');
  const accountId = await connectMailbox(h, biz);
  const n = IMPORT_BATCH + 5;
  const mails = await sharedInvoiceMails(fake, ai, n, T0, 'fs');
  const r = await importAll(biz, accountId, T0, 'fs'.repeat(10));
  assert.equal(r.status, 'done');
  assert.deepEqual([r.seen, r.invoices, r.duplicates, r.errors, r.retryLater], [n, n, 0, 0, 0]);

  const listed = await h.call('invoicesList', { limit: 100 }, biz);
  assert.equal(listed.items.length, n);
  assert.equal(new Set(listed.items.map((i: { number: string | null }) => i.number)).size, n, "each mail's own reading");
  const seen = await h.call('mailsList', { accountId, limit: 100 }, biz);
  assert.equal(seen.items.length, n);
  assert.ok(seen.items.every((m: { result: string; invoices: number }) => m.result === 'imported' && m.invoices === 1));

  // The same span again: every mail has its final record, so nothing is fetched and nothing is stored twice.
  const from = fake.requests.length;
  const again = await importAll(biz, accountId, T0, 'ft'.repeat(10));
  assert.equal(again.status, 'done');
  assert.equal(again.invoices, 0);
  assert.equal(fake.requests.slice(from).filter((x) => mails.some((m) => x.path.includes(`/messages/${m.id}`))).length, 0);
  assert.equal((await h.call('invoicesList', { limit: 100 }, biz)).items.length, n);
});

test('on Firestore, the same invoice in two mails is stored once and the second mail is recorded as its duplicate', { skip }, async () => {
  const biz = await h.newBusiness('Firestore Duplicates Ltd');
  const accountId = await connectMailbox(h, biz);
  const since = T0 + 86_400_000;
  const [first] = await sharedInvoiceMails(fake, ai, 1, since, 'fd');
  fake.add({ ...first, id: `${first.id}copy`, dateMs: first.dateMs + 500 });
  const r = await importAll(biz, accountId, since, 'fd'.repeat(10));
  assert.equal(r.status, 'done');
  assert.deepEqual([r.seen, r.invoices, r.duplicates], [2, 1, 1]);
  const results = (await h.call('mailsList', { accountId, limit: 10 }, biz)).items.map((m: { result: string }) => m.result).sort();
  assert.deepEqual(results, ['duplicate', 'imported']);
});
