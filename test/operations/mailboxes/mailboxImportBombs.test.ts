import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../../harness.ts';
import { startImportHarness } from './importHarness.ts';
import { reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { mailsPath } from '../../../functions/src/domain/mail/mailImport.ts';
import { objectStreamBombPdf, rssGrowth } from '../../core/bombs.ts';

let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close: () => Promise<void>;
before(async () => ({ h, fake, ai, close } = await startImportHarness()));
after(() => close());

const T0 = Date.parse('2025-03-01T00:00:00Z');

test('a mail attachment that is a PDF bomb is neither read nor stored: the mail ends in error naming the file; its neighbour is imported; memory stays flat', async () => {
  const good = await pdf();
  ai.script(good, reading({ number: 'OK-1' }));
  const bomb = await objectStreamBombPdf(700);
  fake.add(
    { id: 'bomb', from: 'x@attacker.example', subject: 'Invoice', dateMs: T0 + 1000, body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'application/pdf', data: bomb, filename: 'bomb.pdf' }] } },
    { id: 'fine', from: 's@supplier.co.il', subject: 'Invoice', dateMs: T0 + 2000, body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'application/pdf', data: good, filename: 'fine.pdf' }] } },
  );
  const biz = await h.newBusiness('Bomb Co');
  const accountId = await connectMailbox(h, biz);
  const reads = ai.reads.length;
  const { growthMb, result } = await rssGrowth(async () => {
    await h.call('mailboxImportStart', { accountId, since: T0, importId: 'd'.repeat(20) }, biz);
    await h.app.queue!.drain();
  });
  assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
  const store = h.app.services.store;
  const mail = (await store.get(mailsPath(biz.businessId, `${accountId}_bomb`)))!.data;
  assert.equal(mail.result, 'error');
  assert.match(String(mail.reason), /bomb\.pdf: the PDF expands to more than 128 MB/);
  const stored = (await store.query({ collection: invoicesPath(biz.businessId) })).map((d) => d.data as any);
  assert.deepEqual(stored.map((d) => d.fileName), ['fine.pdf']);
  assert.deepEqual(ai.reads.slice(reads).map((f) => f.fileName), ['fine.pdf'], 'the bomb was not sent to the AI');
});
