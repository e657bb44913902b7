import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, pdf, reading, storedDoc, upload, uploadBody, countDocs, type InvoicesEnv } from './helpers.ts';
import { jpegBytes, pngBytes, b64 } from '../../fakes/pdfs.ts';
import { invoiceHashPath } from '../../../functions/src/domain/invoices/duplicates.ts';
import { issuerId, softwarePath, suggestionsPath, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';
import { folderRulesPath, type FolderRuleRecord } from '../../../functions/src/domain/invoices/folderRules.ts';
import { whenSchema } from '../../../functions/src/domain/invoices/folderRules.ts';
import { activityPath } from '../../../functions/src/core/activity.ts';
import { objectStreamBombPdf, rssGrowth } from '../../core/bombs.ts';
import { engines } from '../../engines.ts';

let env: InvoicesEnv;
before(async () => {
  env = await invoicesEnv();
});
after(() => env.close());

const b = () => env.h.owner.businessId;
const files = () => countDocs(env.h, `businesses/${b()}/files`);
const call = (body: unknown) => env.h.call('uploadInvoiceDoc', body);

test('stores a PDF read by AI: the document view with its hash, reading, issuer key, folder and a download URL', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading({ number: 'A-1', issuer: { name: 'Print House', vatId: '51-512345-9' } }));
  const r = await call(uploadBody(bytes, { fileName: 'march.pdf', note: 'Flyers' }));
  assert.equal(r.skipped, false);
  assert.equal(r.fileName, 'march.pdf');
  assert.equal(r.contentType, 'application/pdf');
  assert.equal(r.size, bytes.length);
  assert.match(r.sha256, /^[0-9a-f]{64}$/);
  assert.equal(r.source, 'upload');
  assert.equal(r.readingStatus, 'read');
  assert.equal(r.reading.number, 'A-1');
  assert.equal(r.vendorKey, 'vat:515123459');
  assert.deepEqual([r.folderId, r.folderBy], ['general', 'default']);
  assert.equal(r.note, 'Flyers');
  assert.match(r.url, /^http/);
  const opened = await env.h.app.services.files.open(new URL(r.url).pathname.split('/').at(-2)!);
  assert.ok(opened?.bytes.equals(bytes), 'the stored file is the uploaded bytes');
  const marker = await env.h.app.services.store.get(invoiceHashPath(b(), r.sha256));
  assert.equal(marker?.data.docId, r.docId);
  assert.equal(env.ai.reads.at(-1)?.contentType, 'application/pdf');
  const rows = await env.h.app.services.store.query({ collection: activityPath(b()) });
  assert.ok(rows.some((row) => row.data.operation === 'uploadInvoiceDoc' && (row.data.targetIds as string[]).includes(r.docId)));
});

test('accepts JPEG and PNG whose bytes match the declared type', async () => {
  for (const [mimeType, bytes] of [['image/jpeg', jpegBytes('j1')], ['image/png', pngBytes('p1')]] as const) {
    env.ai.script(bytes, reading({ number: mimeType }));
    const r = await call(uploadBody(bytes, { fileName: 'scan', mimeType }));
    assert.equal(r.contentType, mimeType);
    assert.equal(r.readingStatus, 'read');
  }
});

test('refuses other types, mismatched bytes, empty and oversized files with invalid-argument naming the field; nothing is stored', async () => {
  const before = await files();
  const docs = await countDocs(env.h, `businesses/${b()}/invoices`);
  await assert.rejects(call(uploadBody(pngBytes('x'), { mimeType: 'image/gif' })), { code: 'invalid-argument', message: /^mimeType: "image\/gif" is not accepted/ });
  await assert.rejects(call(uploadBody(pngBytes('x'), { mimeType: 'application/pdf' })), { code: 'invalid-argument', message: /^dataBase64: the bytes are image\/png, not application\/pdf/ });
  await assert.rejects(call(uploadBody(Buffer.from('hello world'), { mimeType: 'image/jpeg' })), { code: 'invalid-argument', message: /^dataBase64: the bytes are not a PDF, JPEG or PNG/ });
  await assert.rejects(call(uploadBody(Buffer.alloc(0))), { code: 'invalid-argument', message: /^dataBase64: the file is empty/ });
  const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5 * 1024 * 1024 + 1 - 9, 0x20)]);
  await assert.rejects(call(uploadBody(big)), { code: 'invalid-argument', message: /^dataBase64: the file is 5242881 bytes; at most 5 MB/ });
  await assert.rejects(call({ ...uploadBody(await pdf()), dataBase64: 'data:application/pdf;base64,AAAA' }), { code: 'invalid-argument', message: /^dataBase64:/ });
  await assert.rejects(call({ mimeType: 'application/pdf', dataBase64: 'AAAA' }), { code: 'invalid-argument', message: /^fileName: is required/ });
  assert.equal(await files(), before);
  assert.equal(await countDocs(env.h, `businesses/${b()}/invoices`), docs);
});

