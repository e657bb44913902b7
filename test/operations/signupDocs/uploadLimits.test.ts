import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import JSZip from 'jszip';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGemini, type FakeGemini } from '../../fakes/gemini.ts';
import { signupDocPath, type SignupDocRecord } from '../../../functions/src/domain/signupDocs/signupDocs.ts';
import { docxBomb, docxOf, objectStreamBombPdf, rssGrowth, unclosedParagraphsDocx, W } from '../../core/bombs.ts';

/**
 * Issue 20's forms that froze the server or blew up its memory, as the audit sent them: a 1.6 KB DOCX of 160,000
 * unclosed paragraphs, a DOCX whose directory says 1,000 bytes for 700 MB, a ~700 KB PDF whose object stream
 * decodes to 700 MB. Each must be answered at once with a 400 naming the file, store nothing, and leave this
 * process's memory where it was. Test timeouts stand in for "at once": before the fix the first took 37 s.
 */

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let h: Harness;
let gemini: FakeGemini;
before(async () => {
  gemini = await startFakeGemini({ apiKey: 'test-gemini-key', model: 'gemini-2.5-flash' });
  h = await createHarness({ env: { GEMINI_API_KEY: 'test-gemini-key', GEMINI_BASE_URL: gemini.baseUrl } });
  await h.call('updateBusiness', { businessName: 'Acme Ltd', myName: 'Dana Cohen' });
});
after(async () => {
  await h.close();
  await gemini.close();
});

const count = async () => (await h.call('listSignupDocs', {})).docs.length;
const files = async () => (await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/files` })).length;

/** Uploads `bytes`; expects a 400 on dataBase64 whose message matches, with nothing stored, no AI call, and flat memory. */
async function refusedUpload(fileName: string, mimeType: string, bytes: Buffer, message: RegExp) {
  const [docs, stored, asked] = [await count(), await files(), gemini.requests.length];
  const { growthMb, result } = await rssGrowth(() => h.call('analyzeSignupDoc', { fileName, mimeType, dataBase64: bytes.toString('base64') }));
  assert.equal(result.status, 'rejected', 'refused');
  const e = (result as PromiseRejectedResult).reason;
  assert.equal(e.code, 'invalid-argument', e.message);
  assert.match(e.message, message);
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
  assert.deepEqual([await count(), await files(), gemini.requests.length], [docs, stored, asked], 'nothing stored, the AI not asked');
}

test("the audit's 1.6 KB DOCX of 160,000 unclosed paragraphs is refused at once, naming the file", { timeout: 20_000 }, async () => {
  const docx = unclosedParagraphsDocx(160_000);
  assert.ok(docx.length < 4096, `${docx.length} bytes`);
  await refusedUpload('audit.docx', DOCX, docx, /^dataBase64: audit\.docx: word\/document\.xml nests elements more than 256 deep/);
});

test('a well-formed DOCX with 160,000 self-closing paragraphs (quadratic for the old regex) is analyzed and filled', { timeout: 60_000 }, async () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>Company name: __________</w:t></w:r></w:p>${'<w:p/>'.repeat(160_000)}</w:body></w:document>`;
  const before = gemini.requests.length;
  gemini.replyJson({ fields: [{ label: 'Company name', value: 'Acme Ltd', kind: 'text', page: 0, box: [0, 0, 0, 0] }] });
  const doc = await h.call('analyzeSignupDoc', { fileName: 'long.docx', mimeType: DOCX, dataBase64: docxOf(xml).toString('base64') });
  assert.match(gemini.requests[before].inline[0].bytes.toString('utf8'), /^Company name: _{10}$/);
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: false, withStamp: false });
  const filled = await JSZip.loadAsync((await h.app.services.files.read(h.owner.businessId, out.fileId))!);
  const text = await filled.file('word/document.xml')!.async('string');
  assert.ok(text.includes('<w:t xml:space="preserve">Company name: Acme Ltd</w:t>'));
  assert.equal(text.split('<w:p/>').length - 1, 160_000, 'the rest of the document is untouched');
});

