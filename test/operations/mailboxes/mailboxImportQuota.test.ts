import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../../harness.ts';
import { startImportHarness } from './importHarness.ts';
import { reading, pdf, type FakeAi } from '../invoices/helpers.ts';
import { connectMailbox, type FakeGmail, type FakeMail } from '../../fakes/gmail.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';

// A business allowed 5 AI readings a day imports 12 mails with one invoice each.
let h: Harness;
let fake: FakeGmail;
let ai: FakeAi;
let close: () => Promise<void>;
before(async () => ({ h, fake, ai, close } = await startImportHarness({ QUOTA_AI: '5', MAILBOX_IMPORT_PARALLELISM: '1' })));
after(() => close());

const T0 = Date.parse('2025-03-01T00:00:00Z');

test('when the AI quota runs out, the rest of the import stops with the reason on the import', async () => {
  const list: FakeMail[] = [];
  for (let i = 0; i < 12; i++) {
    const bytes = await pdf();
    ai.script(bytes, reading());
    list.push({ id: `q${i}`, from: `Supplier ${i} <s${i}@supplier.co.il>`, subject: `Invoice ${i}`, dateMs: T0 + (i + 1) * 60_000, body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'application/pdf', data: bytes, filename: `q${i}.pdf` }] } });
  }
  fake.add(...list);
  const biz = await h.newBusiness('Quota Co');
  const accountId = await connectMailbox(h, biz);
  const importId = 'q'.repeat(20);
  await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  await h.app.queue!.drain();
  const r = await h.call('mailboxImportStart', { accountId, since: T0, importId }, biz);
  assert.equal(r.status, 'stopped');
  assert.match(r.reason, /quota/i);
  const stored = await h.app.services.store.query({ collection: invoicesPath(biz.businessId) });
  assert.equal(stored.length, 5, 'the five readings the quota allowed are stored');
  assert.equal(ai.reads.length, 5, 'no mail after the stop reached the AI');
  assert.ok(r.seen < 12, `the import stopped before the end (${r.seen} of 12 seen)`);
});
