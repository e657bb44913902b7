import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../../harness.ts';
import { startImportHarness } from './importHarness.ts';
import { reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { mailsPath } from '../../../functions/src/domain/mail/mailImport.ts';

// Mails with several attachments: the mail's record sums them up, whichever of them came last.
let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close: () => Promise<void>;
before(async () => ({ h, fake, ai, close } = await startImportHarness()));
after(() => close());

const T0 = Date.parse('2025-05-01T00:00:00Z');
const attach = (data: Buffer, filename: string) => ({ mimeType: 'application/pdf', data, filename });

test('a mail of several attachments gets one record: imported with each new invoice, the duplicate and the broken file named in it', async () => {
  const [first, second, third, fourth] = [await pdf(), await pdf(), await pdf(), await pdf()];
  ai.script(first, reading({ number: 'A-1' }));
  ai.script(fourth, reading({ number: 'A-4' }));
  ai.script(second, reading({ number: 'A-2' }));
  ai.script(third, reading({ number: 'A-3' }));
  // The fake AI finds nothing legible in it (its fallback).
  const broken = Buffer.from('%PDF-1.4\nnot really a pdf');
  const biz = await h.newBusiness('Attachments Co');
  const accountId = await connectMailbox(h, biz);
  const importAll = async (importId: string, since: number) => {
    await h.call('mailboxImportStart', { accountId, since, importId }, biz);
    await h.app.queue!.drain();
    return h.call('mailboxImportStart', { accountId, since, importId }, biz);
  };
  // An earlier import brings the first invoice, so the next import's duplicates do not hang on the order of its mails.
  fake.add({ id: 'one', from: 'A <a@a.example>', subject: 'first', dateMs: T0 + 60_000, body: { mimeType: 'multipart/mixed', parts: [attach(first, 'first.pdf')] } });
  assert.equal((await importAll('m'.repeat(20), T0)).invoices, 1);
  fake.add(
    // A new invoice, then the first one again (a duplicate): imported, one invoice.
    { id: 'newdup', from: 'A <a@a.example>', subject: 'new and again', dateMs: T0 + 120_000, body: { mimeType: 'multipart/mixed', parts: [attach(second, 'second.pdf'), attach(first, 'first-again.pdf')] } },
    // A broken file, then a new invoice: imported, and the broken one is the reason shown.
    { id: 'brokennew', from: 'A <a@a.example>', subject: 'broken then new', dateMs: T0 + 180_000, body: { mimeType: 'multipart/mixed', parts: [attach(broken, 'broken.pdf'), attach(third, 'third.pdf')] } },
    // A new invoice, then a broken file: imported.
    { id: 'newbroken', from: 'A <a@a.example>', subject: 'new then broken', dateMs: T0 + 200_000, body: { mimeType: 'multipart/mixed', parts: [attach(fourth, 'fourth.pdf'), attach(broken, 'broken.pdf')] } },
    // Only duplicates: a duplicate, no invoice.
    { id: 'dups', from: 'A <a@a.example>', subject: 'all again', dateMs: T0 + 240_000, body: { mimeType: 'multipart/mixed', parts: [attach(first, 'again-1.pdf'), attach(first, 'again-2.pdf')] } },
  );
  const r = await importAll('n'.repeat(20), T0 + 90_000);
  assert.equal(r.status, 'done');
  assert.deepEqual([r.seen, r.invoices, r.duplicates, r.noInvoice, r.errors], [4, 3, 1, 0, 0]);
  const store = h.app.services.store;
  const mail = async (id: string) => (await store.get(mailsPath(biz.businessId, `${accountId}_${id}`)))!.data as any;
  const numberOf = async (docId: string) => ((await store.get(`${invoicesPath(biz.businessId)}/${docId}`))!.data as any).reading.number;
  const newdup = await mail('newdup');
  assert.equal(newdup.result, 'imported');
  assert.deepEqual(await Promise.all(newdup.docIds.map(numberOf)), ['A-2']);
  const brokennew = await mail('brokennew');
  assert.equal(brokennew.result, 'imported');
  assert.deepEqual(await Promise.all(brokennew.docIds.map(numberOf)), ['A-3']);
  assert.match(brokennew.reason, /broken\.pdf/);
  const newbroken = await mail('newbroken');
  assert.equal(newbroken.result, 'imported');
  assert.match(newbroken.reason, /broken\.pdf/);
  const dups = await mail('dups');
  assert.equal(dups.result, 'duplicate');
  assert.deepEqual(dups.docIds, []);
  assert.equal((await store.query({ collection: invoicesPath(biz.businessId) })).length, 4);
});
