import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import yauzl from 'yauzl';
import { invoicesEnv, upload, reading, type InvoicesEnv } from '../invoices/helpers.ts';
import { startSmtp, parseMail, mailAttachments } from '../../fakes/smtp.ts';
import { accPackageEmail, ATTACH_ZIP_UNDER_BYTES } from '../../../functions/src/domain/accountant/monthPackage.ts';

let env: InvoicesEnv;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
  env = await invoicesEnv({ env: { SMTP_URL: smtp.url } });
});
after(async () => {
  await env.close();
  await smtp.close();
});

const unzipNames = (bytes: Buffer) =>
  new Promise<string[]>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on('entry', (e) => (names.push(e.fileName), zip.readEntry()));
      zip.on('end', () => resolve(names));
      zip.readEntry();
    }),
  );

test("accZipSend mails the accountant's ZIP of the month range through the outbox, attached, to each recipient", async () => {
  const { h } = env;
  await upload(env, reading({ issuer: { name: 'Acme' }, number: 'A-1', date: '2025-03-10', totalMinor: 11_800 }));
  await upload(env, reading({ issuer: { name: 'Beta' }, number: 'B-1', date: '2025-05-02', totalMinor: 5_000 }));
  await h.call('accFolderCreate', { name: 'חשבוניות', source: { kind: 'invoices' } });

  const sent = await h.call('accZipSend', { from: '2025-03', to: '2025-04', recipients: ['cpa@example.com', 'CPA@example.com', 'office@example.com'] });
  assert.deepEqual(sent.recipients, ['cpa@example.com', 'office@example.com'], 'addresses are lower-cased and each gets one mail');
  assert.equal(sent.entries, 1, 'May is outside the range');
  assert.equal(sent.attached, true);
  assert.equal(sent.messageIds.length, 2);

  await h.app.queue!.drain();
  const mails = await smtp.waitFor(2);
  assert.deepEqual(mails.map((m) => m.to).flat().sort(), ['cpa@example.com', 'office@example.com']);
  // Hebrew, HTML and text, in the business's name with replies to it, and a size that means something.
  assert.match(mails[0].raw, /^Content-Type: multipart\/(alternative|mixed);/im);
  const mail = await parseMail(mails[0].raw);
  assert.deepEqual(mail.replyTo?.value.map((a) => a.address), [h.owner.email]);
  assert.match(mail.html as string, /<html lang="he" dir="rtl">/);
  assert.match(mail.subject ?? '', /החבילה לרואה החשבון 2025-03 – 2025-04$/);
  assert.match(mail.text!, /חודשים: 2025-03 – 2025-04/);
  assert.match(mail.text!, /קבצים: 1\n/);
  assert.match(mail.text!, /גודל: \d+ KB\n/);
  assert.doesNotMatch(mail.text! + (mail.html as string), /0\.0 MB/);
  assert.match(mail.text!, /החבילה מצורפת גם למייל הזה/);
  const [zip] = mailAttachments(mails[0].raw);
  assert.equal(zip.fileName, 'accountant-2025-03_2025-04.zip');
  assert.equal(zip.contentType, 'application/zip');
  assert.deepEqual(await unzipNames(zip.bytes), ['README.txt', 'index.csv', 'חשבוניות/2025-03-10 Acme A-1 ₪118.00.pdf']);

  // The activity log records the send.
  const activity = await h.call('listActivity', {});
  assert.ok(JSON.stringify(activity).includes("sent the accountant's package 2025-03 – 2025-04"));
});

test('accZipSend refuses bad input naming the field, and sends nothing', async () => {
  const before = smtp.mails.length;
  await assert.rejects(env.h.call('accZipSend', { from: '2025-05', to: '2025-03', recipients: ['a@example.com'] }), { code: 'invalid-argument', message: /^from:/ });
  await assert.rejects(env.h.call('accZipSend', { from: '2025-03', to: '2025-3', recipients: ['a@example.com'] }), { code: 'invalid-argument', message: /^to:/ });
  await assert.rejects(env.h.call('accZipSend', { from: '2025-03', to: '2025-03', recipients: [] }), { code: 'invalid-argument', message: /^recipients:/ });
  await assert.rejects(env.h.call('accZipSend', { from: '2025-03', to: '2025-03', recipients: ['nope'] }), { code: 'invalid-argument', message: /^recipients/ });
  const eleven = Array.from({ length: 11 }, (_, i) => `r${i}@example.com`);
  await assert.rejects(env.h.call('accZipSend', { from: '2025-03', to: '2025-03', recipients: eleven }), { code: 'invalid-argument', message: /^recipients:/ });
  await env.h.app.queue!.drain();
  assert.equal(smtp.mails.length, before);
});

test('a ZIP of 10 MB or more goes as its link only', async () => {
  const zip = { businessId: 'b', fileId: 'f', fileName: 'accountant-2025-03_2025-03.zip', url: 'https://x/files/t/a.zip', entries: 3, missing: 0 };
  const biz = { businessName: 'Biz', businessNameEn: '', companyId: '', email: 'owner@example.com', phone: null };
  const m = { productName: 'Business Finance' };
  const small = await accPackageEmail(m, biz, 'a@example.com', { from: '2025-03', to: '2025-03' }, { ...zip, size: ATTACH_ZIP_UNDER_BYTES - 1 });
  const big = await accPackageEmail(m, biz, 'a@example.com', { from: '2025-03', to: '2025-03' }, { ...zip, size: ATTACH_ZIP_UNDER_BYTES });
  assert.equal(small.attachments?.length, 1);
  assert.equal(big.attachments, undefined);
  assert.match(big.text, /https:\/\/x\/files\/t\/a\.zip/);
  assert.match(big.text, /גודל: 10\.0 MB/);
  assert.doesNotMatch(big.text, /מצורפת/);
});
