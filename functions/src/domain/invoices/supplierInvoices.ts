import type { Services } from '../../core/context.ts';
import { iso } from '../../core/clock.ts';
import { isApiError } from '../../core/errors.ts';
import { consumeQuota } from '../../core/quota.ts';
import type { DocStore, Transaction } from '../../ports/store.ts';
import { paymentsPath, type PaymentFile, type PaymentRecord } from '../payments/payments.ts';
import { invoicesPath, type InvoiceDoc } from './invoices.ts';
import { newInvoiceDoc, readInvoiceSafely, settleDocument, storeReading, supplierDocId } from './invoiceDocs.ts';
import { effectivePayMark, paymentPayMark } from './payMarks.ts';

/**
 * Invoices a supplier attaches on the link page (or files with a standing-link request) become
 * invoice documents on arrival, and a task reads them with AI under the business's daily AI quota,
 * so they are in invoicesList, the accountant ZIP and the reports without anyone calling analyzeInvoice.
 */
export const SUPPLIER_INVOICE_QUEUE = 'supplierInvoiceRead';

/** A supplier attachment's document, unread; its issuer is the payment's supplier. */
export function supplierAttachmentDoc(businessId: string, payment: Pick<PaymentRecord, 'id' | 'supplierKey' | 'supplierName' | 'status' | 'payout'>, file: PaymentFile, now: number): InvoiceDoc {
  // Dated by the upload, so the document is the same whichever path creates it first.
  const uploaded = Date.parse(file.uploadedAt);
  return newInvoiceDoc(
    {
      docId: supplierDocId(payment.id, file.fileId),
      businessId,
      fileId: file.fileId,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.size,
      sha256: file.sha256,
      source: 'supplier',
      createdAtMs: Number.isFinite(uploaded) ? uploaded : now,
    },
    // A late invoice on a paid payment is paid the way the payment was.
    { paymentId: payment.id, paymentMark: paymentPayMark(payment), supplierKey: payment.supplierKey, supplierName: payment.supplierName, supplierBy: 'auto' },
  );
}

/**
 * Inside markPaid's or revertPaid's transaction, before its writes: the payment's invoice documents
 * take the payment's pay method (or lose it), so lists, reports and the ZIP stop trusting the AI's guess.
 */
export async function syncPaymentMarks(tx: Transaction, businessId: string, payment: Pick<PaymentRecord, 'id' | 'invoices' | 'status' | 'payout'>, at: string): Promise<void> {
  const paymentMark = paymentPayMark(payment);
  // The supplier's attachments, and the owner's uploads the payment was made with (createPayment's invoiceDocId).
  const paths = payment.invoices.flatMap((f) => [invoicesPath(businessId, supplierDocId(payment.id, f.fileId)), ...(f.docId ? [invoicesPath(businessId, f.docId)] : [])]);
  for (const d of await tx.getAll(paths)) {
    const doc = d?.data as unknown as InvoiceDoc | undefined;
    // An upload attached to several payments follows the one it names.
    if (!d || !doc || (doc.paymentId && doc.paymentId !== payment.id) || (doc.paymentMark ?? null) === paymentMark) continue;
    const mark = effectivePayMark({ payMark: doc.payMark ?? '', paymentMark, payRule: doc.payRule ?? '', aiPayMethod: doc.reading?.payMethod });
    tx.update(d.path, { paymentMark, effectivePayMark: mark, updatedAt: at });
  }
}

/** Stores the unread document unless it is stored already; returns what is stored. */
async function ensureDoc(store: DocStore, fresh: InvoiceDoc, at: string, readingError: string | null): Promise<InvoiceDoc> {
  return store.runTransaction(async (tx) => {
    const stored = await tx.get(invoicesPath(fresh.businessId, fresh.docId));
    if (stored) return stored.data as unknown as InvoiceDoc;
    const settled = await settleDocument(tx, { businessId: fresh.businessId, at, doc: { ...fresh, readingError }, previous: null, matched: undefined, refile: true });
    settled.commit();
    return settled.doc;
  });
}

