import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, id, input } from '../../core/schema.ts';
import { invalid, precondition } from '../../core/errors.ts';
import { iso, jerusalemDay } from '../../core/clock.ts';
import { refusedAs } from '../../core/documentLimits.ts';
import { businessPath, profileOf, type BusinessRecord } from '../../domain/business.ts';
import { fieldSchema, getSignupDoc, MAX_FIELDS, signupDocPath, type FilledFile } from '../../domain/signupDocs/signupDocs.ts';
import { fillPdf } from '../../domain/signupDocs/signupPdf.ts';
import { fillDocx } from '../../domain/signupDocs/signupDocx.ts';
import { initialsOf, signaturePng, stampPng } from '../../domain/signupDocs/stamp.ts';

/** Filled copies kept per form; the oldest beyond this is deleted when a new one is made. */
const KEEP_FILLED = 20;

export default defineOperation({
  name: 'generateSignupDoc',
  group: 'signupDocs',
  summary: 'Write reviewed values into a form; returns the filled file',
  description:
    'Writes the reviewed fields into a copy of the form (the original is never changed; each call makes a new file). PDF: values set in their boxes ' +
    '(Hebrew right-to-left, shrunk to fit), checkboxes ticked. withSignature / withStamp put the stored signature and stamp images (updateBusiness ' +
    'docSignaturePng / docStampPng) in the fields of kind signature / stamp; without a stored image the signature is myName in a handwriting font and ' +
    'the stamp a round stamp with businessName and companyId. withInitials (PDF only) puts your initials in the bottom margin of every page. DOCX: values ' +
    'go into the blank after each label; signature and stamp become inline images.',
  flags: {},
  input: input({
    docId: id().describe('Signup document id (from analyzeSignupDoc).'),
    fields: z.array(fieldSchema).max(MAX_FIELDS).describe('The reviewed fields (from analyzeSignupDoc, edited), at most 200.'),
    withSignature: bool().describe('Place the signature in the fields of kind signature.'),
    withStamp: bool().describe('Place the business stamp in the fields of kind stamp.'),
    withInitials: bool().default(false).describe('PDF only: initials in the bottom margin of every page.'),
  }),
  output: z.object({ docId: z.string(), fileId: z.string(), fileName: z.string(), contentType: z.string(), size: z.int(), url: z.string(), createdAt: z.string() }),
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const doc = await getSignupDoc(ctx.store, businessId, input.docId);
    if (doc.format === 'docx' && input.withInitials) throw invalid('withInitials', 'initials in the page margin are for PDF forms only', { reason: 'pdfOnlyOption' });
    if (doc.format === 'pdf') {
      input.fields.forEach((f, i) => {
        if (f.page >= doc.pageCount) throw invalid(`fields.${i}.page`, `the form has ${doc.pageCount} page(s) (0-based)`, { reason: 'pageOutOfForm', params: { pages: doc.pageCount } });
        if (f.box[2] < f.box[0] || f.box[3] < f.box[1]) throw invalid(`fields.${i}.box`, 'expected [ymin, xmin, ymax, xmax] with ymin ≤ ymax and xmin ≤ xmax', { reason: 'badBox' });
      });
    }
    const business = await ctx.store.get(businessPath(businessId));
    const profile = profileOf(business?.data ?? {});
    const stored = (business?.data ?? {}) as Partial<BusinessRecord>;
    const signer = (profile.myName || profile.myNameEn || profile.name).trim();
    const wants = (kind: string) => input.fields.some((f) => f.kind === kind);

    let signature: Buffer | null = null;
    if (input.withSignature && wants('signature')) {
      signature = stored.docSignatureFileId ? await ctx.files.read(businessId, stored.docSignatureFileId) : null;
      if (!signature) {
        if (!signer) throw precondition('withSignature: no signature image is stored (updateBusiness docSignaturePng) and the profile has no myName', { reason: 'signatureMissing' });
        signature = await signaturePng(signer);
      }
    }
    let stamp: Buffer | null = null;
    if (input.withStamp && wants('stamp')) {
      stamp = stored.docStampFileId ? await ctx.files.read(businessId, stored.docStampFileId) : null;
      if (!stamp) {
        const name = (profile.businessName || profile.businessNameEn).trim();
        if (!name) throw precondition('withStamp: no stamp image is stored (updateBusiness docStampPng) and the profile has no businessName', { reason: 'signatureMissing' });
        stamp = await stampPng(name, profile.companyId);
      }
    }
    let initials: string | null = null;
    if (input.withInitials) {
      if (!signer) throw precondition('withInitials: the profile has no myName to take initials from', { reason: 'signatureMissing' });
      initials = initialsOf(signer);
    }

    const original = await ctx.files.read(businessId, doc.fileId);
    if (!original) throw precondition(`the file of signup document ${doc.docId} is no longer stored`, { reason: 'fileNoLongerStored' });
    // The same caps as the upload: a form stored before one existed is refused here, naming docId and the file.
    const bytes = await (doc.format === 'pdf'
      ? fillPdf(original, input.fields, { signaturePng: signature, stampPng: stamp, initials })
      : fillDocx(original, input.fields, { signaturePng: signature, stampPng: stamp }).then((r) => r.bytes)
    ).catch((e) => {
      throw refusedAs(e, 'docId', doc.fileName);
    });

    const nowMs = ctx.clock.now();
    const at = iso(nowMs);
    const dot = doc.fileName.lastIndexOf('.');
    const base = dot > 0 ? doc.fileName.slice(0, dot) : doc.fileName;
    const fileName = `${base} - filled ${jerusalemDay(nowMs)}.${doc.format}`;
    const ref = await ctx.files.save(businessId, { fileName, contentType: doc.contentType, bytes });
    const entry: FilledFile = { fileId: ref.fileId, fileName: ref.fileName, createdAt: at, withSignature: input.withSignature, withStamp: input.withStamp, withInitials: input.withInitials };
    let evicted: FilledFile[] = [];
    try {
      evicted = await ctx.store.runTransaction(async (tx) => {
        const cur = await getSignupDoc(tx, businessId, doc.docId);
        const filled = [...cur.filled, entry];
        const drop = filled.slice(0, Math.max(0, filled.length - KEEP_FILLED));
        tx.update(signupDocPath(businessId, doc.docId), { filled: filled.slice(drop.length), updatedAt: at });
        return drop;
      });
    } catch (e) {
      await ctx.files.remove(businessId, ref.fileId).catch(() => {});
      throw e;
    }
    for (const f of evicted) await ctx.files.remove(businessId, f.fileId);
    return { docId: doc.docId, fileId: ref.fileId, fileName: ref.fileName, contentType: doc.contentType, size: bytes.length, url: ref.url, createdAt: at };
  },
  activity: (input, result) => ({ params: { fileName: result.fileName }, targetIds: [input.docId, result.fileId], summary: `filled form as ${result.fileName}` }),
});
