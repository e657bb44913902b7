/**
 * Marking a payment paid, as markPaid and payRunMarkPaid both do it inside their transaction: the checks (status,
 * a known amount, approval), the invoices' pay marks, the record's change and the supplier's "paid" messages.
 */
import { invalid, notFound, precondition } from '../../core/errors.ts';
import type { Ctx } from '../../core/context.ts';
import { sniffFileType } from '../../core/fileTypes.ts';
import { pdfRefusal } from '../../core/pdfInflation.ts';
import type { Transaction } from '../../ports/store.ts';
import { syncPaymentMarks } from '../invoices/supplierInvoices.ts';
import { approvalPolicyOf, assertApproved, type ApprovalPolicy } from './approvals.ts';
import { businessContact, paymentPaidMessages, supplierLang } from './paymentMessages.ts';
import { getPayment } from './paymentView.ts';
import { assertAllowed, paymentsPath, type PaymentFile, type PaymentRecord } from './payments.ts';
import { suppliersPath, type SupplierRecord } from './suppliers.ts';

export const PROOF_MAX_BYTES = 5 * 1024 * 1024;
export const PROOF_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/webp', 'image/heic'] as const;

/** An open-amount payment whose amount nobody has filled yet has nothing to pay. */
export function assertPayable(p: PaymentRecord) {
  if (p.openAmount && p.amountAgorot === 0) {
    throw precondition('amountAgorot: this open-amount payment has no amount yet; wait for the supplier to fill it, or set it with updatePaymentSettings', { reason: 'amountNotSet' });
  }
}

/** Decodes and checks a proof: declared type accepted, bytes of that type, at most 5 MB, a PDF within the inflation caps. */
export async function checkProof(proof: { fileName: string; mimeType: string; dataBase64: string }) {
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

/** What paying a payment reads, all before any write (Firestore's rule). */
export interface PayingRead {
  p: PaymentRecord;
  business: NonNullable<Awaited<ReturnType<typeof businessContact>>>;
  supplier: SupplierRecord | null;
  policy: ApprovalPolicy;
}

export async function readForPaying(tx: Transaction, businessId: string, paymentId: string): Promise<PayingRead> {
  const p = await getPayment(tx, businessId, paymentId);
  const business = await businessContact(tx, businessId);
  if (!business) throw notFound('business', 'business');
  const supplier = ((await tx.get(suppliersPath(businessId, p.supplierKey)))?.data as unknown as SupplierRecord | undefined) ?? null;
  const policy = await approvalPolicyOf(tx, businessId);
  return { p, business, supplier, policy };
}

/** Refuses what cannot be paid: the status, an open amount not filled, an approval required and not granted. */
export function checkPaying(r: PayingRead): void {
  assertAllowed('markPaid', r.p.status);
  assertPayable(r.p);
  assertApproved(r.p, r.policy);
}

/**
 * The writes of paying (after every read of the transaction): the invoices' pay marks, the payment paid, the
 * supplier's messages (the proof's link in the email when there is one). Returns the record as it now is.
 */
export async function writePaid(tx: Transaction, ctx: Ctx, r: PayingRead, opts: { at: string; proof: PaymentFile | null; proofUrl: string | null; extra?: Record<string, unknown>; afterReads?: () => void }): Promise<PaymentRecord> {
  const { businessId } = ctx.caller;
  const changes = { status: 'paid', paidAt: opts.at, proof: opts.proof, updatedAt: opts.at, ...opts.extra } as const;
  await syncPaymentMarks(tx, businessId, { ...r.p, ...changes }, opts.at);
  opts.afterReads?.();
  tx.update(paymentsPath(businessId, r.p.id), changes);
  const next = { ...r.p, ...changes } as PaymentRecord;
  const lang = supplierLang(next, r.supplier);
  for (const message of await paymentPaidMessages(ctx.config, next, r.business, lang, opts.proofUrl)) ctx.outbox(tx, message, { ref: next.id, reason: 'markPaid' });
  return next;
}
