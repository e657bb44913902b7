import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { XMLValidator } from 'fast-xml-parser';
import sharp from 'sharp';
import { PDFDocument, degrees } from 'pdf-lib';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGemini, type FakeGemini } from '../../fakes/gemini.ts';
import { DOCX_FIELDS, PDF_FIELDS, PAGE, docxParagraphs, hebrewFormPdf, rectOf, underscoreFormDocx } from './forms.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let h: Harness;
let gemini: FakeGemini;
let origin: string;
let pdf: Buffer;
let docx: Buffer;

const PROFILE = {
  businessName: 'אקמה בע"מ',
  businessNameEn: 'Acme Ltd',
  companyId: '514512345',
  street: 'הרצל 12',
  city: 'תל אביב',
  zip: '6100000',
  myName: 'דנה כהן',
  myNameEn: 'Dana Cohen',
  docBankAccount: '123456',
};

/** What the fake Gemini answers for the Hebrew PDF: one box out of range and one page beyond the document, to be clamped. */
const pdfReply = () => ({
  fields: PDF_FIELDS.map((f) => ({
    label: f.label,
    value: { 'שם העסק': 'אקמה בע"מ', 'ח.פ.': '514512345', 'כתובת': 'הרצל 12, תל אביב 6100000', 'מספר חשבון': '123456', 'אני מאשר/ת את תנאי ההתקשרות': 'true' }[f.label] ?? '',
    kind: f.kind,
    page: f.label === 'מספר חשבון' ? 7 : f.page,
    box: f.label === 'כתובת' ? [250, 300, 280, 1400] : f.box,
  })),
});
const docxReply = () => ({
  fields: [...DOCX_FIELDS, { label: 'VAT file number', kind: 'text', page: 0, box: [0, 0, 0, 0] }].map((f) => ({ ...f, value: f.label === 'VAT file number' ? '999' : { 'Company name': 'Acme & Sons <Ltd>', 'Company ID': '514512345', Address: 'הרצל 12, תל אביב', 'I accept the terms & conditions': 'yes' }[f.label] ?? '' })),
});

before(async () => {
  gemini = await startFakeGemini({ apiKey: 'test-gemini-key', model: 'gemini-2.5-flash' });
  h = await createHarness({ env: { GEMINI_API_KEY: 'test-gemini-key', GEMINI_BASE_URL: gemini.baseUrl } });
  origin = await h.listen();
  await h.call('updateBusiness', PROFILE);
  [pdf, docx] = await Promise.all([hebrewFormPdf(), underscoreFormDocx()]);
  // The fake Gemini knows the Hebrew test form by its bytes and always answers its fields.
  gemini.answer((r) => isPdfForm(r), { text: JSON.stringify(pdfReply()) });
});
const isPdfForm = (r: { inline: { bytes: Buffer }[] }) => Boolean(r.inline[0]?.bytes.equals(pdf));
after(async () => {
  await h.close();
  await gemini.close();
});

