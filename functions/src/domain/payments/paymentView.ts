import { z } from 'zod';
import { notFound } from '../../core/errors.ts';
import type { Files } from '../../core/files.ts';
import type { Reader } from '../../ports/store.ts';
import type { OutboxRecord } from '../../core/outbox.ts';
import { CURRENCIES } from '../money.ts';
import { businessPath, profileOf } from '../business.ts';
import { jerusalemDay, type Clock } from '../../core/clock.ts';
import { reminderPlan, remindable } from '../reminders/reminderPlan.ts';
import { paymentAmounts } from '../vat.ts';
import { latestReadings, readingMismatch, readingMismatchSchema } from '../invoices/readingMismatch.ts';
import type { InvoiceReading } from '../invoices/invoices.ts';
import { approvalOf, approvalPolicyOf, approvalViewSchema, DEFAULT_APPROVAL_POLICY, type ApprovalPolicy } from './approvals.ts';
import { PAY_METHODS, PAYMENT_STATUSES, paymentLinkUrl, paymentsPath, type PaymentFile, type PaymentRecord } from './payments.ts';

/**
 * What the payment operations return: a list row (paymentsList), the full view (paymentGet and
 * the mutating operations) and the incoming view (listIncomingPayments), each with its zod schema.
 */

/** Longest phone text accepted before normalisation (spaces, hyphens, a +972 prefix). */
export const PHONE_MAX = 40;

export interface ViewDeps {
  files: Files;
  publicLinkBase: string;
  /** Where the payment's outbox records are read (paymentView's `messages`); absent, none are listed. */
  store?: Reader;
  /** The business's approval policy, read once per request by a list; absent, each view reads it from `store`. */
  policy?: ApprovalPolicy;
  /** Now, for the view's next reminder day (issue 39); absent, the system clock. */
  now?: number;
}

const fileSchema = z.object({
  fileId: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  size: z.int(),
  uploadedAt: z.string(),
  /** Capability link on the file host; null once the file was deleted. */
  url: z.string().nullable(),
});
export type PaymentFileView = z.output<typeof fileSchema>;

const invoiceSummarySchema = z.object({ fileName: z.string(), url: z.string().nullable() });

const payoutSchema = z.object({
  method: z.enum(PAY_METHODS),
  bankCode: z.string().optional(),
  bankBranch: z.string().optional(),
  bankAccount: z.string().optional(),
  /** The account holder (abroad: the beneficiary's name). */
  bankBeneficiary: z.string().optional(),
  bitPhone: z.string().optional(),
  /** Abroad (USD, EUR): IBAN, checksum-validated. */
  iban: z.string().optional(),
  /** Abroad, where the bank's country has no IBAN: the account number. */
  foreignAccount: z.string().optional(),
  swift: z.string().optional(),
  bankName: z.string().optional(),
  /** ISO 3166-1 alpha-2. */
  bankCountry: z.string().optional(),
  beneficiaryAddress: z.string().optional(),
});

const rowShape = {
  id: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  supplierName: z.string(),
  supplierPhone: z.string().nullable(),
  supplierEmail: z.string().nullable(),
  supplierKey: z.string(),
  amountAgorot: z.int(),
  openAmount: z.boolean(),
  currency: z.enum(CURRENCIES),
  vatIncluded: z.boolean(),
  /** No VAT applies (a supplier abroad, an exempt dealer): the amount is the whole sum. */
  noVat: z.boolean(),
  /** The VAT in the amount the business pays; 0 when noVat. */
  vatAgorot: z.int(),
  /** What the business pays, VAT included (amountAgorot plus VAT when vatIncluded is false). */
  totalAgorot: z.int(),
  invoiceRequired: z.boolean(),
  payMethods: z.array(z.enum(PAY_METHODS)),
  description: z.string(),
  channel: z.enum(['wa', 'em', 'link']),
  link: z.string(),
  /** The latest invoice, as the spec's list-row summary. */
  invoice: invoiceSummarySchema.nullable(),
  invoiceCount: z.int(),
  hasProof: z.boolean(),
  itaVerdict: z.enum(['match', 'amount_mismatch', 'not_found']).nullable(),
  /** The latest invoice's AI reading disagrees with this payment (its total or currency): check it before paying or filing. */
  readingMismatch: readingMismatchSchema,
  /** `public`: filed anonymously through the standing link. */
  filedBy: z.enum(['business', 'public']),
  /** A public filing waiting for the owner's review. */
  needsReview: z.boolean(),
  /** The payout differs from the supplier's known details: verify before paying. */
  payoutChanged: z.boolean(),
  payoutChange: z.object({ previous: z.string(), filed: z.string() }).nullable(),
  approval: approvalViewSchema,
  dueDate: z.string().nullable().describe('YYYY-MM-DD, or null.'),
  runId: z.string().nullable().describe('Open payment run holding it.'),
  createdAt: z.string(),
  updatedAt: z.string(),
  paidAt: z.string().nullable(),
};