test('a DOCX whose directory says 1,000 bytes but which inflates to 700 MB: 400 naming the file, memory flat', { timeout: 60_000 }, async () => {
  const bomb = docxBomb(700);
  assert.ok(bomb.length < 1024 * 1024, `${bomb.length} bytes`);
  await refusedUpload('bomb.docx', DOCX, bomb, /^dataBase64: bomb\.docx: word\/document\.xml unpacks to more than the 1000 bytes it declares/);
  // Declaring its real size does not help it either.
  await refusedUpload('honest.docx', DOCX, docxBomb(700, 700 * 1024 * 1024), /^dataBase64: honest\.docx: word\/document\.xml unpacks to more than 50 MB/);
});

test("the audit's ~700 KB PDF with a 700 MB object stream: 400 naming the file, memory flat", { timeout: 60_000 }, async () => {
  const bomb = await objectStreamBombPdf(700);
  assert.ok(bomb.length < 1024 * 1024, `${bomb.length} bytes`);
  await refusedUpload('bomb.pdf', 'application/pdf', bomb, /^dataBase64: bomb\.pdf: the PDF expands to more than 128 MB/);
});

test('forms stored before the caps are refused the same way by generateSignupDoc and by re-analysis, naming docId and the file', { timeout: 60_000 }, async () => {
  const { files: store, store: db } = h.app.services;
  const businessId = h.owner.businessId;
  const at = new Date().toISOString();
  const cases = [
    { docId: 'oldpdf', fileName: 'old form.pdf', format: 'pdf' as const, contentType: 'application/pdf', bytes: await objectStreamBombPdf(700), reason: /the PDF expands to more than 128 MB/ },
    { docId: 'olddocx', fileName: 'old form.docx', format: 'docx' as const, contentType: DOCX, bytes: docxBomb(700), reason: /word\/document\.xml unpacks to more than/ },
    { docId: 'oldxml', fileName: 'old audit.docx', format: 'docx' as const, contentType: DOCX, bytes: unclosedParagraphsDocx(160_000), reason: /nests elements more than 256 deep/ },
  ];
  for (const c of cases) {
    const ref = await store.save(businessId, { fileName: c.fileName, contentType: c.contentType, bytes: c.bytes });
    const record: SignupDocRecord = {
      docId: c.docId, fileId: ref.fileId, fileName: c.fileName, contentType: c.contentType, format: c.format, size: c.bytes.length, pageCount: 1,
      fields: [], analysisStatus: 'analyzed', analysisError: null, analyzedAt: at, filled: [], createdAt: at, updatedAt: at,
    };
    await db.create(signupDocPath(businessId, c.docId), { ...record });
    const fields = [{ label: 'Company name', value: 'Acme', kind: 'text', page: 0, box: [0, 0, 0, 0] }];
    const asked = gemini.requests.length;
    for (const call of [() => h.call('generateSignupDoc', { docId: c.docId, fields, withSignature: false, withStamp: false }), () => h.call('analyzeSignupDoc', { docId: c.docId })]) {
      const { growthMb, result } = await rssGrowth(call);
      assert.equal(result.status, 'rejected', c.docId);
      const e = (result as PromiseRejectedResult).reason;
      assert.equal(e.code, 'invalid-argument', e.message);
      assert.ok(e.message.startsWith(`docId: ${c.fileName}: `), e.message);
      assert.match(e.message, c.reason);
      assert.ok(growthMb < 200, `${c.docId}: RSS grew ${growthMb.toFixed(0)} MB`);
    }
    assert.equal(gemini.requests.length, asked, 'the AI was not asked');
    const after = (await db.get(signupDocPath(businessId, c.docId)))!.data as unknown as SignupDocRecord;
    assert.deepEqual(after.filled, [], 'no filled copy');
  }
});
