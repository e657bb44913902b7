import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import yauzl from 'yauzl';
import { createHarness, type Harness } from '../../harness.ts';
import { startSmtp, parseMail, mailAttachments } from '../../fakes/smtp.ts';
import { ATTACH_ZIP_UNDER_BYTES, monthPackageEmail } from '../../../functions/src/domain/accountant/monthPackage.ts';
import { accountsPath, statementsPath, statementId, type AccountRecord, type StatementRecord } from '../../../functions/src/domain/statements/statements.ts';

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let origin: string;
before(async () => {
  smtp = await startSmtp();
  h = await createHarness({ env: { SMTP_URL: smtp.url } });
  origin = await h.listen();
});
after(async () => {
  await h.close();
  await smtp.close();
});

/** Two connected accounts; the bank's statement of 2026-03 is ready, the card processor's is not. */
async function seed(businessId: string) {
  const at = new Date().toISOString();
  const accounts: AccountRecord[] = [
    { id: 'usbank_a1', source: 'usbank', connectionId: 'c1', providerAccountId: 'p1', name: 'Mercury Checking', currency: 'USD', status: 'connected', reason: null, createdAt: at, updatedAt: at },
    { id: 'cardproc_a2', source: 'cardproc', connectionId: 'c2', providerAccountId: 'p2', name: 'Stripe', currency: null, status: 'connected', reason: null, createdAt: at, updatedAt: at },
  ];
  for (const a of accounts) await h.app.services.store.set(accountsPath(businessId, a.id), { ...a });
  const file = await h.app.services.files.save(businessId, { fileName: 'statement-2026-03.pdf', contentType: 'application/pdf', bytes: Buffer.from('%PDF-1.4 statement') });
  const st: StatementRecord = {
    id: statementId('usbank_a1', '2026-03'), accountId: 'usbank_a1', source: 'usbank', accountName: 'Mercury Checking', month: '2026-03', status: 'ready', reason: null,
    files: [{ fileId: file.fileId, fileName: file.fileName, contentType: file.contentType, size: file.size }], gen: 1, runs: 1, runId: null, send: null, requestedAt: at, syncedAt: at,
  };
  await h.app.services.store.set(statementsPath(businessId, st.id), { ...st });
}

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

test('statementsZip puts each ready statement under account/month and names the missing accounts', async () => {
  await seed(h.owner.businessId);
  const z = await h.call('statementsZip', { month: '2026-03' });
  assert.deepEqual(z.accounts, ['Mercury Checking']);
  assert.deepEqual(z.missing, ['Stripe']);
  const bytes = Buffer.from(await (await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin))).arrayBuffer());
  // Every package explains itself (README.txt, index.csv) besides the statements.
  assert.deepEqual(await unzipNames(bytes), ['README.txt', 'index.csv', 'Mercury Checking/2026-03/statement-2026-03.pdf']);
  await assert.rejects(h.call('statementsZip', { month: '2026-3' }), { code: 'invalid-argument', message: /^month:/ });
  await assert.rejects(h.call('statementsZip', { month: '2026-03', accountId: 'nope' }), { code: 'not-found', message: /^accountId:/ });
});

test('statementsSend emails the package link to the recipients through the outbox, lists what is missing, and records the send', async () => {
  const sent = await h.call('statementsSend', { month: '2026-03', recipients: ['cpa@example.com'] });
  assert.deepEqual(sent.to, ['cpa@example.com']);
  await h.app.queue!.drain();
  const [mail] = await smtp.waitFor(1);
  const text = (await parseMail(mail.raw)).text ?? '';
  // Latin names in the Hebrew text part are Unicode isolates (FSI…PDI), so they keep their order.
  assert.match(text, /בחבילה: \u2068Mercury Checking\u2069/);
  assert.match(text, /חסרים: \u2068Stripe\u2069/);
  assert.match(text, /\/files\/\[link removed after delivery\]|\/files\/[A-Za-z0-9_-]{43}/);
  // A small package rides along: the attachment is the ZIP itself, the statement inside.
  assert.match(text, /החבילה מצורפת גם למייל הזה/);
  const [zip] = mailAttachments(mail.raw);
  assert.equal(zip.fileName, 'statements-2026-03.zip');
  assert.equal(zip.contentType, 'application/zip');
  assert.deepEqual(await unzipNames(zip.bytes), ['README.txt', 'index.csv', 'Mercury Checking/2026-03/statement-2026-03.pdf']);
  const list = await h.call('statementsList');
  const st = list.items?.find?.((s: any) => s.month === '2026-03') ?? list.statements?.find((s: any) => s.month === '2026-03') ?? list.find?.((s: any) => s.month === '2026-03');
  assert.deepEqual(st.send.to, ['cpa@example.com']);
  await assert.rejects(h.call('statementsSend', { month: '2026-03' }), { code: 'invalid-argument', message: /^recipients: none given/ });
});

