import { z } from 'zod';
import { invalid, notFound } from '../../core/errors.ts';
import { sniffFileType } from '../../core/fileTypes.ts';
import { text, multilineText, LIMITS } from '../../core/schema.ts';
import { sanitizeFileName } from '../../core/text.ts';
import type { Reader } from '../../ports/store.ts';
import type { Profile } from '../business.ts';
import { isUnreadableDocument, refusedAs, UnreadableDocument } from '../../core/documentLimits.ts';
import { measurePdfInflation } from '../../core/pdfInflation.ts';
import { readDocx, DOCX_MIME, type DocxForm } from './signupDocx.ts';
import { pdfPageCount } from './signupPdf.ts';
import { FIELD_KINDS, type FieldKind, type SignupField } from './signupFields.ts';

// Shared with signupDocx.ts and signupPdf.ts from signupFields.ts, so none of the three import each other in a circle.
export { FIELD_KINDS, type FieldKind, type SignupField } from './signupFields.ts';

/** Supplier onboarding forms (spec §2 "Signup document"): the upload, the AI's fields, the filled copies. */

export const SIGNUP_MAX_BYTES = 10 * 1024 * 1024;
export const MAX_FIELDS = 200;

export interface FilledFile { fileId: string; fileName: string; createdAt: string; withSignature: boolean; withStamp: boolean; withInitials: boolean }

export interface SignupDocRecord {
  docId: string;
  fileId: string;
  fileName: string;
  contentType: string;
  format: 'pdf' | 'docx';
  size: number;
  pageCount: number;
  fields: SignupField[];
  analysisStatus: 'analyzed' | 'failed';
  analysisError: string | null;
  analyzedAt: string;
  filled: FilledFile[];
  createdAt: string;
  updatedAt: string;
}

export const signupDocsPath = (businessId: string) => `businesses/${businessId}/signupDocs`;
export const signupDocPath = (businessId: string, docId: string) => `${signupDocsPath(businessId)}/${docId}`;

export async function getSignupDoc(r: Reader, businessId: string, docId: string): Promise<SignupDocRecord> {
  const doc = await r.get(signupDocPath(businessId, docId));
  if (!doc) throw notFound(`docId: signup document ${docId}`, 'form');
  return doc.data as unknown as SignupDocRecord;
}

export const fieldSchema = z.strictObject({
  label: text().min(1).describe('The field label as the form words it.'),
  value: multilineText(LIMITS.text).describe('The value to write ("" leaves it blank; for a checkbox, "true"/"yes"/"x" ticks it).'),
  kind: z.enum(FIELD_KINDS).describe('text, date, signature, stamp or checkbox.'),
  page: z.int().min(0).max(9999).default(0).describe('0-based PDF page (0 for a DOCX).'),
  box: z.array(z.number().min(0).max(1000)).length(4).default([0, 0, 0, 0]).describe('[ymin, xmin, ymax, xmax] on a 0–1000 scale (PDF); ignored for a DOCX.'),
});

export const filledView = z.object({ fileId: z.string(), fileName: z.string(), url: z.string().nullable(), createdAt: z.string() });
export const signupDocView = z.object({
  docId: z.string(),
  fileId: z.string(),
  fileName: z.string(),
  format: z.enum(['pdf', 'docx']),
  size: z.int(),
  pageCount: z.int(),
  url: z.string().nullable(),
  fields: z.array(z.object({ label: z.string(), value: z.string(), kind: z.enum(FIELD_KINDS), page: z.int(), box: z.array(z.number()) })),
  analysisStatus: z.enum(['analyzed', 'failed']),
  analysisError: z.string().nullable(),
  analyzedAt: z.string(),
  filled: z.array(filledView),
  createdAt: z.string(),
});

export function signupView(d: SignupDocRecord, urls: Map<string, string | null>) {
  return {
    docId: d.docId,
    fileId: d.fileId,
    fileName: d.fileName,
    format: d.format,
    size: d.size,
    pageCount: d.pageCount,
    url: urls.get(d.fileId) ?? null,
    fields: d.fields,
    analysisStatus: d.analysisStatus,
    analysisError: d.analysisError,
    analyzedAt: d.analyzedAt,
    filled: d.filled.map((f) => ({ fileId: f.fileId, fileName: f.fileName, url: urls.get(f.fileId) ?? null, createdAt: f.createdAt })),
    createdAt: d.createdAt,
  };
}

