import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { base64, input, LIMITS, text } from '../../core/schema.ts';
import { invalid, precondition } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { sanitizeFileName } from '../../core/text.ts';
import { claimUpload, takeUpload, type UploadClaim } from '../../core/uploads.ts';
import { businessPath, profileOf } from '../../domain/business.ts';
import {
  checkSignupUpload,
  getSignupDoc,
  normalizeFields,
  profileFacts,
  reopenSignupFile,
  signupDocPath,
  signupDocView,
  signupView,
  SIGNUP_MAX_BYTES,
  type SignupDocRecord,
} from '../../domain/signupDocs/signupDocs.ts';
import { docxText, type DocxForm } from '../../domain/signupDocs/signupDocx.ts';

export default defineOperation({
  name: 'analyzeSignupDoc',
  group: 'signupDocs',
  summary: "Upload a supplier's form; AI finds its blanks and suggests values",
  description:
    'Upload a PDF or DOCX onboarding form (base64 without a data: prefix, or fileId from createUploadUrl; at most 10 MB; the type is checked from the bytes), or send docId alone to ' +
    'analyze a stored form again. The AI lists the blanks as fields {label, value, kind, page, box} with values suggested from the business profile ' +
    '(names, company id, address, docBank* fields, docCustomFields, today). Review them, then call generateSignupDoc. Needs AI configured; counts against the daily AI quota.',
  flags: { openWorld: true },
  input: input({
    fileName: z.string().max(255).default('').describe('File name of an upload; path parts and control characters are removed.'),
    mimeType: text(200).default('').describe('application/pdf or application/vnd.openxmlformats-officedocument.wordprocessingml.document; must match the bytes.'),
    dataBase64: base64(SIGNUP_MAX_BYTES).default('').describe('The form, base64 without a data: prefix, at most 10 MB decoded.'),
    fileId: z.string().trim().max(LIMITS.id).regex(/^(?!\.\.?$)[^/]*$/, 'not a valid id').default('').describe('An upload from createUploadUrl (purpose signupDoc) whose PUT succeeded, instead of dataBase64.'),
    docId: z.string().trim().max(LIMITS.id).regex(/^(?!\.\.?$)[^/]*$/, 'not a valid id').default('').describe('A stored form to analyze again (send it alone).'),
  }),
  output: signupDocView,
  async run(given, ctx) {
    const { businessId } = ctx.caller;
    if (given.fileId && (given.dataBase64 || given.mimeType)) throw invalid('fileId', 'send fileId or dataBase64, not both', { reason: 'notBoth', params: { other: 'dataBase64' } });
    if (given.fileId && given.docId) throw invalid('docId', 'send either docId alone, or fileId for a new form', { reason: 'notBoth', params: { other: 'fileId' } });
    // An upload by URL is the same form as one sent inline.
    const input = given.fileId ? { ...given, ...(await takeUpload(ctx, given.fileId, 'fileId', 'signupDoc')), ...(given.fileName ? { fileName: given.fileName } : {}) } : given;
    const upload = Boolean(input.dataBase64 || input.fileName || input.mimeType);
    if (input.docId && upload) throw invalid('docId', 'send either docId alone, or fileName, mimeType and dataBase64 for a new form', { reason: 'notBoth', params: { other: 'dataBase64' } });
    if (!input.docId && !input.dataBase64) throw invalid('dataBase64', 'send the form (fileName, mimeType, dataBase64), or docId to analyze a stored one', { reason: 'sendOneOf', params: { fields: ['dataBase64', 'docId'] } });
    if (upload && !input.fileName.trim()) throw invalid('fileName', 'required with an upload', { reason: 'requiredWith', params: { other: 'dataBase64' } });

    let known: SignupDocRecord | null = null;
    let file: { bytes: Buffer; format: 'pdf' | 'docx'; contentType: string; pageCount: number; fileName: string; docx: DocxForm | null };
    if (input.docId) {
      known = await getSignupDoc(ctx.store, businessId, input.docId);
      const bytes = await ctx.files.read(businessId, known.fileId);
      if (!bytes) throw precondition(`the file of signup document ${input.docId} is no longer stored`, { reason: 'fileNoLongerStored' });
      const docx = await reopenSignupFile(known, bytes);
      file = { bytes, format: known.format, contentType: known.contentType, pageCount: known.pageCount, fileName: known.fileName, docx };
    } else {
      const checked = await checkSignupUpload(input);
      file = { ...checked, fileName: sanitizeFileName(input.fileName, checked.format === 'pdf' ? 'form.pdf' : 'form.docx') };
    }
    if (!ctx.ai.configured) throw precondition('AI is not configured: set GEMINI_API_KEY to analyze forms', { reason: 'aiNotConfigured' });
    const business = await ctx.store.get(businessPath(businessId));
    const now = ctx.clock.now();
    const today = new Date(now);
    const facts = profileFacts(profileOf(business?.data ?? {}), today);

    // A refused quota stores nothing.
    await ctx.consumeQuota('ai');
    const aiFile =
      file.format === 'pdf'
        ? { bytes: file.bytes, contentType: 'application/pdf', fileName: file.fileName }
        : { bytes: Buffer.from(docxText(file.docx!), 'utf8'), contentType: 'text/plain', fileName: file.fileName };
    const r = await ctx.ai.findFormFields(aiFile, facts, file.pageCount);
    const at = iso(now);
    const analysis = r.ok
      ? { fields: normalizeFields(r.value, file.format, file.pageCount, today), analysisStatus: 'analyzed' as const, analysisError: null, analyzedAt: at }
      : // A failed re-analysis keeps the fields found before; only the status says it failed.
        { fields: known?.fields ?? [], analysisStatus: 'failed' as const, analysisError: r.reason, analyzedAt: at };

    let record: SignupDocRecord;
    let claim: UploadClaim | null = null;
    if (known) {
      record = await ctx.store.runTransaction(async (tx) => {
        const cur = await getSignupDoc(tx, businessId, known.docId);
        const next = { ...cur, ...analysis, updatedAt: at };
        tx.set(signupDocPath(businessId, cur.docId), { ...next });
        return next;
      });
    } else {
      const ref = await ctx.files.save(businessId, { fileName: file.fileName, contentType: file.contentType, bytes: file.bytes });
      record = {
        docId: ctx.ids(),
        fileId: ref.fileId,
        fileName: ref.fileName,
        contentType: file.contentType,
        format: file.format,
        size: file.bytes.length,
        pageCount: file.pageCount,
        ...analysis,
        filled: [],
        createdAt: at,
        updatedAt: at,
      };
      const created = record;
      try {
        // An upload by URL is used up in this commit: of two calls racing on one upload, one stores it.
        claim = await ctx.store.runTransaction(async (tx) => {
          const c = given.fileId ? await claimUpload(tx, ctx, given.fileId, 'fileId') : null;
          c?.take();
          tx.create(signupDocPath(businessId, created.docId), { ...created });
          return c;
        });
      } catch (e) {
        await ctx.files.remove(businessId, ref.fileId).catch(() => {});
        throw e;
      }
    }
    const urls = new Map<string, string | null>();
    for (const id of [record.fileId, ...record.filled.map((f) => f.fileId)]) urls.set(id, (await ctx.files.ref(businessId, id))?.url ?? null);
    // The form was stored as the document's own file: the upload's own file goes.
    await (claim as UploadClaim | null)?.dropFile();
    return signupView(record, urls);
  },
  activity: (input, result) => ({
    params: { fileName: result.fileName, again: !!input.docId, fields: result.analysisStatus === 'analyzed' ? result.fields.length : null },
    targetIds: [result.docId],
    summary: `${input.docId ? 'analyzed again' : 'uploaded and analyzed'} form ${result.fileName}: ${result.analysisStatus === 'analyzed' ? `${result.fields.length} fields` : 'analysis failed'}`,
  }),
});
