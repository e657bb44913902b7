import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGmail, gmailEnv, connectMailbox, type FakeGmail } from '../../fakes/gmail.ts';
import { mailsPath, seenIdOf, type ScannedMail } from '../../../functions/src/domain/mail/mailImport.ts';

let h: Harness;
let fake: FakeGmail;
let accountId: string;
before(async () => {
  fake = await startFakeGmail();
  h = await createHarness({ env: gmailEnv(fake) });
  accountId = await connectMailbox(h);
  // 90 mails scanned before sender, subject and date were kept.
  const batch = h.app.services.store.batch();
  for (let i = 0; i < 90; i++) {
    fake.add({ id: `old${i}`, from: `Supplier ${i} <s${i}@example.com>`, subject: `Invoice ${i}`, dateMs: Date.parse('2026-02-01T10:00:00Z') + i * 60_000, body: { mimeType: 'text/plain', data: Buffer.from('x') } });
    const seenId = seenIdOf(accountId, `old${i}`);
    const rec: ScannedMail = { seenId, accountId, messageId: `old${i}`, importId: 'legacy', from: '', subject: '', date: '', dateMs: 0, result: 'no_invoice', reason: '', invoices: 0, docIds: [], search: [], createdAt: '2026-02-02T00:00:00.000Z' };
    batch.set(mailsPath(h.owner.businessId, seenId), { ...rec });
  }
  await batch.commit();
});
after(async () => {
  await h.close();
  await fake.close();
});

test('backfill fills 40 mails a call and says how many remain; then mailsList finds them by sender', async () => {
  const runs: number[] = [];
  for (;;) {
    const r = await h.call('mailboxMailsBackfill');
    runs.push(r.filled);
    assert.equal(r.failed, 0);
    if (r.remaining === 0) break;
    assert.ok(runs.length < 5);
  }
  assert.deepEqual(runs, [40, 40, 10]);
  const m = (await h.app.services.store.get(mailsPath(h.owner.businessId, seenIdOf(accountId, 'old7'))))!.data as unknown as ScannedMail;
  assert.equal(m.subject, 'Invoice 7');
  assert.match(m.from, /Supplier 7/);
  assert.equal(m.date, new Date(Date.parse('2026-02-01T10:00:00Z') + 7 * 60_000).toISOString());
  assert.equal((await h.call('mailsList', { q: 'supplier' })).total, 90);
  assert.deepEqual(await h.call('mailboxMailsBackfill'), { filled: 0, failed: 0, remaining: 0 });
  const other = await h.newBusiness('Other');
  assert.deepEqual(await h.call('mailboxMailsBackfill', {}, other), { filled: 0, failed: 0, remaining: 0 });
});
