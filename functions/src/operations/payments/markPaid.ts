import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { base64, fileName, id, input, LIMITS, text } from '../../core/schema.ts';
import { invalid, notFound, precondition } from '../../core/errors.ts';
import { sniffFileType } from '../../core/fileTypes.ts';
import { pdfRefusal } from '../../core/pdfInflation.ts';
import { claimUpload, inlineOrUploaded, type UploadClaim } from '../../core/uploads.ts';
import { formatAmount } from '../../domain/money.ts';
import { assertAllowed, paymentsPath, type PaymentFile, type PaymentRecord } from '../../domain/payments/payments.ts';
import { paymentPaidMessages, businessContact, supplierLang } from '../../domain/payments/paymentMessages.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { paymentAmounts } from '../../domain/vat.ts';
import { syncPaymentMarks } from '../../domain/invoices/supplierInvoices.ts';

export const PROOF_MAX_BYTES = 5 * 1024 * 1024;
export const PROOF_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/webp', 'image/heic'] as const;
type ProofType = (typeof PROOF_TYPES)[number];

/** An open-amount payment whose amount nobody has filled yet has nothing to pay. */
function assertPayable(p: PaymentRecord) {
  if (p.openAmount && p.amountAgorot === 0) {
    throw precondition('amountAgorot: this open-amount payment has no amount yet; wait for the supplier to fill it, or set it with updatePaymentSettings', { reason: 'amountNotSet' });
  }
}

/** Decodes and checks a proof: declared type accepted, bytes of that type, at most 5 MB, a PDF within the inflation caps. */
async function checkProof(proof: { fileName: string; mimeType: string; dataBase64: string }) {
  const declared = proof.mimeType.trim().toLowerCase();
  if (!(PROOF_TYPES as readonly string[]).includes(declared)) throw invalid('proof.mimeType', `"${proof.mimeType}" is not accepted; send a PDF or an image (${PROOF_TYPES.join(', ')})`, { reason: 'fileTypeNotAccepted', params: { types: [...PROOF_TYPES] } });
  const bytes = Buffer.from(proof.dataBase64, 'base64');
  if (bytes.length === 0) throw invalid('proof.dataBase64', 'the file is empty', { reason: 'fileEmpty' });
  if (bytes.length > PROOF_MAX_BYTES) throw invalid('proof.dataBase64', `the file is ${bytes.length} bytes; at most 5 MB (${PROOF_MAX_BYTES} bytes)`, { reason: 'fileTooLarge', params: { maxMb: 5 } });
  const actual = sniffFileType(bytes);
  if (actual !== declared) throw invalid('proof.dataBase64', actual ? `the bytes are ${actual}, not ${declared}` : `the bytes are not a PDF or an image (${declared} declared)`, { reason: 'fileContentMismatch' });
  const refused = actual === 'application/pdf' ? await pdfRefusal(bytes) : null;
  if (refused) throw invalid('proof.dataBase64', `${proof.fileName.trim()}: ${refused}`, { reason: 'fileUnreadable' });
  return { fileName: proof.fileName.trim(), contentType: declared, bytes };
}

export default defineOperation({
  name: 'markPaid',
  group: 'payments',
  summary: 'Mark a payment paid, optionally with a proof; the supplier is told',
  description:
    'Mark an unpaid payment paid, optionally with a proof of payment (a bank screenshot or PDF, at most 5 MB: base64 without a data: prefix, or fileId from createUploadUrl); the supplier is told.',
  flags: { openWorld: true },
  input: input({
    paymentId: id().describe('Payment id (from createPayment or paymentsList).'),
    proof: z
      .strictObject({
        fileName: fileName().optional().describe('File name of the proof (required with dataBase64); path parts and control characters are removed.'),
        mimeType: text(100).optional().describe('application/pdf, image/jpeg, image/png, image/webp or image/heic; must match the bytes. Required with dataBase64.'),
        dataBase64: base64(PROOF_MAX_BYTES).optional().describe('The file, base64 without a data: prefix, at most 5 MB decoded; or send fileId instead.'),
        fileId: id().optional().describe('An upload from createUploadUrl (purpose proof) whose PUT succeeded, instead of dataBase64.'),
      })
      .optional()
      .describe('Optional proof of payment (a bank screenshot or PDF), stored with a download link.'),
  }),
  output: paymentViewSchema,
  async run({ paymentId, proof }, ctx) {
    const { businessId } = ctx.caller;
    const file = proof ? await checkProof(await inlineOrUploaded(ctx, proof, 'proof', 'proof.')) : null;
    // Fail fast before storing a file that could not be used; the transaction checks again.
    const current = await getPayment(ctx.store, businessId, paymentId);
    assertAllowed('markPaid', current.status);
    assertPayable(current);

    const now = ctx.clock.now();
    const at = new Date(now).toISOString();
    let stored: PaymentFile | null = null;
    let proofUrl: string | null = null;
    if (file) {
      const ref = await ctx.files.save(businessId, { fileName: file.fileName, contentType: file.contentType, bytes: file.bytes });
      proofUrl = ref.url;
      stored = { fileId: ref.fileId, fileName: ref.fileName, contentType: ref.contentType, size: ref.size, sha256: createHash('sha256').update(file.bytes).digest('hex'), uploadedAt: at };
    }
    let updated: PaymentRecord;
    let claim: UploadClaim | null = null;
    try {
      updated = await ctx.store.runTransaction(async (tx) => {
        const p = await getPayment(tx, businessId, paymentId);
        const business = await businessContact(tx, businessId);
        if (!business) throw notFound('business', 'business');
        const supplier = await tx.get(suppliersPath(businessId, p.supplierKey));
        // An upload by URL is used up in this commit: two payments racing on one proof, one wins.
        claim = proof?.fileId ? await claimUpload(tx, ctx, proof.fileId, 'proof.fileId') : null;
        assertAllowed('markPaid', p.status);
        assertPayable(p);
        const changes = { status: 'paid', paidAt: at, proof: stored, updatedAt: at } as const;
        await syncPaymentMarks(tx, businessId, { ...p, ...changes }, at);
        claim?.take();
        tx.update(paymentsPath(businessId, paymentId), changes);
        const next: PaymentRecord = { ...p, ...changes };
        const lang = supplierLang(next, (supplier?.data as unknown as SupplierRecord | undefined) ?? null);
        // The supplier's email links the proof of transfer (a capability link) when there is one.
        for (const message of await paymentPaidMessages(ctx.config, next, business, lang, proofUrl)) ctx.outbox(tx, message, { ref: next.id });
        return next;
      });
    } catch (e) {
      // The payment never pointed at the file (e.g. a concurrent markPaid or cancel won): drop it.
      if (stored) await ctx.files.remove(businessId, stored.fileId).catch((err) => ctx.logger.warn('could not remove an unused proof file', { paymentId, error: String(err) }));
      throw e;
    }
    // The proof was copied into the payment: the upload's own file goes.
    await (claim as UploadClaim | null)?.dropFile();
    return paymentView(updated, viewDeps(ctx));
  },
  activity: (input, result) => ({
    params: { supplier: result.supplierName, amountAgorot: paymentAmounts(result).totalAgorot, currency: result.currency, proof: !!input.proof },
    targetIds: [result.id],
    summary: `marked the payment to ${result.supplierName} paid (${formatAmount(paymentAmounts(result).totalAgorot, result.currency)})${input.proof ? ' with a proof' : ''}`,
  }),
});