const download = (url: string) => fetch(`${origin}/files/${new URL(url).pathname.split('/').slice(-2).join('/')}`);
async function bytesOf(url: string): Promise<Buffer> {
  const res = await download(url);
  assert.equal(res.status, 200, url);
  return Buffer.from(await res.arrayBuffer());
}
function withTemp<T>(bytes: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'signup-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), bytes);
    return fn(join(dir, 'f.pdf'), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const pdftotext = (bytes: Buffer, page?: number) =>
  withTemp(bytes, (f) => execFileSync('pdftotext', [...(page ? ['-f', String(page), '-l', String(page)] : []), f, '-'], { encoding: 'utf8' }).replace(/[\u202A-\u202E]/g, ''));
/** Page `n` (1-based) rendered at 72 dpi: one pixel per PDF point. */
async function render(bytes: Buffer, n: number) {
  const png = withTemp(bytes, (f, dir) => {
    execFileSync('pdftoppm', ['-r', '72', '-f', String(n), '-l', String(n), '-png', '-singlefile', f, join(dir, 'p')]);
    return readFileSync(join(dir, 'p.png'));
  });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
type Img = Awaited<ReturnType<typeof render>>;
/** Pixels matching `pred` inside / outside a PDF rectangle (bottom-left origin), shrunk by `inset` to skip the drawn border. */
function count(img: Img, r: { x: number; y: number; width: number; height: number }, pred: (p: number[]) => boolean, inset = 2) {
  let inside = 0;
  const top = PAGE.height - (r.y + r.height);
  for (let y = Math.ceil(top + inset); y < Math.floor(top + r.height - inset); y++) {
    for (let x = Math.ceil(r.x + inset); x < Math.floor(r.x + r.width - inset); x++) {
      const i = (y * img.width + x) * 3;
      if (pred([img.data[i], img.data[i + 1], img.data[i + 2]])) inside++;
    }
  }
  return inside;
}
function countAll(img: Img, pred: (p: number[]) => boolean) {
  let n = 0;
  for (let i = 0; i < img.data.length; i += 3) if (pred([img.data[i], img.data[i + 1], img.data[i + 2]])) n++;
  return n;
}
const blue = ([r, g, b]: number[]) => b > 110 && b - r > 50 && b - g > 30;
const red = ([r, g, b]: number[]) => r > 180 && g < 80 && b < 80;
const dark = ([r, g, b]: number[]) => r + g + b < 200;

async function analyzePdf(user = h.owner) {
  return h.call('analyzeSignupDoc', { fileName: 'טופס ספק.pdf', mimeType: 'application/pdf', dataBase64: pdf.toString('base64') }, user);
}

test('analyzeSignupDoc reads a Hebrew PDF form: the AI gets the file and the profile facts; fields come back clamped to the page and scale', async () => {
  const before = gemini.requests.length;
  const doc = await analyzePdf();
  const req = gemini.requests[before];
  assert.equal(req.inline[0].mimeType, 'application/pdf');
  assert.deepEqual(req.inline[0].bytes, pdf);
  const data = JSON.parse(req.texts.at(-1)!);
  assert.equal(data.pageCount, 2);
  const facts = Object.fromEntries(data.facts.map((f: any) => [f.label, f.value]));
  assert.equal(facts['Company or dealer number / ח.פ. / עוסק מורשה'], '514512345');
  assert.equal(facts['Account number / מספר חשבון'], '123456');
  assert.match(facts["Today's date, Hebrew form / תאריך"], /^\d{2}\.\d{2}\.\d{4}$/);
  assert.ok(req.generationConfig.responseJsonSchema.properties.fields, 'structured output with the fields schema');

  assert.equal(doc.format, 'pdf');
  assert.equal(doc.pageCount, 2);
  assert.equal(doc.analysisStatus, 'analyzed');
  assert.equal(doc.fields.length, PDF_FIELDS.length);
  const byLabel = Object.fromEntries(doc.fields.map((f: any) => [f.label, f]));
  assert.deepEqual(byLabel['כתובת'].box, [250, 300, 280, 1000], 'xmax clamped to 1000');
  assert.equal(byLabel['מספר חשבון'].page, 1, 'page clamped to the last page');
  assert.match(byLabel['תאריך'].value, /^\d{2}\.\d{2}\.\d{4}$/, "an empty date gets today's date as Hebrew forms write it");
  assert.equal(byLabel['חתימה'].value, '');
  const stored = await bytesOf(doc.url);
  assert.deepEqual(stored, pdf);

  const again = await h.call('getSignupDocFields', { docId: doc.docId });
  assert.deepEqual(again.fields, doc.fields);
  const list = await h.call('listSignupDocs', {});
  const row = list.docs.find((d: any) => d.docId === doc.docId);
  assert.equal(row.fieldCount, PDF_FIELDS.length);
  assert.equal(row.fileName, 'טופס ספק.pdf');
  assert.equal((await download(row.url)).status, 200);
});

test('generateSignupDoc fills the PDF: Hebrew readable by pdftotext, typeset signature and drawn stamp inside their boxes, tick, initials on every page', async () => {
  const doc = await analyzePdf();
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: true, withInitials: true });
  assert.notEqual(out.fileId, doc.fileId);
  const filled = await bytesOf(out.url);
  assert.equal((await PDFDocument.load(filled)).getPageCount(), 2);

  const page1 = pdftotext(filled, 1);
  assert.match(page1, /אקמה בע"מ/);
  assert.match(page1, /514512345/);
  // poppler may move neutral punctuation next to numbers ("12,"); the words and numbers are checked
  assert.match(page1, /הרצל/);
  assert.match(page1, /12/);
  assert.match(page1, /תל אביב 6100000/);
  assert.match(page1, /ד\.כ\./, 'initials on page 1');
  const page2 = pdftotext(filled, 2);
  assert.match(page2, /123456/);
  assert.match(page2, /ד\.כ\./, 'initials on page 2');
  assert.doesNotMatch(page1 + page2, /מ"עב המקא|ןהכ/, 'no reversed Hebrew');

  const img = await render(filled, 1);
  const sig = rectOf(PDF_FIELDS.find((f) => f.kind === 'signature')!.box);
  const stamp = rectOf(PDF_FIELDS.find((f) => f.kind === 'stamp')!.box);
  const tick = rectOf(PDF_FIELDS.find((f) => f.kind === 'checkbox')!.box);
  const sigBlue = count(img, sig, blue);
  const stampBlue = count(img, stamp, blue);
  assert.ok(sigBlue > 100, `signature ink in its box: ${sigBlue}`);
  assert.ok(stampBlue > 500, `stamp ink in its box: ${stampBlue}`);
  const allBlue = countAll(img, blue);
  assert.ok(sigBlue + stampBlue >= allBlue * 0.97, `blue ink stays in the boxes: ${sigBlue + stampBlue} of ${allBlue}`);
  assert.ok(count(img, tick, dark) > 10, 'the checkbox is ticked');

  const blank = await render(pdf, 1);
  assert.equal(countAll(blank, blue), 0, 'the blank form has no blue ink');
  assert.equal(count(blank, tick, dark), 0);
});

test('re-generating makes a new file and never overwrites the original or the earlier copy', async () => {
  const doc = await analyzePdf();
  const a = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: false, withStamp: false });
  const fields = doc.fields.map((f: any) => (f.label === 'שם העסק' ? { ...f, value: 'שם אחר' } : f));
  const b = await h.call('generateSignupDoc', { docId: doc.docId, fields, withSignature: false, withStamp: false });
  assert.notEqual(a.fileId, b.fileId);
  assert.match(pdftotext(await bytesOf(a.url)), /אקמה בע"מ/);
  assert.match(pdftotext(await bytesOf(b.url)), /שם אחר/);
  assert.deepEqual(await bytesOf(doc.url), pdf, 'the uploaded form is unchanged');
  const view = await h.call('getSignupDocFields', { docId: doc.docId });
  assert.deepEqual(view.filled.map((f: any) => f.fileId), [a.fileId, b.fileId]);
  // Without signature and stamp nothing blue is drawn.
  assert.equal(countAll(await render(await bytesOf(a.url), 1), blue), 0);
});

test("stored signature and stamp images (updateBusiness) are placed in their boxes; getBusiness shows only that they're set", async () => {
  const user = await h.newBusiness('Images Ltd');
  await h.call('updateBusiness', { myName: 'Dana Cohen', businessName: 'Images Ltd' }, user);
  const redPng = await sharp({ create: { width: 300, height: 100, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } } }).png().toBuffer();
  const res = await h.call('updateBusiness', { docSignaturePng: redPng.toString('base64'), docStampPng: redPng.toString('base64') }, user);
  assert.equal(res.docSignatureSet, true);
  const biz = await h.call('getBusiness', {}, user);
  assert.equal(biz.docSignatureSet, true);
  assert.equal(biz.docStampSet, true);
  assert.ok(!JSON.stringify(biz).includes(redPng.toString('base64').slice(0, 40)), 'the image itself is never shown');

  const doc = await analyzePdf(user);
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: false }, user);
  const img = await render(await bytesOf(out.url), 1);
  const sig = rectOf(PDF_FIELDS.find((f) => f.kind === 'signature')!.box);
  const stamp = rectOf(PDF_FIELDS.find((f) => f.kind === 'stamp')!.box);
  const inSig = count(img, sig, red, 0);
  assert.ok(inSig > 5000, `the stored signature fills its box: ${inSig}`);
  assert.equal(count(img, stamp, red, 0), 0, 'withStamp false: no stamp');
  assert.ok(countAll(img, red) - inSig < 200, 'nothing red outside the box');

  // "" removes an image; the typeset signature takes over.
  const cleared = await h.call('updateBusiness', { docSignaturePng: '' }, user);
  assert.equal(cleared.docSignatureSet, false);
  const again = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: false }, user);
  const img2 = await render(await bytesOf(again.url), 1);
  assert.equal(count(img2, sig, red, 0), 0);
  assert.ok(count(img2, sig, blue) > 50);
});

