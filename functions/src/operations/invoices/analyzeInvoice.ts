import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invalid, notFound, precondition } from '../../core/errors.ts';
import { invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { getPayment } from '../../domain/payments/paymentView.ts';
import { supplierAttachmentDoc } from '../../domain/invoices/supplierInvoices.ts';
import {
  getInvoice,
  viewWithUrl,
  invoiceViewSchema,
  matchSupplier,
  readInvoiceSafely,
  storeReading,
  supplierDocId,
} from '../../domain/invoices/invoiceDocs.ts';

/** An id, or "" for none. */
const optionalId = () => z.string().trim().max(LIMITS.id).regex(/^(?!\.\.?$)[^/]*$/, 'not a valid id').default('');

export default defineOperation({
  name: 'analyzeInvoice',
  group: 'invoices',
  summary: 'Read an invoice with AI again (an upload or a supplier attachment)',
  description:
    'Run (or run again) the AI reading of an invoice: an uploaded or imported document (docId), or a supplier attachment on a payment ' +
    '(paymentId, plus fileId for a document other than its first invoice), which then becomes an invoice document with source "supplier". ' +
    'Re-derives the issuer key, duplicates, pay mark, category rule, supplier match and rule-based folder. Needs AI configured; counts against the daily AI quota.',
  flags: { openWorld: true },
  input: input({ docId: optionalId().describe("Business upload to (re-)read with AI; or send paymentId + fileId for a supplier's attachment."), paymentId: optionalId().describe('Payment whose attached supplier invoice to read (with fileId).'), fileId: optionalId().describe('The attached file to read (with paymentId).') }),
  output: invoiceViewSchema,
  async run({ docId, paymentId, fileId }, ctx) {
    const { businessId } = ctx.caller;
    if (docId && (paymentId || fileId)) throw invalid('docId', 'send either docId, or paymentId (with an optional fileId), not both', { reason: 'notBoth', params: { other: 'paymentId' } });
    if (!docId && !paymentId) throw invalid('docId', fileId ? 'fileId needs paymentId' : 'send docId, or paymentId for a supplier attachment', { reason: 'sendOneOf', params: { fields: ['docId', 'paymentId'] } });
    if (!ctx.ai.configured) throw precondition('AI is not configured: set GEMINI_API_KEY to read invoices', { reason: 'aiNotConfigured' });

    // Which document, and which file it reads.
    let target: { docId: string; fileId: string; fileName: string; contentType: string };
    let fresh: InvoiceDoc | null = null;
    let known: InvoiceDoc;
    const now = ctx.clock.now();
    const at = iso(now);
    if (docId) {
      known = await getInvoice(ctx.store, businessId, docId);
      target = { docId, fileId: known.fileId, fileName: known.fileName, contentType: known.contentType };
    } else {
      const payment = await getPayment(ctx.store, businessId, paymentId);
      const file = fileId ? payment.invoices.find((f) => f.fileId === fileId) : payment.invoices[0];
      if (!file) {
        if (fileId) throw notFound(`fileId: invoice file ${fileId} on payment ${paymentId}`, 'file');
        throw precondition(`payment ${paymentId} has no invoice attached`, { reason: 'noInvoiceAttached' });
      }
      target = { docId: supplierDocId(paymentId, file.fileId), fileId: file.fileId, fileName: file.fileName, contentType: file.contentType };
      // A supplier attachment's issuer is the payment's supplier.
      fresh = supplierAttachmentDoc(businessId, payment, file, now);
      known = ((await ctx.store.get(invoicesPath(businessId, target.docId)))?.data as unknown as InvoiceDoc | undefined) ?? fresh;
    }
    const bytes = await ctx.files.read(businessId, target.fileId);
    if (!bytes) throw precondition(`the file of ${docId ? `invoice document ${docId}` : `payment ${paymentId}`} is no longer stored`, { reason: 'fileNoLongerStored' });

    // A refused quota leaves the document as it was (still unread) for a later call.
    await ctx.consumeQuota('ai');
    const r = await readInvoiceSafely(ctx.ai, { bytes, contentType: target.contentType, fileName: target.fileName });
    // Hand assignments and a payment's own supplier are kept; otherwise the issuer is matched again.
    const matched = r.ok && known.supplierBy !== 'hand' && known.source !== 'supplier' ? await matchSupplier(ctx.store, businessId, r.value) : undefined;

    const doc = await storeReading(ctx.store, { businessId, docId: target.docId, fresh, r, matched, at });
    if (!doc) throw notFound(`docId: invoice document ${docId}`, 'invoice');
    return viewWithUrl(ctx.files, ctx.store, doc);
  },
  activity: (input, result) => ({
    params: { fileName: result.fileName, status: result.readingStatus },
    targetIds: [result.docId, ...(input.paymentId ? [input.paymentId] : [])],
    summary: `AI reading of ${result.source} invoice ${result.fileName}: ${result.readingStatus}${result.vendorKey ? ` (${result.vendorKey})` : ''}`,
  }),
});
