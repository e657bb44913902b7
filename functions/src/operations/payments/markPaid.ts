import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { base64, fileName, id, input, text } from '../../core/schema.ts';
import { claimUpload, inlineOrUploaded, type UploadClaim } from '../../core/uploads.ts';
import { formatAmount } from '../../domain/money.ts';
import { approvalPolicyOf, assertApproved } from '../../domain/payments/approvals.ts';
import { assertAllowed, type PaymentFile, type PaymentRecord } from '../../domain/payments/payments.ts';
import { assertPayable, checkPaying, checkProof, PROOF_MAX_BYTES, readForPaying, writePaid } from '../../domain/payments/paying.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { paymentAmounts } from '../../domain/vat.ts';

export { PROOF_MAX_BYTES, PROOF_TYPES } from '../../domain/payments/paying.ts';

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
    assertApproved(current, await approvalPolicyOf(ctx.store, businessId));

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
        const r = await readForPaying(tx, businessId, paymentId);
        // An upload by URL is used up in this commit: two payments racing on one proof, one wins.
        claim = proof?.fileId ? await claimUpload(tx, ctx, proof.fileId, 'proof.fileId') : null;
        checkPaying(r);
        // The supplier's email links the proof of transfer (a capability link) when there is one.
        return writePaid(tx, ctx, r, { at, proof: stored, proofUrl, afterReads: () => claim?.take() });
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
