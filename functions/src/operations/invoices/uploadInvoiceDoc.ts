import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { base64, fileName, bool, id, input, LIMITS, text, multilineText } from '../../core/schema.ts';
import { claimUpload, finishUpload, inlineOrUploaded, type UploadClaim } from '../../core/uploads.ts';
import { ApiError, isApiError, notFound } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { appendActivity } from '../../core/activity.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { readFolder } from '../../domain/invoices/folders.ts';
import { findDuplicate } from '../../domain/invoices/duplicates.ts';
import type { InvoiceReading, ReadingStatus } from '../../domain/invoices/invoices.ts';
import {
  checkUpload,
  invoiceView,
  invoiceViewSchema,
  matchSupplier,
  newInvoiceDoc,
  readInvoiceSafely,
  settleDocument,
  sha256Bytes,
  UPLOAD_MAX_BYTES,
  type Settled,
} from '../../domain/invoices/invoiceDocs.ts';

const skippedSchema = z.object({
  skipped: z.literal(true),
  /** The earlier document this upload duplicates. */
  duplicateOf: z.string(),
  reason: z.enum(['sha256', 'number', 'date_total']),
});

export default defineOperation({
  name: 'uploadInvoiceDoc',
  group: 'invoices',
  summary: 'Upload an invoice; the AI reads it, duplicates are detected',
  description:
    'Upload an invoice or receipt (PDF, JPEG or PNG, at most 5 MB) as dataBase64 (no data: prefix), or as fileId from createUploadUrl (the file PUT to a URL). AI reads it; a duplicate (same file, ' +
    'same issuer and number, or same issuer, date and total) is skipped with skipped=true and duplicateOf unless skipDuplicates=false. ' +
    'Without supplierKey the issuer is matched to a supplier (else software, else a supplier suggestion). folderId "" files by the folder rules. ' +
    'Without AI configured the document is stored unread; when the daily AI quota is used up it is stored unread and the call answers 429.',
  flags: { openWorld: true },
  input: input({
    fileName: fileName().optional().describe('File name (required with dataBase64; with fileId it replaces the upload\'s name); path parts and control characters are removed.'),
    mimeType: text(100).optional().describe('application/pdf, image/jpeg or image/png; must match the bytes. Required with dataBase64.'),
    dataBase64: base64(UPLOAD_MAX_BYTES).optional().describe('The file, base64 without a data: prefix, at most 5 MB decoded; or send fileId instead.'),
    fileId: id().optional().describe('An upload from createUploadUrl (purpose invoice) whose PUT succeeded, instead of dataBase64.'),
    supplierKey: text(LIMITS.email).optional().describe('Assign to this supplier (phone or email).'),
    supplierName: text().optional().describe('Supplier name to show with the assignment.'),
    note: multilineText(LIMITS.text).optional().describe('Free note; new lines allowed.'),
    skipDuplicates: bool().default(true).describe('true stores nothing when it duplicates an earlier invoice (the answer names it).'),
    folderId: z.string().trim().max(LIMITS.id).regex(/^(?!\.\.?$)[^/]*$/, 'not a valid id').default('').describe('Folder to file it in; "" (default) lets the folder rules decide.'),
  }),
  output: z.discriminatedUnion('skipped', [invoiceViewSchema.extend({ skipped: z.literal(false) }), skippedSchema]),
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const file = await checkUpload(await inlineOrUploaded(ctx, input, 'invoice'));
    // A file PUT to an upload URL is used up once this call stores (or skips) the document.
    const usedUp = async () => input.fileId && finishUpload(ctx, input.fileId);
    const sha256 = sha256Bytes(file.bytes);
    const now = ctx.clock.now();
    const at = iso(now);

    // Everything the caller names is checked before anything is stored or charged.
    let hand: { key: string | null; name: string } | null = null;
    if (input.supplierKey?.trim()) {
      const key = normalizeSupplierKey(input.supplierKey);
      const supplier = await ctx.store.get(suppliersPath(businessId, key));
      if (!supplier) throw notFound(`supplierKey: supplier ${key}`, 'supplier');
      hand = { key, name: input.supplierName?.trim() || (supplier.data as unknown as SupplierRecord).name || '' };
    } else if (input.supplierName?.trim()) hand = { key: null, name: input.supplierName.trim() };
    const folderId = input.folderId;
    if (folderId && !(await readFolder(ctx.store, businessId, folderId, at))) throw notFound(`folderId: folder ${folderId}`, 'folder');
    // The same bytes again cost neither storage nor an AI reading; the transaction re-checks race-free.
    if (input.skipDuplicates) {
      const same = await findDuplicate(ctx.store, businessId, { sha256, vendorKey: null, reading: null });
      if (same.duplicateOf) {
        await usedUp();
        return { skipped: true as const, duplicateOf: same.duplicateOf, reason: 'sha256' as const };
      }
    }

    let reading: InvoiceReading | null = null;
    let status: ReadingStatus = 'unread';
    let readingError: string | null = null;
    let quotaError: ApiError | null = null;
    if (!ctx.ai.configured) readingError = 'AI is not configured (no GEMINI_API_KEY): stored unread; analyzeInvoice reads it once AI is configured';
    else {
      try {
        await ctx.consumeQuota('ai');
      } catch (e) {
        if (!isApiError(e) || e.code !== 'resource-exhausted') throw e;
        quotaError = e;
        readingError = `not read: ${e.message}`;
      }
      if (!quotaError) {
        const r = await readInvoiceSafely(ctx.ai, { bytes: file.bytes, contentType: file.contentType, fileName: file.fileName });
        if (r.ok) [reading, status] = [r.value, 'read'];
        else [status, readingError] = ['failed', r.reason];
      }
    }
    const matched = hand ? undefined : await matchSupplier(ctx.store, businessId, reading);

    const ref = await ctx.files.save(businessId, { fileName: file.fileName, contentType: file.contentType, bytes: file.bytes });
    const docId = ctx.ids();
    const base = newInvoiceDoc(
      { docId, businessId, fileId: ref.fileId, fileName: file.fileName, contentType: file.contentType, size: file.bytes.length, sha256, source: 'upload', createdAtMs: now },
      {
        reading,
        readingStatus: status,
        readingError,
        readAt: status === 'unread' ? null : at,
        note: input.note?.trim() ?? '',
        supplierKey: hand?.key ?? null,
        supplierName: hand?.name ?? '',
        supplierBy: hand ? 'hand' : null,
        folderId,
        folderBy: folderId ? 'hand' : 'default',
      },
    );
    const attempt = () =>
      ctx.store.runTransaction(async (tx) => {
        // An upload by URL is used up in this commit: of two calls racing on one upload, one stores it.
        const claim = input.fileId ? await claimUpload(tx, ctx, input.fileId, 'fileId') : null;
        if (folderId && !(await readFolder(tx, businessId, folderId, at))) throw notFound(`folderId: folder ${folderId}`, 'folder');
        const settled = await settleDocument(tx, { businessId, at, doc: base, previous: null, matched, refile: !folderId });
        claim?.take();
        if (settled.duplicate.duplicateOf && input.skipDuplicates) return { skip: true, settled, claim };
        settled.commit();
        return { skip: false, settled, claim };
      });
    let outcome: { skip: boolean; settled: Settled; claim: UploadClaim | null };
    try {
      try {
        outcome = await attempt();
      } catch (e) {
        // A parallel upload created the hash marker first; run again to see it as a duplicate.
        if (!isApiError(e) || e.code !== 'already-exists') throw e;
        outcome = await attempt();
      }
    } catch (e) {
      await ctx.files.remove(businessId, ref.fileId).catch((err) => ctx.logger.warn('could not remove an unused upload', { fileId: ref.fileId, error: String(err) }));
      throw e;
    }
    const { doc, duplicate } = outcome.settled;
    await outcome.claim?.dropFile();
    if (outcome.skip) {
      await ctx.files.remove(businessId, ref.fileId);
      return { skipped: true as const, duplicateOf: duplicate.duplicateOf!, reason: duplicate.reason! };
    }
    if (quotaError) {
      // The call fails, so the executor writes no activity row; the stored document still gets one.
      await appendActivity(ctx.store, ctx.ids, ctx.caller, ctx.clock.now(), {
        operation: 'uploadInvoiceDoc',
        kind: 'invoices',
        params: { fileName: doc.fileName, skipped: false, status: 'unread', duplicate: false },
        targetIds: [docId, doc.folderId],
        summary: `uploaded ${doc.fileName}, stored unread: the daily AI quota is used up`,
      });
      throw new ApiError('resource-exhausted', `${quotaError.message}. The file was stored unread as document ${docId}; run analyzeInvoice with this docId to read it later.`, quotaError.details);
    }
    return { ...invoiceView(doc, ref.url), skipped: false as const };
  },
  activity: (input, result) =>
    result.skipped
      ? { params: { fileName: input.fileName ?? null, skipped: true, status: null, duplicate: true }, targetIds: [result.duplicateOf], summary: `skipped ${input.fileName ?? input.fileId}: a duplicate (${result.reason}) of ${result.duplicateOf}` }
      : {
          params: { fileName: result.fileName, skipped: false, status: result.readingStatus, duplicate: !!result.duplicateOf },
          targetIds: [result.docId, result.folderId],
          summary: `uploaded ${result.fileName} (${result.readingStatus}${result.duplicateOf ? `, duplicate of ${result.duplicateOf}` : ''}) into folder ${result.folderId}`,
        },
});