export const paymentRowSchema = z.object(rowShape);
export type PaymentRow = z.output<typeof paymentRowSchema>;

export const paymentViewSchema = z.object({
  ...rowShape,
  invoiceNumber: z.string(),
  viaPublicLink: z.boolean(),
  invoices: z.array(fileSchema),
  proof: fileSchema.nullable(),
  /** What the supplier entered on the link page. */
  payout: payoutSchema.nullable(),
  sentAt: z.string().nullable(),
  supplierSubmittedAt: z.string().nullable(),
  readyAt: z.string().nullable(),
  canceledAt: z.string().nullable(),
  /** The messages sent about this payment and what became of them (failed ones say why). */
  messages: z.array(
    z.object({ id: z.string(), channel: z.enum(['email', 'whatsapp']), to: z.string(), status: z.enum(['pending', 'delivered', 'undelivered', 'failed']), attempts: z.int(), lastError: z.string().nullable(), createdAt: z.string() }),
  ),
  /** Supplier reminders (issue 39): each sent (step = days after sending), and the day of the next, null when none is to come. */
  reminders: z
    .object({
      sent: z.array(z.object({ step: z.int().describe('Days after sending.'), at: z.string().describe('When it was sent.') })).describe('Reminders sent, oldest first.'),
      next: z.string().nullable().describe('Next reminder day (Israel), or null.'),
    })
    .describe("Reminders to the supplier (reminderDays)."),
});
export type PaymentView = z.output<typeof paymentViewSchema>;

export const incomingPaymentSchema = z.object({
  paymentId: z.string(),
  /** The paying business. */
  businessId: z.string(),
  businessName: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  supplierName: z.string(),
  supplierPhone: z.string().nullable(),
  supplierEmail: z.string().nullable(),
  amountAgorot: z.int(),
  openAmount: z.boolean(),
  currency: z.enum(CURRENCIES),
  vatIncluded: z.boolean(),
  noVat: z.boolean(),
  description: z.string(),
  /** The supplier link: where this business enters payout details and attaches the invoice. */
  link: z.string(),
  invoices: z.array(fileSchema),
  proof: fileSchema.nullable(),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
});
export type IncomingPayment = z.output<typeof incomingPaymentSchema>;

/** An id that can be one path segment; anything else (a `/`, `..`) names no document. */
export const isDocId = (id: string) => /^[^/]+$/.test(id) && id !== '.' && id !== '..' && !/^__.*__$/.test(id);

/** Reads one payment of `businessId`; another business's id is simply not found. */
export async function getPayment(reader: Reader, businessId: string, paymentId: string): Promise<PaymentRecord> {
  const doc = isDocId(paymentId) ? await reader.get(paymentsPath(businessId, paymentId)) : null;
  if (!doc) throw notFound(`paymentId: payment ${paymentId}`, 'payment');
  return doc.data as unknown as PaymentRecord;
}

/** The name a business goes by in messages and in other businesses' views. */
export function businessNameOf(data: Record<string, unknown>): string {
  const p = profileOf(data);
  return p.businessName || p.name;
}

async function fileView(files: Files, businessId: string, f: PaymentFile): Promise<PaymentFileView> {
  const ref = await files.ref(businessId, f.fileId);
  return { fileId: f.fileId, fileName: f.fileName, contentType: f.contentType, size: f.size, uploadedAt: f.uploadedAt, url: ref?.url ?? null };
}

const filesView = (deps: ViewDeps, p: PaymentRecord) => Promise.all((p.invoices ?? []).map((f) => fileView(deps.files, p.businessId, f)));