/** Business images for forms: input field → stored field prefix (`<prefix>FileId` on the business doc). */
export const DOC_IMAGES = { docSignaturePng: 'docSignature', docStampPng: 'docStamp' } as const;
export const DOC_IMAGE_MAX_BYTES = 1024 * 1024;

/** A PNG of at most 1 MB, by its bytes. */
export const checkDocImage = Object.assign(
  (field: string, b64: string): Buffer => {
    const png = Buffer.from(b64, 'base64');
    if (png.length > DOC_IMAGE_MAX_BYTES) throw invalid(field, 'the image is larger than 1 MB', { reason: 'imageTooLarge' });
    if (sniffFileType(png) !== 'image/png') throw invalid(field, 'not a PNG image', { reason: 'notAnImage' });
    return png;
  },
  {
    /** The PNG really decodes (a truncated file with a PNG signature is refused). */
    async decodable(field: string, png: Buffer) {
      try {
        const { default: sharp } = await import('sharp');
        const m = await sharp(png).metadata();
        if (!m.width || !m.height || m.width > 4000 || m.height > 4000) throw new Error('size');
        await sharp(png).raw().toBuffer();
      } catch {
        throw invalid(field, 'the PNG cannot be read, or is larger than 4000×4000 pixels', { reason: 'fileUnreadable' });
      }
    },
  },
);

/**
 * Checks an upload by its bytes: a PDF or a DOCX, at most 10 MB, the declared type matching, within the caps of
 * core/documentLimits.ts (a refusal names the file). A DOCX comes back read, for the analysis.
 */
export async function checkSignupUpload(input: { fileName: string; mimeType: string; dataBase64: string }) {
  const bytes = Buffer.from(input.dataBase64, 'base64');
  if (bytes.length === 0) throw invalid('dataBase64', 'the file is empty', { reason: 'fileEmpty' });
  if (bytes.length > SIGNUP_MAX_BYTES) throw invalid('dataBase64', 'the file is larger than 10 MB', { reason: 'fileTooLarge', params: { maxMb: 10 } });
  const declared = input.mimeType.trim().toLowerCase();
  const name = sanitizeFileName(input.fileName, 'the file');
  if (sniffFileType(bytes) === 'application/pdf') {
    if (declared !== 'application/pdf') throw invalid('mimeType', `the file is a PDF, not ${declared || 'an empty type'}`, { reason: 'fileContentMismatch' });
    let pageCount: number;
    try {
      pageCount = await pdfPageCount(bytes);
    } catch (e) {
      if (isUnreadableDocument(e)) throw refusedAs(e, 'dataBase64', name);
      throw invalid('dataBase64', 'the PDF cannot be read (damaged or encrypted)', { reason: 'fileUnreadable' });
    }
    if (pageCount < 1) throw invalid('dataBase64', 'the PDF has no pages', { reason: 'fileUnreadable' });
    return { bytes, format: 'pdf' as const, contentType: 'application/pdf', pageCount, docx: null };
  }
  const docx = await readDocx(bytes).catch((e) => {
    throw refusedAs(e, 'dataBase64', name);
  });
  if (docx) {
    if (declared !== DOCX_MIME) throw invalid('mimeType', `the file is a DOCX (${DOCX_MIME}), not ${declared || 'an empty type'}`, { reason: 'fileContentMismatch' });
    return { bytes, format: 'docx' as const, contentType: DOCX_MIME, pageCount: 1, docx };
  }
  throw invalid('dataBase64', 'not a PDF or DOCX file', { reason: 'formFileKind' });
}

/**
 * A stored form opened again for re-analysis, under the same caps as an upload (forms stored before a cap existed
 * are refused here too, naming docId and the file). A DOCX comes back read.
 */
