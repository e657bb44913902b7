import { z } from 'zod';
import type { Reader } from '../../ports/store.ts';
import { paymentAmounts } from '../vat.ts';
import type { Currency } from '../money.ts';
import { paymentsPath, type PaymentFile, type PaymentRecord } from '../payments/payments.ts';
import { invoicesPath, supplierDocId, type InvoiceDoc, type InvoiceReading } from './invoices.ts';

/**
 * Whether an invoice's AI reading disagrees with the payment it is attached to: its total, its
 * currency, or both. Computed when shown, from the stored reading and payment, so it follows a
 * re-reading, a hand correction and an amount the supplier enters, with nothing to keep in step.
 */
export const readingMismatchSchema = z
  .object({
    total: z.boolean().describe("true: the reading's total differs from what the business pays (VAT included)."),
    currency: z.boolean().describe("true: the reading's currency differs from the payment's."),
  })
  .nullable()
  .describe("Where the invoice's AI reading disagrees with its payment (total, currency); null when it agrees, is unread, or there is no payment.");
export type ReadingMismatch = z.output<typeof readingMismatchSchema>;

type PaymentFigures = Pick<PaymentRecord, 'amountAgorot' | 'openAmount' | 'currency' | 'vatIncluded' | 'noVat'>;

export function readingMismatch(reading: InvoiceReading | null | undefined, payment: PaymentFigures | null | undefined): ReadingMismatch {
  if (!reading || !payment) return null;
  const payCurrency = payment.currency ?? 'ILS';
  const currency = reading.currency !== null && reading.currency !== payCurrency;
  // An open amount the supplier has not entered yet has nothing to compare; figures in two currencies neither.
  const known = !(payment.openAmount === true && payment.amountAgorot === 0);
  let total = false;
  if (known && !currency && reading.totalMinor !== null) {
    const vat = { amountAgorot: payment.amountAgorot, vatIncluded: payment.vatIncluded === true, noVat: payment.noVat === true };
    const a = paymentAmounts(vat);
    // VAT we added to a net amount is our rounding: the invoice's may differ by an agora.
    const slack = a.mode === 'added' ? 1 : 0;
    total = Math.abs(reading.totalMinor - a.totalAgorot) > slack;
  }
  return total || currency ? { total, currency } : null;
}

/** The documents that may hold the reading of a payment's file: its supplier document, then the upload it was copied from. */
const fileDocIds = (paymentId: string, f: PaymentFile) => [supplierDocId(paymentId, f.fileId), ...(f.docId ? [f.docId] : [])];

/**
 * The reading of each payment's latest invoice, in one batched read: a read supplier document wins
 * (a re-analysis of the attachment), else the uploaded document the file was copied from.
 */
export async function latestReadings(reader: Reader, payments: readonly PaymentRecord[]): Promise<Map<string, InvoiceReading | null>> {
  const wanted = payments.flatMap((p) => {
    const f = (p.invoices ?? []).at(-1);
    return f ? fileDocIds(p.id, f).map((docId) => ({ paymentId: p.id, path: invoicesPath(p.businessId, docId) })) : [];
  });
  const found = wanted.length ? await reader.getAll(wanted.map((w) => w.path)) : [];
  const out = new Map<string, InvoiceReading | null>(payments.map((p) => [p.id, null]));
  found.forEach((d, i) => {
    const doc = d?.data as unknown as InvoiceDoc | undefined;
    const id = wanted[i].paymentId;
    if (doc?.reading && doc.readingStatus !== 'unread' && out.get(id) === null) out.set(id, doc.reading);
  });
  return out;
}

/** The payments the documents are attached to, in one batched read (paymentId → payment). */
export async function paymentsOfDocs(reader: Reader, businessId: string, docs: readonly Pick<InvoiceDoc, 'paymentId'>[]): Promise<Map<string, PaymentRecord>> {
  const ids = [...new Set(docs.map((d) => d.paymentId).filter((id): id is string => typeof id === 'string' && id !== ''))];
  const found = ids.length ? await reader.getAll(ids.map((id) => paymentsPath(businessId, id))) : [];
  const out = new Map<string, PaymentRecord>();
  found.forEach((d, i) => d && out.set(ids[i], d.data as unknown as PaymentRecord));
  return out;
}

/**
 * The figures a file name and an index may state as fact: the reading's, unless it disagrees with its
 * payment; then the payment's (what the business pays), or none while an open amount is not entered.
 */
export function certainFigures(reading: InvoiceReading | null | undefined, payment: PaymentRecord | null | undefined): { totalMinor: number | null; vatMinor: number | null; currency: Currency | null } {
  if (!readingMismatch(reading, payment) || !payment) return { totalMinor: reading?.totalMinor ?? null, vatMinor: reading?.vatMinor ?? null, currency: reading?.currency ?? null };
  if (payment.openAmount === true && payment.amountAgorot === 0) return { totalMinor: null, vatMinor: null, currency: null };
  const a = paymentAmounts({ amountAgorot: payment.amountAgorot, vatIncluded: payment.vatIncluded === true, noVat: payment.noVat === true });
  return { totalMinor: a.totalAgorot, vatMinor: a.vatAgorot, currency: payment.currency ?? 'ILS' };
}