test('another business gets its own empty package, never these statements', async () => {
  const other = await h.newBusiness('Other');
  const z = await h.call('statementsZip', { month: '2026-03' }, other);
  assert.equal(z.entries, 0);
  assert.deepEqual(z.accounts, []);
});

const BIZ = { businessName: 'Biz', businessNameEn: '', companyId: '', email: null, phone: null };
const MAIL = { productName: 'Business Finance' };

test('a package of 10 MB or more is sent as its link only', async () => {
  const zip = { businessId: 'b', fileId: 'f', fileName: 'statements-2026-03.zip', url: 'https://x/files/t', expiresAt: '2026-04-12T08:00:00.000Z', entries: 3, accounts: ['Bank'], missing: [] };
  const small = await monthPackageEmail(MAIL, BIZ, 'cpa@example.com', '2026-03', { ...zip, size: ATTACH_ZIP_UNDER_BYTES - 1 });
  assert.equal(small.attachments?.length, 1);
  const big = await monthPackageEmail(MAIL, BIZ, 'cpa@example.com', '2026-03', { ...zip, size: ATTACH_ZIP_UNDER_BYTES });
  assert.equal(big.attachments, undefined);
  assert.match(big.text, /להורדת החבילה \(\u206810\.0 MB\u2069\):\nhttps:\/\/x\/files\/t/);
  assert.doesNotMatch(big.text, /מצורפת/);
});

test('a package under 1 MB states its size in KB, not "0.0 MB" (issue 17)', async () => {
  const zip = { businessId: 'b', fileId: 'f', fileName: 'statements-2026-03.zip', url: 'https://x/files/t', expiresAt: '2026-04-12T08:00:00.000Z', entries: 1, accounts: ['Bank'], missing: [] };
  const tiny = await monthPackageEmail(MAIL, BIZ, 'cpa@example.com', '2026-03', { ...zip, size: 2_300 });
  assert.match(tiny.text, /\(\u20683 KB\u2069\)/);
  assert.doesNotMatch(tiny.text + (tiny.html ?? ''), /0\.0 MB/);
  const mid = await monthPackageEmail(MAIL, BIZ, 'cpa@example.com', '2026-03', { ...zip, size: 870 * 1024 });
  assert.match(mid.html ?? '', /870 KB/);
  const mb = await monthPackageEmail(MAIL, BIZ, 'cpa@example.com', '2026-03', { ...zip, size: 3.25 * 1048576 });
  assert.match(mb.text, /3\.3 MB|3\.2 MB/);
});

/** The text of one entry of a ZIP. */
const entryText = (bytes: Buffer, name: string) =>
  new Promise<string>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      zip.on('entry', (e) => {
        if (e.fileName !== name) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2 || !stream) return reject(err2);
          const chunks: Buffer[] = [];
          stream.on('data', (c) => chunks.push(c));
          stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        });
      });
      zip.on('end', () => reject(new Error(`no ${name}`)));
      zip.readEntry();
    }),
  );

test("the statements ZIP's README says it holds statements, not invoices; a slash in an account's name does not cut it (issue 34)", async () => {
  const biz = await h.newBusiness('Readme Co');
  await seed(biz.businessId);
  await h.app.services.store.update(statementsPath(biz.businessId, statementId('usbank_a1', '2026-03')), { accountName: 'Leumi 12/345' });
  const z = await h.call('statementsZip', { month: '2026-03' }, biz);
  const bytes = Buffer.from(await (await fetch(z.url.replace(/^https?:\/\/[^/]+/, origin))).arrayBuffer());
  assert.ok((await unzipNames(bytes)).includes('Leumi 12-345/2026-03/statement-2026-03.pdf'));
  const [he, en] = (await entryText(bytes, 'README.txt')).split('\n---\n');
  assert.match(he, /דפי החשבון של החודש/);
  assert.match(en, /statements as each account's source gave them/);
  assert.doesNotMatch(he + en, /ספק|supplier|invoice number/i, 'nothing about suppliers or invoice numbers');
});