test('updateBusiness refuses a signature that is not a PNG, a damaged PNG and one over 1 MB, naming the field and changing nothing', async () => {
  const user = await h.newBusiness('Bad Images');
  const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } }).jpeg().toBuffer();
  await assert.rejects(h.call('updateBusiness', { docSignaturePng: jpeg.toString('base64'), myName: 'X' }, user), (e: any) => e.code === 'invalid-argument' && /^docSignaturePng/.test(e.message));
  const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } }).png().toBuffer();
  await assert.rejects(h.call('updateBusiness', { docStampPng: png.subarray(0, 30).toString('base64') }, user), (e: any) => e.code === 'invalid-argument' && /^docStampPng/.test(e.message));
  const big = Buffer.concat([png, Buffer.alloc(1024 * 1024)]);
  await assert.rejects(h.call('updateBusiness', { docStampPng: big.toString('base64') }, user), (e: any) => e.code === 'invalid-argument' && /^docStampPng/.test(e.message));
  const biz = await h.call('getBusiness', {}, user);
  assert.equal(biz.myName, '');
  assert.equal(biz.docSignatureSet, false);
  assert.equal(biz.docStampSet, false);
});

test('a DOCX form: the AI reads its text; values land in the blanks after their labels, signature and stamp as inline images', async () => {
  const before = gemini.requests.length;
  gemini.replyJson(docxReply());
  const doc = await h.call('analyzeSignupDoc', { fileName: 'supplier form.docx', mimeType: DOCX, dataBase64: docx.toString('base64') });
  const sent = gemini.requests[before].inline[0];
  assert.equal(sent.mimeType, 'text/plain');
  assert.match(sent.bytes.toString('utf8'), /Company name: _{10,}/);
  assert.equal(doc.format, 'docx');
  assert.ok(doc.fields.every((f: any) => f.page === 0 && f.box.every((n: number) => n === 0)));

  await assert.rejects(
    h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: true, withInitials: true }),
    (e: any) => e.code === 'invalid-argument' && /^withInitials/.test(e.message),
  );
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: true });
  assert.equal(out.contentType, DOCX);
  const filled = await bytesOf(out.url);
  const paras = await docxParagraphs(filled);
  assert.ok(paras.includes('Company name: Acme & Sons <Ltd>'), paras.join('\n'));
  assert.ok(paras.includes('Company ID: 514512345 (9 digits)'), 'the blank split across runs became one value');
  assert.ok(paras.includes('Address: הרצל 12, תל אביב'));
  assert.ok(paras.some((p) => /^Date: \d{2}\/\d{2}\/\d{4}$/.test(p)), "today's date in the English form");
  assert.ok(paras.includes('I accept the terms & conditions: ☒'));
  assert.ok(paras.includes('Signature: ') && paras.includes('Stamp: '), 'blanks replaced by the images');
  assert.equal(paras.at(-1), 'VAT file number: 999', 'a label the document lacks gets its own paragraph at the end');

  // A valid OOXML package: the parts, the relationships and the content types agree.
  const zip = await JSZip.loadAsync(filled);
  const xml = await zip.file('word/document.xml')!.async('string');
  const rels = await zip.file('word/_rels/document.xml.rels')!.async('string');
  const types = await zip.file('[Content_Types].xml')!.async('string');
  const embeds = [...xml.matchAll(/r:embed="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(embeds.length, 2);
  for (const rid of embeds) {
    const target = new RegExp(`Id="${rid}"[^>]*Target="([^"]+)"`).exec(rels)?.[1];
    assert.ok(target, `relationship ${rid}`);
    const media = zip.file(`word/${target}`);
    assert.ok(media, target);
    const meta = await sharp(await media!.async('nodebuffer')).metadata();
    assert.equal(meta.format, 'png');
  }
  assert.match(types, /Extension="png" ContentType="image\/png"/);
  assert.match(xml, /xmlns:wp=/);
  assert.ok(/<w:p>[^]*?Signature: [^]*?<w:drawing>/.test(xml), 'the signature image sits in the Signature paragraph');
  // Every edited part is well-formed XML (values with & and < are escaped).
  for (const part of [xml, rels, types]) assert.equal(XMLValidator.validate(part), true);
  assert.deepEqual(await bytesOf(doc.url), docx, 'the uploaded DOCX is unchanged');
});