test('a failed reading stores the document with readingStatus failed and the reason', async () => {
  const r = await upload(env, null);
  assert.equal(r.readingStatus, 'failed');
  assert.equal(r.readingError, 'the document is not legible');
  assert.equal(r.reading, null);
  assert.equal(r.vendorKey, null);
  assert.equal((await storedDoc(env.h, r.docId)).readingStatus, 'failed');
});

test('a malformed reading from the AI port fails the reading instead of storing it', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, { ok: true, value: { ...reading(), date: 'yesterday' } as any });
  const r = await call(uploadBody(bytes));
  assert.equal(r.readingStatus, 'failed');
  assert.match(r.readingError, /did not match the reading schema/);
});

test('duplicates: the same bytes are skipped before storage or AI; issuer + number and issuer + date + total after reading', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading({ number: 'D-1', issuer: { vatId: '511111111' }, totalMinor: 5_000 }));
  const first = await call(uploadBody(bytes));
  const [reads, stored] = [env.ai.reads.length, await files()];
  const again = await call(uploadBody(bytes));
  assert.deepEqual(again, { skipped: true, duplicateOf: first.docId, reason: 'sha256' });
  assert.equal(env.ai.reads.length, reads, 'no AI reading for the same bytes');
  assert.equal(await files(), stored, 'no file kept');

  const byNumber = await upload(env, reading({ number: 'D-1', issuer: { vatId: '511111111' }, totalMinor: 1 }));
  assert.deepEqual(byNumber, { skipped: true, duplicateOf: first.docId, reason: 'number' });
  const byTotal = await upload(env, reading({ number: 'D-2', issuer: { vatId: '511111111' }, totalMinor: 5_000 }));
  assert.deepEqual(byTotal, { skipped: true, duplicateOf: first.docId, reason: 'date_total' });
  assert.equal(await files(), stored, 'skipped uploads leave no file behind');
  // Another issuer with the same number is no duplicate.
  assert.equal((await upload(env, reading({ number: 'D-1', issuer: { vatId: '522222222' } }))).skipped, false);
});

test('skipDuplicates=false stores a duplicate with duplicateOf set', async () => {
  const bytes = await pdf();
  env.ai.script(bytes, reading({ number: 'K-1', issuer: { vatId: '533333333' } }));
  const first = await call(uploadBody(bytes));
  const copy = await call(uploadBody(bytes, { skipDuplicates: false }));
  assert.equal(copy.skipped, false);
  assert.notEqual(copy.docId, first.docId);
  assert.equal(copy.duplicateOf, first.docId);
  // The hash marker still names the original.
  assert.equal((await env.h.app.services.store.get(invoiceHashPath(b(), first.sha256)))?.data.docId, first.docId);
  const third = await upload(env, reading({ number: 'K-1', issuer: { vatId: '533333333' } }), { skipDuplicates: false });
  assert.equal(third.duplicateOf, first.docId);
});