/** The reading of the payment's latest invoice; a list passes it from one batched read (latestReadings). */
export async function paymentRow(p: PaymentRecord, deps: ViewDeps, reading?: InvoiceReading | null): Promise<PaymentRow> {
  const invoices = p.invoices ?? [];
  const latest = invoices.at(-1);
  // One file read per row, for the latest invoice's link only.
  const [ref, read, policy] = await Promise.all([
    latest ? deps.files.ref(p.businessId, latest.fileId) : null,
    reading !== undefined || !latest || !deps.store ? (reading ?? null) : latestReadings(deps.store, [p]).then((m) => m.get(p.id) ?? null),
    deps.policy ?? (deps.store ? approvalPolicyOf(deps.store, p.businessId) : DEFAULT_APPROVAL_POLICY),
  ]);
  const invoice = latest ? { fileName: latest.fileName, url: ref?.url ?? null } : null;
  const amounts = paymentAmounts({ amountAgorot: p.amountAgorot, vatIncluded: p.vatIncluded === true, noVat: p.noVat === true });
  return {
    id: p.id,
    status: p.status,
    supplierName: p.supplierName,
    supplierPhone: p.supplierPhone ?? null,
    supplierEmail: p.supplierEmail ?? null,
    supplierKey: p.supplierKey,
    amountAgorot: p.amountAgorot,
    openAmount: p.openAmount === true,
    currency: p.currency ?? 'ILS',
    vatIncluded: p.vatIncluded === true,
    noVat: p.noVat === true,
    vatAgorot: amounts.vatAgorot,
    totalAgorot: amounts.totalAgorot,
    invoiceRequired: p.invoiceRequired === true,
    payMethods: p.payMethods ?? [],
    description: p.description ?? '',
    channel: p.channel,
    link: paymentLinkUrl(deps.publicLinkBase, p.linkToken),
    invoice,
    invoiceCount: invoices.length,
    hasProof: Boolean(p.proof),
    itaVerdict: p.itaVerdict ?? null,
    readingMismatch: readingMismatch(read, p),
    filedBy: p.filedBy ?? (p.viaPublicLink ? 'public' : 'business'),
    needsReview: p.needsReview === true,
    payoutChanged: p.payoutChanged === true,
    payoutChange: p.payoutChange ?? null,
    approval: approvalOf(p, policy),
    dueDate: p.dueDate ?? null,
    runId: p.runId ?? null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    paidAt: p.paidAt ?? null,
  };
}

export async function paymentView(p: PaymentRecord, deps: ViewDeps): Promise<PaymentView> {
  const [row, invoices, proof, messages, business] = await Promise.all([
    paymentRow(p, deps),
    filesView(deps, p),
    p.proof ? fileView(deps.files, p.businessId, p.proof) : null,
    deps.store ? deps.store.query({ collection: `businesses/${p.businessId}/outbox`, where: [['ref', '==', p.id]], orderBy: [['createdAtMs', 'asc']], limit: 50 }) : [],
    deps.store && remindable(p) ? deps.store.get(businessPath(p.businessId)) : null,
  ]);
  const plan = reminderPlan(p, business ? profileOf(business.data).reminderDays : [], jerusalemDay(deps.now ?? Date.now()));
  const payout = p.payout
    ? Object.fromEntries(Object.entries(p.payout).filter(([k, v]) => k in payoutSchema.shape && typeof v === 'string'))
    : null;
  return {
    ...row,
    invoiceNumber: p.invoiceNumber ?? '',
    viaPublicLink: p.viaPublicLink === true,
    invoices,
    proof,
    payout: payout as PaymentView['payout'],
    sentAt: p.sentAt ?? null,
    supplierSubmittedAt: p.supplierSubmittedAt ?? null,
    readyAt: p.readyAt ?? null,
    canceledAt: p.canceledAt ?? null,
    messages: messages.map((d) => {
      const m = d.data as unknown as OutboxRecord;
      return { id: m.id, channel: m.channel, to: m.to, status: m.status, attempts: m.attempts ?? 0, lastError: m.lastError ?? null, createdAt: m.createdAt };
    }),
    reminders: { sent: plan.sent, next: plan.next },
  };
}

/** A payment another business addressed to this one, as the receiving side sees it (no payout details, no settings). */
export async function incomingPayment(p: PaymentRecord, payerName: string, deps: ViewDeps): Promise<IncomingPayment> {
  const [invoices, proof] = await Promise.all([filesView(deps, p), p.proof ? fileView(deps.files, p.businessId, p.proof) : null]);
  return {
    paymentId: p.id,
    businessId: p.businessId,
    businessName: payerName,
    status: p.status,
    supplierName: p.supplierName,
    supplierPhone: p.supplierPhone ?? null,
    supplierEmail: p.supplierEmail ?? null,
    amountAgorot: p.amountAgorot,
    openAmount: p.openAmount === true,
    currency: p.currency ?? 'ILS',
    vatIncluded: p.vatIncluded === true,
    noVat: p.noVat === true,
    description: p.description ?? '',
    link: paymentLinkUrl(deps.publicLinkBase, p.linkToken),
    invoices,
    proof,
    createdAt: p.createdAt,
    paidAt: p.paidAt ?? null,
  };
}

export const viewDeps = (ctx: { files: Files; config: { publicLinkBase: string }; store?: Reader; clock?: Clock }): ViewDeps => ({ files: ctx.files, publicLinkBase: ctx.config.publicLinkBase, store: ctx.store, now: ctx.clock?.now() });