export async function reopenSignupFile(doc: Pick<SignupDocRecord, 'format' | 'fileName'>, bytes: Buffer): Promise<DocxForm | null> {
  try {
    if (doc.format === 'pdf') {
      await measurePdfInflation(bytes);
      return null;
    }
    const docx = await readDocx(bytes);
    if (!docx) throw new UnreadableDocument('not a Word document');
    return docx;
  } catch (e) {
    throw refusedAs(e, 'docId', doc.fileName);
  }
}

/** What the AI may fill from: the profile's non-empty values, labelled in Hebrew and English. */
export function profileFacts(p: Profile, today: Date): { label: string; value: string }[] {
  const address = [p.street, [p.city, p.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  const facts: [string, string][] = [
    ['Owner name (Hebrew) / שם הבעלים', p.name],
    ['Owner name (English)', p.nameEn],
    ['Business name (Hebrew) / שם העסק', p.businessName],
    ['Business name (English)', p.businessNameEn],
    ['Company or dealer number / ח.פ. / עוסק מורשה', p.companyId],
    ['Business type', p.businessType],
    ['Address / כתובת', address],
    ['Street / רחוב', p.street],
    ['City / עיר', p.city],
    ['Zip / מיקוד', p.zip],
    ['Bank name / שם הבנק', p.docBankName],
    ['Bank code / קוד בנק', p.docBankCode],
    ['Branch / סניף', p.docBankBranch],
    ['Account number / מספר חשבון', p.docBankAccount],
    ['Account holder / שם בעל החשבון', p.docBankBeneficiary],
    ['Signer name (Hebrew) / שם החותם', p.myName],
    ['Signer name (English)', p.myNameEn],
    ["Today's date, Hebrew form / תאריך", formatDate(today, 'he')],
    ["Today's date, English form", formatDate(today, 'en')],
    ...p.docCustomFields.map((c) => [c.label, c.value] as [string, string]),
  ];
  return facts.filter(([, v]) => v && v.trim()).map(([label, value]) => ({ label, value }));
}

/** Dates as Israeli forms write them: 22.11.2026 in Hebrew, 22/11/2026 in English (Israel time). */
export function formatDate(d: Date, locale: 'he' | 'en'): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jerusalem', day: '2-digit', month: '2-digit', year: 'numeric' }).formatToParts(d);
  const get = (t: string) => parts.find((x) => x.type === t)?.value ?? '';
  return [get('day'), get('month'), get('year')].join(locale === 'he' ? '.' : '/');
}

const HEBREW = /[\u0590-\u05FF]/;
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Number.isFinite(n) ? n : lo));

/** The AI's fields made safe: trimmed, kinds known, pages within the document, boxes within 0–1000 and ordered. */
export function normalizeFields(raw: { label: string; value: string; kind: string; page: number; box: number[] }[], format: 'pdf' | 'docx', pageCount: number, today: Date): SignupField[] {
  const out: SignupField[] = [];
  for (const f of raw) {
    const label = clean(f.label, LIMITS.shortText);
    if (!label) continue;
    const kind = (FIELD_KINDS as readonly string[]).includes(f.kind) ? (f.kind as FieldKind) : 'text';
    let value = kind === 'signature' || kind === 'stamp' ? '' : clean(f.value, LIMITS.text);
    // A date blank the AI left empty gets today's date, written as the form's language writes dates.
    if (kind === 'date' && !value) value = formatDate(today, HEBREW.test(label) ? 'he' : 'en');
    let page = 0;
    let box = [0, 0, 0, 0];
    if (format === 'pdf') {
      page = Math.round(clamp(f.page, 0, pageCount - 1));
      const b = (Array.isArray(f.box) && f.box.length === 4 ? f.box : [0, 0, 0, 0]).map((n) => Math.round(clamp(n, 0, 1000) * 10) / 10);
      box = [Math.min(b[0], b[2]), Math.min(b[1], b[3]), Math.max(b[0], b[2]), Math.max(b[1], b[3])];
    }
    out.push({ label, value, kind, page, box });
    if (out.length >= MAX_FIELDS) break;
  }
  return out;
}

/** One line (multi-line kept with \n), no control or bidi-override characters, at most `max` characters. */
function clean(s: unknown, max: number): string {
  if (typeof s !== 'string') return '';
  const t = s.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, '').trim();
  return Array.from(t).slice(0, max).join('');
}