const taskId = (businessId: string, docId: string) => `supinv-${businessId}-${docId}`;

/**
 * After the submission committed: the document appears at once (unread), and the reading is queued.
 * Never fails the supplier's submission: what fails here is logged, and analyzeInvoice still reads it.
 */
export async function supplierInvoiceArrived(s: Services, businessId: string, payment: PaymentRecord, file: PaymentFile): Promise<void> {
  const now = s.clock.now();
  const fresh = supplierAttachmentDoc(businessId, payment, file, now);
  const held = unreadReason(s, payment);
  try {
    await ensureDoc(s.store, fresh, iso(now), held);
  } catch (e) {
    s.logger.warn('could not store the supplier invoice document; the reading task will', { businessId, paymentId: payment.id, error: String(e) });
  }
  if (held) return;
  try {
    await s.tasks.enqueue(SUPPLIER_INVOICE_QUEUE, { businessId, paymentId: payment.id, fileId: file.fileId }, { id: taskId(businessId, fresh.docId) });
  } catch (e) {
    s.logger.error('could not enqueue the supplier invoice reading; analyzeInvoice reads it', { businessId, paymentId: payment.id, error: String(e) });
  }
}

const NO_AI = 'AI is not configured (no GEMINI_API_KEY): stored unread; analyzeInvoice reads it once AI is configured';
const UNREVIEWED = 'filed through the public link and waiting for review: not read automatically (anonymous filings do not spend the AI quota); analyzeInvoice reads it';

/** Why an arriving invoice is not read automatically, or null when it is. */
const unreadReason = (s: Services, payment: PaymentRecord): string | null => (!s.ai.configured ? NO_AI : payment.needsReview === true ? UNREVIEWED : null);

/**
 * The task: reads one supplier attachment once. Delivery is at least once, so a document already
 * read (by an earlier run or by analyzeInvoice) is left alone, and the quota charge is marked with
 * the document id (consumeQuota `once`), so a retry after the charge is not charged again.
 * A used-up quota leaves the document unread, saying why; the task then ends (no retry storm).
 */
export async function readSupplierInvoice(s: Services, payload: Record<string, unknown>): Promise<void> {
  const { businessId, paymentId, fileId } = payload;
  if (typeof businessId !== 'string' || typeof paymentId !== 'string' || typeof fileId !== 'string') {
    s.logger.error('supplier invoice task with a malformed payload', { payload });
    return;
  }
  const paymentDoc = await s.store.get(paymentsPath(businessId, paymentId));
  const payment = paymentDoc?.data as unknown as PaymentRecord | undefined;
  const file = payment?.invoices?.find((f) => f.fileId === fileId);
  if (!payment || !file) return; // the payment or its file is gone: nothing to read
  const now = s.clock.now();
  const at = iso(now);
  const fresh = supplierAttachmentDoc(businessId, payment, file, now);
  const path = invoicesPath(businessId, fresh.docId);
  const current = await ensureDoc(s.store, fresh, at, null);
  if (current.readingStatus !== 'unread') return;
  const note = (readingError: string) => s.store.update(path, { readingError, updatedAt: at });
  const held = unreadReason(s, payment);
  if (held) return note(held);

  const bytes = await s.files.read(businessId, fileId);
  if (!bytes) return note('the file is no longer stored');
  try {
    await consumeQuota(s.store, s.config.quotas, businessId, 'ai', 1, now, { once: fresh.docId });
  } catch (e) {
    if (isApiError(e) && e.code === 'resource-exhausted') return note(`not read: ${e.message}; analyzeInvoice reads it later`);
    throw e;
  }
  const r = await readInvoiceSafely(s.ai, { bytes, contentType: file.contentType, fileName: file.fileName });
  // The payment's supplier stays the document's supplier (matched undefined), as analyzeInvoice does.
  await storeReading(s.store, { businessId, docId: fresh.docId, fresh, r, matched: undefined, at, onlyUnread: true });
}