// A race decided by the store's transactions: Firestore's contend and retry unlike SQLite's, so both engines run it.
for (const engine of engines) {
  describe(`races on ${engine.name}`, { skip: engine.skip }, () => {
    let env: InvoicesEnv;
    before(async () => {
      env = await invoicesEnv({ env: await engine.env() });
    });
    after(() => env.close());
    const b = () => env.h.owner.businessId;
    const files = () => countDocs(env.h, `businesses/${b()}/files`);
    const call = (body: unknown) => env.h.call('uploadInvoiceDoc', body);

    test('two parallel uploads of the same file store exactly one', async () => {
      const bytes = await pdf();
      env.ai.script(bytes, reading({ number: 'R-1', issuer: { vatId: '544444444' } }));
      const [docsBefore, filesBefore] = [await countDocs(env.h, `businesses/${b()}/invoices`), await files()];
      // Both pass the early hash check and read the file before either stores it.
      const release = env.ai.hold();
      const reads = env.ai.reads.length;
      const calls = Promise.all([call(uploadBody(bytes)), call(uploadBody(bytes)), call(uploadBody(bytes))]);
      // Waits for the reads, not a fixed time: Firestore's hash check takes longer than SQLite's.
      for (let i = 0; i < 500 && env.ai.reads.length < reads + 3; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(env.ai.reads.length, reads + 3, 'all three are reading before any stores');
      release();
      const results = await calls;
      const stored = results.filter((r) => !r.skipped);
      assert.equal(stored.length, 1);
      for (const r of results.filter((x) => x.skipped)) assert.equal(r.duplicateOf, stored[0].docId);
      assert.equal(await countDocs(env.h, `businesses/${b()}/invoices`), docsBefore + 1);
      assert.equal(await files(), filesBefore + 1, 'the losers removed their files');
    });
  });
}

test('supplier assignment: VAT id (card companyId), email, phone or name of an existing supplier', async () => {
  const { h } = env;
  await h.call('createSupplier', { name: 'Vat Supplier', phone: '050-700-0001' });
  await h.call('saveSupplierContact', { supplierKey: '0507000001', companyId: '516000001' });
  await h.call('createSupplier', { name: 'Mail Supplier', email: 'Billing@Mail.example' });
  await h.call('createSupplier', { name: 'Phone Supplier', phone: '+972 50-700-0003' });
  await h.call('createSupplier', { name: 'Name Only Ltd', email: 'names@example.com' });
  const cases = [
    [{ vatId: '516000001', name: 'Whatever' }, '+972507000001'],
    [{ vatId: null, email: 'BILLING@mail.example', name: 'Other' }, 'billing@mail.example'],
    [{ vatId: null, phone: '050-700-0003', name: 'Other' }, '+972507000003'],
    [{ vatId: null, name: 'Name Only Ltd' }, 'names@example.com'],
  ] as const;
  for (const [issuer, key] of cases) {
    const r = await upload(env, reading({ issuer, number: `S-${key}` }));
    assert.deepEqual([r.supplierKey, r.supplierBy], [key, 'auto'], JSON.stringify(issuer));
    assert.equal(r.suggestionId, null);
  }
  const named = await upload(env, reading({ issuer: { vatId: '516000001' }, number: 'S-name' }));
  assert.equal(named.supplierName, 'Vat Supplier');
});

test('an unknown issuer becomes a supplier suggestion, extended by its next invoice; a software issuer is tied to its software item', async () => {
  const issuer = { name: 'New Vendor', vatId: '517000001' };
  const one = await upload(env, reading({ issuer, number: 'N-1', date: '2025-01-01' }));
  const two = await upload(env, reading({ issuer, number: 'N-2', date: '2025-02-01' }));
  const id = issuerId('vat:517000001');
  assert.equal(one.suggestionId, id);
  assert.equal(two.suggestionId, id);
  const s = (await env.h.app.services.store.get(suggestionsPath(b(), id)))!.data as unknown as SuggestionRecord;
  assert.deepEqual([s.name, s.vendorKey, s.status, s.docIds], ['New Vendor', 'vat:517000001', 'open', [one.docId, two.docId]]);

  const sw = issuerId('vat:518000001');
  const at = new Date().toISOString();
  await env.h.app.services.store.set(softwarePath(b(), sw), { id: sw, vendorKey: 'vat:518000001', name: 'Cloudy', hidden: false, cadence: 'auto', docIds: [], createdAt: at, updatedAt: at });
  const tool = await upload(env, reading({ issuer: { name: 'Cloudy', vatId: '518000001' }, number: 'SW-1' }));
  assert.deepEqual([tool.softwareId, tool.suggestionId, tool.supplierKey], [sw, null, null]);
  assert.deepEqual((await env.h.app.services.store.get(softwarePath(b(), sw)))!.data.docIds, [tool.docId]);
});

test('a given supplierKey is normalized and must be an existing supplier; supplierName alone is a hand-named assignment', async () => {
  await env.h.call('createSupplier', { name: 'Hand Picked', phone: '052-800-0001' });
  const r = await upload(env, reading({ number: 'H-1' }), { supplierKey: '052 800 0001' });
  assert.deepEqual([r.supplierKey, r.supplierName, r.supplierBy, r.suggestionId], ['+972528000001', 'Hand Picked', 'hand', null]);
  const renamed = await upload(env, reading({ number: 'H-2' }), { supplierKey: '+972528000001', supplierName: 'HP' });
  assert.equal(renamed.supplierName, 'HP');
  const before = await files();
  await assert.rejects(upload(env, reading({ number: 'H-3' }), { supplierKey: '052-800-9999' }), { code: 'not-found', message: /^supplierKey: supplier \+972528009999 not found/ });
  await assert.rejects(upload(env, reading({ number: 'H-4' }), { supplierKey: 'nobody' }), { code: 'invalid-argument', message: /^supplierKey:/ });
  assert.equal(await files(), before);
  const nameOnly = await upload(env, reading({ number: 'H-5' }), { supplierName: 'Corner shop' });
  assert.deepEqual([nameOnly.supplierKey, nameOnly.supplierName, nameOnly.supplierBy], [null, 'Corner shop', 'hand']);
});

test('folders: folderId by hand (general counts as existing before any folder is stored), by rules otherwise, card folder by default', async () => {
  const hand = await upload(env, reading({ number: 'F-1' }), { folderId: 'general' });
  assert.deepEqual([hand.folderId, hand.folderBy, hand.folderRuleId], ['general', 'hand', null]);
  await assert.rejects(upload(env, reading({ number: 'F-2' }), { folderId: 'no-such-folder' }), { code: 'not-found', message: /^folderId: folder no-such-folder/ });

  const folder = await env.h.call('folderCreate', { name: 'Printing' });
  const custom = await upload(env, reading({ number: 'F-3' }), { folderId: folder.id });
  assert.deepEqual([custom.folderId, custom.folderBy], [folder.id, 'hand']);

  const at = new Date().toISOString();
  const rule: FolderRuleRecord = { id: 'r1', when: whenSchema.parse({ supplier: 'print co', source: 'upload' }), folderId: folder.id, bodyInvoice: false, enabled: true, order: 0, createdAt: at, updatedAt: at, applyCursor: '' };
  await env.h.app.services.store.set(folderRulesPath(b(), 'r1'), { ...rule });
  const byRule = await upload(env, reading({ number: 'F-4', issuer: { name: 'Print Co', vatId: '519000001' } }));
  assert.deepEqual([byRule.folderId, byRule.folderBy, byRule.folderRuleId], [folder.id, 'rule', 'r1']);

  const card = await upload(env, reading({ number: 'F-5', payMethod: 'card', cardEnding: '4242', issuer: { vatId: '519000002' } }));
  assert.deepEqual([card.folderId, card.folderBy, card.effectivePayMark], ['card-4242', 'default', 'paid_card']);
  assert.ok(await env.h.app.services.store.get(`businesses/${b()}/folders/card-4242`), 'the card folder was created');
  await env.h.app.services.store.delete(folderRulesPath(b(), 'r1'));
});

test('a words rule files an upload by its line items or note, and notWords keeps one out (issue 35)', async () => {
  const folder = await env.h.call('folderCreate', { name: 'Office supplies' });
  const saved = await env.h.call('folderRuleSave', { when: { words: 'toner paper', notWords: 'private' }, folderId: folder.id });
  const item = (description: string) => [{ description, quantity: 1, totalMinor: 5_000 }];
  const byItem = await upload(env, reading({ number: 'W-1', issuer: { name: 'Office Depot', vatId: '521000001' }, lineItems: item('Toner cartridge HP 85A') }), { fileName: 'scan-1.pdf' });
  assert.deepEqual([byItem.folderId, byItem.folderBy, byItem.folderRuleId], [folder.id, 'rule', saved.rule.id]);
  const byNote = await upload(env, reading({ number: 'W-2', issuer: { name: 'Corner Shop', vatId: '521000002' } }), { fileName: 'scan-2.pdf', note: 'A4 paper for the office' });
  assert.deepEqual([byNote.folderId, byNote.folderBy], [folder.id, 'rule']);
  const excluded = await upload(env, reading({ number: 'W-3', issuer: { name: 'Office Depot', vatId: '521000001' }, lineItems: item('Toner') }), { fileName: 'scan-3.pdf', note: 'Private printer' });
  assert.deepEqual([excluded.folderId, excluded.folderBy], ['general', 'default']);
  const unrelated = await upload(env, reading({ number: 'W-4', issuer: { name: 'Corner Shop', vatId: '521000002' }, lineItems: item('Coffee') }), { fileName: 'scan-4.pdf' });
  assert.deepEqual([unrelated.folderId, unrelated.folderBy], ['general', 'default']);
  await env.h.call('folderRuleDelete', { id: saved.rule.id });
});

test("the issuer's pay and category rules apply at upload", async () => {
  await env.h.call('vendorPayRuleSet', { key: 'vat:520000001', rule: 'not_card' });
  await env.h.call('vendorCategoryRuleSet', { key: 'vat:520000001', category: 'software' });
  const r = await upload(env, reading({ number: 'P-1', issuer: { vatId: '520000001' }, payMethod: 'card' }));
  assert.deepEqual([r.payRule, r.effectivePayMark, r.payMark], ['not_card', 'unpaid', '']);
  assert.deepEqual([r.category, r.categoryBy], ['software', 'rule']);
});

test("another business's supplier or folder is not-found", async () => {
  const other = await env.h.newBusiness('Other');
  await env.h.call('createSupplier', { name: 'Theirs', phone: '053-900-0001' }, other);
  const theirFolder = await env.h.call('folderCreate', { name: 'Theirs' }, other);
  await assert.rejects(upload(env, reading({ number: 'X-1' }), { supplierKey: '053-900-0001' }), { code: 'not-found' });
  await assert.rejects(upload(env, reading({ number: 'X-2' }), { folderId: theirFolder.id }), { code: 'not-found' });
  // The same bytes in another business are not a duplicate.
  const bytes = await pdf();
  env.ai.script(bytes, reading({ number: 'X-3' }));
  const mine = await env.h.call('uploadInvoiceDoc', uploadBody(bytes));
  const theirs = await env.h.call('uploadInvoiceDoc', uploadBody(bytes), other);
  assert.equal(mine.skipped, false);
  assert.equal(theirs.skipped, false);
});

test('base64 of the file is the only accepted encoding', async () => {
  const bytes = await pdf();
  await assert.rejects(call({ fileName: 'a.pdf', mimeType: 'application/pdf', dataBase64: b64(bytes) + '!' }), { code: 'invalid-argument', message: /^dataBase64: expected base64/ });
});

test('without an API key the upload is stored unread, saying why; nothing is sent to the AI', async () => {
  const off = await invoicesEnv({ configured: false });
  try {
    const r = await upload(off, reading());
    assert.equal(r.skipped, false);
    assert.equal(r.readingStatus, 'unread');
    assert.match(r.readingError, /^AI is not configured/);
    assert.equal(r.reading, null);
    assert.equal(off.ai.reads.length, 0);
    assert.deepEqual([r.folderId, r.effectivePayMark], ['general', 'unpaid']);
  } finally {
    await off.close();
  }
});

test('when the daily AI quota is used up the document is still stored unread and the call answers 429 naming it', async () => {
  const tight = await invoicesEnv({ env: { QUOTA_AI: '1' } });
  try {
    const { h } = tight;
    assert.equal((await upload(tight, reading())).readingStatus, 'read');
    const bytes = await pdf();
    tight.ai.script(bytes, reading());
    const err = await h.call('uploadInvoiceDoc', uploadBody(bytes, { fileName: 'late.pdf' })).then(
      () => assert.fail('expected 429'),
      (e) => e,
    );
    assert.equal(err.code, 'resource-exhausted');
    assert.equal(err.status, 429);
    const docId = /stored unread as document (\w+)/.exec(err.message)?.[1];
    assert.ok(docId, err.message);
    const doc = await storedDoc(h, docId);
    assert.deepEqual([doc.readingStatus, doc.fileName, doc.reading], ['unread', 'late.pdf', null]);
    assert.match(doc.readingError!, /quota/);
    assert.equal(tight.ai.reads.length, 1, 'the refused upload was not sent to the AI');
    const rows = await h.app.services.store.query({ collection: activityPath(h.owner.businessId) });
    assert.ok(rows.some((row) => row.data.operation === 'uploadInvoiceDoc' && (row.data.targetIds as string[]).includes(docId)), 'the stored document has its activity row');
    // The same bytes again are a duplicate of the unread document, not a second copy.
    assert.deepEqual(await h.call('uploadInvoiceDoc', uploadBody(bytes)), { skipped: true, duplicateOf: docId, reason: 'sha256' });
  } finally {
    await tight.close();
  }
});

test('a PDF bomb (an object stream of 700 MB in ~700 KB) is refused naming the file: nothing stored, nothing read, memory flat', async () => {
  const before = await files();
  const docs = await countDocs(env.h, `businesses/${b()}/invoices`);
  const reads = env.ai.reads.length;
  const bomb = await objectStreamBombPdf(700);
  const { growthMb, result } = await rssGrowth(() => call(uploadBody(bomb, { fileName: 'bomb.pdf' })));
  assert.equal(result.status, 'rejected');
  const e = (result as PromiseRejectedResult).reason;
  assert.equal(e.code, 'invalid-argument');
  assert.match(e.message, /^dataBase64: bomb\.pdf: the PDF expands to more than 128 MB/);
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
  assert.equal(await files(), before);
  assert.equal(await countDocs(env.h, `businesses/${b()}/invoices`), docs);
  assert.equal(env.ai.reads.length, reads);
});