test('analyzeSignupDoc checks the upload: type from the bytes, the declared type, both docId and a file, the size', async () => {
  const bad = async (input: Record<string, unknown>, field: string) =>
    assert.rejects(h.call('analyzeSignupDoc', input), (e: any) => e.code === 'invalid-argument' && e.message.startsWith(field), JSON.stringify(input).slice(0, 80));
  const before = (await h.call('listSignupDocs', {})).docs.length;
  const requests = gemini.requests.length;
  await bad({ fileName: 'a.pdf', mimeType: 'application/pdf', dataBase64: Buffer.from('hello, not a pdf').toString('base64') }, 'dataBase64');
  await bad({ fileName: 'a.pdf', mimeType: DOCX, dataBase64: pdf.toString('base64') }, 'mimeType');
  await bad({ fileName: 'a.docx', mimeType: 'application/pdf', dataBase64: docx.toString('base64') }, 'mimeType');
  const zip = new JSZip();
  zip.file('hello.txt', 'not a word document');
  await bad({ fileName: 'a.docx', mimeType: DOCX, dataBase64: (await zip.generateAsync({ type: 'nodebuffer' })).toString('base64') }, 'dataBase64');
  await bad({ fileName: 'a.pdf', mimeType: 'application/pdf', dataBase64: Buffer.from('%PDF-1.7 broken').toString('base64') }, 'dataBase64');
  // A ZIP bomb: 60 KB that would unpack to a 60 MB document.xml.
  const bomb = await JSZip.loadAsync(docx);
  bomb.file('word/document.xml', Buffer.alloc(60 * 1024 * 1024, 0x20));
  await bad({ fileName: 'a.docx', mimeType: DOCX, dataBase64: (await bomb.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' })).toString('base64') }, 'dataBase64');
  await bad({}, 'dataBase64');
  await bad({ docId: 'abc', fileName: 'a.pdf', mimeType: 'application/pdf', dataBase64: pdf.toString('base64') }, 'docId');
  await bad({ fileName: 'a.pdf', mimeType: 'application/pdf', dataBase64: 'A'.repeat(Math.ceil((10 * 1024 * 1024) / 3) * 4 + 4) }, 'dataBase64');
  assert.equal((await h.call('listSignupDocs', {})).docs.length, before, 'nothing stored');
  assert.equal(gemini.requests.length, requests, 'the AI was not asked');
});

test('generateSignupDoc checks fields against the form: a page past its end and an inverted box are refused by field path', async () => {
  const doc = await analyzePdf();
  const fields = doc.fields.map((f: any) => ({ ...f }));
  fields[2].page = 2;
  await assert.rejects(h.call('generateSignupDoc', { docId: doc.docId, fields, withSignature: false, withStamp: false }), (e: any) => e.code === 'invalid-argument' && e.message.startsWith('fields.2.page'));
  fields[2].page = 0;
  fields[1].box = [300, 0, 200, 10];
  await assert.rejects(h.call('generateSignupDoc', { docId: doc.docId, fields, withSignature: false, withStamp: false }), (e: any) => e.code === 'invalid-argument' && e.message.startsWith('fields.1.box'));
  fields[1].box = [0, 0, 10, 1001];
  await assert.rejects(h.call('generateSignupDoc', { docId: doc.docId, fields, withSignature: false, withStamp: false }), (e: any) => e.code === 'invalid-argument' && e.message.startsWith('fields.1.box'));
  assert.equal((await h.call('getSignupDocFields', { docId: doc.docId })).filled.length, 0);
});

test('docId alone analyzes a stored form again; a failed re-analysis keeps the earlier fields', async () => {
  const doc = await analyzePdf();
  const one = gemini.answer(isPdfForm, { text: JSON.stringify({ fields: [{ label: 'שם העסק', value: 'x', kind: 'text', page: 0, box: [1, 2, 3, 4] }] }) });
  const again = await h.call('analyzeSignupDoc', { docId: doc.docId });
  one();
  assert.equal(again.fields.length, 1);
  assert.deepEqual(gemini.requests.at(-1)!.inline[0].bytes, pdf);
  // No box: the reply does not match the schema.
  const off = gemini.answer(isPdfForm, { text: JSON.stringify({ fields: [{ label: 'a', value: 'b', kind: 'text', page: 0 }] }) });
  const failed = await h.call('analyzeSignupDoc', { docId: doc.docId });
  off();
  assert.equal(failed.analysisStatus, 'failed');
  assert.match(failed.analysisError, /schema/);
  assert.deepEqual(failed.fields, again.fields);
  assert.equal((await analyzePdf()).fields.length, PDF_FIELDS.length, 'the standing answer is back');
});

test('another business can neither see, analyze, fill nor delete a form', async () => {
  const doc = await analyzePdf();
  const other = await h.newBusiness('Other Ltd');
  const nf = (e: any) => e.code === 'not-found';
  await assert.rejects(h.call('getSignupDocFields', { docId: doc.docId }, other), nf);
  await assert.rejects(h.call('analyzeSignupDoc', { docId: doc.docId }, other), nf);
  await assert.rejects(h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: true }, other), nf);
  await assert.rejects(h.call('deleteSignupDoc', { docId: doc.docId }, other), nf);
  assert.ok(!(await h.call('listSignupDocs', {}, other)).docs.some((d: any) => d.docId === doc.docId));
  assert.equal((await h.call('getSignupDocFields', { docId: doc.docId })).docId, doc.docId);
});

test('deleteSignupDoc removes the form and its filled copies; their links stop working', async () => {
  const doc = await analyzePdf();
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: true });
  const res = await h.call('deleteSignupDoc', { docId: doc.docId });
  assert.equal(res.filesRemoved, 2);
  assert.equal((await download(doc.url)).status, 404);
  assert.equal((await download(out.url)).status, 404);
  await assert.rejects(h.call('getSignupDocFields', { docId: doc.docId }), (e: any) => e.code === 'not-found');
  assert.ok(!(await h.call('listSignupDocs', {})).docs.some((d: any) => d.docId === doc.docId));
});

