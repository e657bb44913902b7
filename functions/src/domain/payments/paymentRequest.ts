import type { Config } from '../../config.ts';
import type { OutboundMessage } from '../../ports/outbox.ts';
import type { Transaction } from '../../ports/store.ts';
import { invalid } from '../../core/errors.ts';
import { normalizeEmail, normalizePhone, requireMobileForWhatsApp, supplierKeyOf } from '../contacts.ts';
import type { Currency } from '../money.ts';
import { defaultNoVat } from '../vat.ts';
import { checkDueDate } from './dueDates.ts';
import { normalizePayMethods, paymentSearchTokens, paymentsPath, type Channel, type PayMethod, type PaymentFile, type PaymentRecord } from './payments.ts';
import { businessContact, paymentRequestMessages, supplierLang, type BusinessContact } from './paymentMessages.ts';
import { recordPaymentToSupplier, suppliersPath, type SupplierRecord } from './suppliers.ts';
import { currentSupplierKey } from './supplierAliases.ts';

/**
 * A payment request as createPayment makes it, shared with the recurring schedules (issue 39): the checks made
 * before any write, and the writes of one request inside the caller's transaction (the payment, its link, the
 * supplier's count, the messages on its channel).
 */
export interface PaymentRequestFields {
  amountAgorot: number;
  vatIncluded: boolean;
  noVat?: boolean | null;
  description: string;
  supplierName: string;
  openAmount: boolean;
  currency: Currency;
  invoiceRequired: boolean;
  payMethods?: readonly PayMethod[] | null;
  supplierPhone?: string | null;
  supplierEmail?: string | null;
  channel?: 'link' | null;
  dueDate?: string | null;
}

export interface CheckedRequest {
  phone: string | null;
  email: string | null;
  /** The supplierKey the contact gives (before following a merge). */
  contactKey: string;
  channel: Channel;
  dueDate: string | null;
}

/** createPayment's checks, in its order: each refusal is invalid-argument naming its field. */
export function checkPaymentRequest(input: PaymentRequestFields): CheckedRequest {
  if (input.currency && input.currency !== 'ILS' && input.payMethods?.length === 1 && input.payMethods[0] === 'bit') {
    throw invalid('payMethods', `Bit pays shekels only; a ${input.currency} payment needs bank`, { reason: 'bitShekelsOnly', params: { currency: input.currency } });
  }
  if (input.openAmount && input.amountAgorot !== 0) throw invalid('amountAgorot', 'must be 0 when openAmount is true (the supplier fills the amount)', { reason: 'openAmountNotZero' });
  if (!input.openAmount && input.amountAgorot <= 0) throw invalid('amountAgorot', 'must be a positive integer (or 0 with openAmount true)', { reason: 'amountNotPositive' });
  const phone = input.supplierPhone?.trim() ? normalizePhone(input.supplierPhone, 'supplierPhone') : null;
  const email = input.supplierEmail?.trim() ? normalizeEmail(input.supplierEmail, 'supplierEmail') : null;
  const dueDate = checkDueDate(input.dueDate) ?? null;
  if (!phone && !email) throw invalid('supplierPhone', 'a supplierPhone or a supplierEmail is required', { reason: 'supplierContactRequired' });
  const contactKey = supplierKeyOf({ phone, email });
  const channel: Channel = input.channel === 'link' ? 'link' : phone ? 'wa' : 'em';
  if (channel === 'wa') requireMobileForWhatsApp(phone!, 'supplierPhone');
  return { phone, email, contactKey, channel, dueDate };
}

/** What a request's transaction reads first (every read before any write): the business, and the supplier the contact files under now. */
export interface RequestReads {
  business: BusinessContact | null;
  supplierKey: string;
  supplier: SupplierRecord | null;
}

export async function readPaymentRequest(tx: Transaction, businessId: string, contactKey: string): Promise<RequestReads> {
  const business = await businessContact(tx, businessId);
  // A merged supplier's contact files under the supplier it was merged into (supplierMerge).
  const supplierKey = await currentSupplierKey(tx, businessId, contactKey);
  const supplierDoc = await tx.get(suppliersPath(businessId, supplierKey));
  return { business, supplierKey, supplier: (supplierDoc?.data as unknown as SupplierRecord | undefined) ?? null };
}

export interface RequestWrite {
  businessId: string;
  paymentId: string;
  input: PaymentRequestFields;
  checked: CheckedRequest;
  reads: RequestReads & { business: BusinessContact };
  link: { token: string; path: string };
  createdBy: string;
  now: number;
  invoices?: PaymentFile[];
  invoiceNumber?: string;
  /** Fields stored on the payment besides the record's own (a recurring occurrence names its schedule and period). */
  extra?: Record<string, unknown>;
  /** Stages one message in `tx`; `i` numbers the request's messages (deterministic message ids). */
  outbox(tx: Transaction, message: OutboundMessage, i: number): void;
}

/** Writes the request in `tx` (after readPaymentRequest): the payment, its link, the supplier's count and the messages. */
export async function writePaymentRequest(tx: Transaction, cfg: Pick<Config, 'publicLinkBase' | 'dashboardUrl' | 'whatsappTemplates' | 'productName'>, w: RequestWrite): Promise<{ record: PaymentRecord; supplierName: string }> {
  const { input, checked, reads, businessId, paymentId } = w;
  const at = new Date(w.now).toISOString();
  const p: PaymentRecord = {
    id: paymentId,
    businessId,
    status: 'sent',
    supplierName: input.supplierName,
    supplierPhone: checked.phone,
    supplierEmail: checked.email,
    supplierKey: reads.supplierKey,
    amountAgorot: input.amountAgorot,
    openAmount: input.openAmount,
    currency: input.currency,
    vatIncluded: input.vatIncluded,
    noVat: input.noVat ?? defaultNoVat(input.currency, reads.supplier?.card?.businessType),
    invoiceRequired: input.invoiceRequired,
    payMethods: normalizePayMethods(input.payMethods ?? undefined),
    description: input.description,
    channel: checked.channel,
    linkToken: w.link.token,
    invoices: w.invoices ?? [],
    proof: null,
    payout: null,
    itaVerdict: null,
    invoiceNumber: w.invoiceNumber ?? '',
    search: [],
    submissions: [],
    viaPublicLink: false,
    createdBy: w.createdBy,
    dueDate: checked.dueDate,
    createdAt: at,
    createdAtMs: w.now,
    updatedAt: at,
    sentAt: checked.channel === 'link' ? null : at,
    supplierSubmittedAt: null,
    readyAt: null,
    paidAt: null,
    canceledAt: null,
  };
  p.search = paymentSearchTokens(p);
  tx.create(paymentsPath(businessId, paymentId), { ...p, ...w.extra });
  tx.create(w.link.path, { businessId, paymentId });
  const supplierName = recordPaymentToSupplier(tx, businessId, reads.supplier, p, at);
  if (checked.channel !== 'link') {
    const messages = await paymentRequestMessages(cfg, p, reads.business, supplierLang(p, reads.supplier));
    messages.forEach((m, i) => w.outbox(tx, m, i));
  }
  return { record: p, supplierName };
}