test('the AI quota applies: a refused analysis stores nothing and does not call the AI', async () => {
  const q = await createHarness({ env: { GEMINI_API_KEY: 'test-gemini-key', GEMINI_BASE_URL: gemini.baseUrl, QUOTA_AI: '1' } });
  try {
    const input = { fileName: 'f.pdf', mimeType: 'application/pdf', dataBase64: pdf.toString('base64') };
    await q.call('analyzeSignupDoc', input);
    const asked = gemini.requests.length;
    await assert.rejects(q.call('analyzeSignupDoc', input), (e: any) => e.code === 'resource-exhausted');
    assert.equal(gemini.requests.length, asked);
    assert.equal((await q.call('listSignupDocs', {})).docs.length, 1);
  } finally {
    await q.close();
  }
});

test('a page shown rotated (/Rotate 90): values and signature land in the boxes as the page is shown, upright', async () => {
  const src = await PDFDocument.load(pdf);
  src.getPage(0).setRotation(degrees(90));
  const rotated = Buffer.from(await src.save());
  // Shown landscape, 842 × 595: a name box near the top left and a signature box below it.
  const nameBox = [100, 100, 150, 500];
  const sigBox = [300, 100, 500, 400];
  const stop = gemini.answer((r) => Boolean(r.inline[0]?.bytes.equals(rotated)), {
    text: JSON.stringify({ fields: [{ label: 'שם העסק', value: 'אקמה בע"מ', kind: 'text', page: 0, box: nameBox }, { label: 'חתימה', value: '', kind: 'signature', page: 0, box: sigBox }] }),
  });
  const doc = await h.call('analyzeSignupDoc', { fileName: 'rotated.pdf', mimeType: 'application/pdf', dataBase64: rotated.toString('base64') });
  stop();
  const out = await h.call('generateSignupDoc', { docId: doc.docId, fields: doc.fields, withSignature: true, withStamp: false });
  const filled = await bytesOf(out.url);
  const img = await render(filled, 1);
  assert.deepEqual([img.width, img.height], [842, 595], 'still shown landscape');
  const inPx = (box: number[], pred: (p: number[]) => boolean) => {
    let n = 0;
    for (let y = Math.ceil((box[0] / 1000) * img.height); y < (box[2] / 1000) * img.height; y++)
      for (let x = Math.ceil((box[1] / 1000) * img.width); x < (box[3] / 1000) * img.width; x++) {
        const i = (y * img.width + x) * 3;
        if (pred([img.data[i], img.data[i + 1], img.data[i + 2]])) n++;
      }
    return n;
  };
  const sig = inPx(sigBox, blue);
  assert.ok(sig > 100, `signature in its box: ${sig}`);
  assert.ok(sig >= countAll(img, blue) * 0.97, 'and nowhere else');
  assert.ok(inPx(nameBox, dark) > 30, 'the name is drawn in its box');
  // Upright text reads back as a horizontal line.
  const words = execFileSync('pdftotext', ['-bbox', '-', '-'], { input: filled, encoding: 'utf8' });
  const w = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">המקא<\/word>/.exec(words);
  assert.ok(w, 'the name is extracted');
  const [x0, y0, x1, y1] = w.slice(1).map(Number);
  assert.ok(x1 - x0 > y1 - y0, 'wider than tall: upright');
  assert.ok(x0 >= 84 && x1 <= 421 && y0 >= 59 && y1 <= 90, `inside the name box: ${[x0, y0, x1, y1]}`);
});
