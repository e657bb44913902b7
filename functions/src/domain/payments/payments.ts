import { newSecret, sha256 } from '../../core/ids.ts';
import { precondition } from '../../core/errors.ts';
import type { Currency } from '../money.ts';
import { searchTokens } from '../search.ts';
import type { ApprovalMark, Rejection } from './approvalTypes.ts';

export const PAYMENT_STATUSES = ['sent', 'awaiting_invoice', 'ready', 'paid', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const UNPAID: readonly PaymentStatus[] = ['sent', 'awaiting_invoice', 'ready'];
export const PAY_METHODS = ['bank', 'bit'] as const;
export type PayMethod = (typeof PAY_METHODS)[number];
export type Channel = 'wa' | 'em' | 'link';
export type ItaVerdict = 'match' | 'amount_mismatch' | 'not_found';

/**
 * What the supplier entered on the link page. An Israeli bank account has code, branch and account;
 * a payout abroad (USD, EUR) has IBAN (or, where the country has none, an account number), SWIFT/BIC,
 * the bank's name and country, and the beneficiary's name (bankBeneficiary) and address.
 */
export interface Payout {
  method: PayMethod;
  bankCode?: string;
  bankBranch?: string;
  bankAccount?: string;
  bankBeneficiary?: string;
  bitPhone?: string;
  iban?: string;
  /** The account number where the bank's country has no IBAN (e.g. the US). */
  foreignAccount?: string;
  swift?: string;
  bankName?: string;
  /** ISO 3166-1 alpha-2. */
  bankCountry?: string;
  beneficiaryAddress?: string;
}

/** The payout fields a view shows, in order. */
export const PAYOUT_FIELDS = ['method', 'bankCode', 'bankBranch', 'bankAccount', 'bankBeneficiary', 'bitPhone', 'iban', 'foreignAccount', 'swift', 'bankName', 'bankCountry', 'beneficiaryAddress'] as const;

/** A payout to a bank abroad (SWIFT), not an Israeli account. */
export const isForeignPayout = (p: Payout) => p.method === 'bank' && Boolean(p.swift || p.iban || p.foreignAccount);

/** A file on a payment: the supplier's invoice(s) or the business's proof of payment. */
export interface PaymentFile {
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  /** SHA-256 of the bytes, so a replayed upload is recognised. */
  sha256: string;
  uploadedAt: string;
  /** The uploaded invoice document this file was copied from (createPayment's invoiceDocId): where its reading is. */
  docId?: string;
}

export interface PaymentRecord {
  id: string;
  businessId: string;
  status: PaymentStatus;
  supplierName: string;
  supplierPhone: string | null;
  supplierEmail: string | null;
  supplierKey: string;
  amountAgorot: number;
  openAmount: boolean;
  currency: Currency;
  vatIncluded: boolean;
  /** No VAT applies (a supplier abroad, an exempt dealer): the amount is the whole sum and no VAT line shows. Absent = false. */
  noVat?: boolean;
  invoiceRequired: boolean;
  /** Empty = free choice between bank and bit. */
  payMethods: PayMethod[];
  description: string;
  channel: Channel;
  /** The supplier link's secret; the global record `supplierLinks/{sha256(token)}` points back here. */
  linkToken: string;
  invoices: PaymentFile[];
  proof: PaymentFile | null;
  payout: Payout | null;
  itaVerdict: ItaVerdict | null;
  invoiceNumber: string;
  /** Prefixes of supplier name, description and invoice number, for `q`. */
  search: string[];
  /** Ids of supplier-page submissions already applied, so a replayed form changes nothing. */
  submissions: string[];
  /** The language the supplier used the page in last: their emails follow it. */
  supplierLang?: 'he' | 'en';
  /** Set when the standing request link created the payment. */
  viaPublicLink: boolean;
  /** `public`: filed by an anonymous visitor of the standing link; `business` otherwise. */
  filedBy?: 'business' | 'public';
  /** A public filing waiting for the owner's review (it starts in `sent`, not `ready`, unless the business opted in). */
  needsReview?: boolean;
  /** The filed payout differs from the supplier's known details: the classic payment-fraud signal. */
  payoutChanged?: boolean;
  /** Masked accounts (last 3 digits) before and after, when payoutChanged. */
  payoutChange?: { previous: string; filed: string } | null;
  /** The member who created it (createPayment); absent on public filings and on payments made before issue 36. */
  createdBy?: string;
  /** Approvals given, each on the facts it saw (domain/payments/approvals.ts); absent = none. */
  approvals?: ApprovalMark[];
  /** The last rejection, until an approval replaces it. */
  rejection?: Rejection | null;
  /** When the business means to pay it, YYYY-MM-DD (Israel); null or absent = no due date. */
  dueDate?: string | null;
  /** Supplier reminders sent (domain/reminders), one per step of the business's reminderDays; absent = none. */
  reminders?: { step: number; at: string }[];
  /** The open payment run holding it (payRunCreate), null or absent when none. */
  runId?: string | null;
  createdAt: string;
  createdAtMs: number;
  updatedAt: string;
  sentAt: string | null;
  supplierSubmittedAt: string | null;
  readyAt: string | null;
  paidAt: string | null;
  canceledAt: string | null;
}

export const paymentsPath = (businessId: string, id = '') => `businesses/${businessId}/payments${id ? '/' + id : ''}`;
export const supplierLinkPath = (token: string) => `supplierLinks/${sha256(token)}`;
export const paymentLinkUrl = (publicLinkBase: string, token: string) => `${publicLinkBase}/pay/${token}`;

export function newPaymentLink(publicLinkBase: string) {
  const token = newSecret();
  return { token, path: supplierLinkPath(token), url: paymentLinkUrl(publicLinkBase, token) };
}

export const paymentSearchTokens = (p: Pick<PaymentRecord, 'supplierName' | 'description' | 'invoiceNumber'>) =>
  searchTokens(p.supplierName, p.description, p.invoiceNumber);

/** A payout as a short masked text: "bank 12-345 ••••901", "bit ••••567" or "SWIFT DEUTDEFF ••••130" (last 3 characters only). */
export function maskPayout(p: Payout | null | undefined): string {
  if (!p) return '';
  const tail = (s: string | undefined) => `••••${(s ?? '').slice(-3)}`;
  if (p.method === 'bit') return `bit ${tail(p.bitPhone)}`;
  if (isForeignPayout(p)) return `SWIFT ${p.swift ?? ''} ${tail(p.iban || p.foreignAccount)}`;
  return `bank ${p.bankCode ?? ''}-${p.bankBranch ?? ''} ${tail(p.bankAccount)}`;
}

/** Whether two payouts send money to different places (beneficiary names aside): Israeli account, Bit phone, or IBAN/account and SWIFT abroad. */
export function payoutDiffers(a: Payout, b: Payout): boolean {
  if (a.method !== b.method) return true;
  if (a.method === 'bit') return (a.bitPhone ?? '') !== (b.bitPhone ?? '');
  if (isForeignPayout(a) !== isForeignPayout(b)) return true;
  const up = (s: string | undefined) => (s ?? '').replace(/\s/g, '').toUpperCase();
  // An 8-character BIC is the same bank as its 11-character form with the XXX head-office branch.
  const bic = (s: string | undefined) => up(s).replace(/^(.{8})XXX$/, '$1');
  if (isForeignPayout(a)) return up(a.iban) !== up(b.iban) || up(a.foreignAccount) !== up(b.foreignAccount) || bic(a.swift) !== bic(b.swift);
  const n = (s: string | undefined) => (s ?? '').replace(/^0+/, '');
  return n(a.bankCode) !== n(b.bankCode) || n(a.bankBranch) !== n(b.bankBranch) || n(a.bankAccount) !== n(b.bankAccount);
}

/** Both methods, or none, is the same free choice (spec §2); stored as []. */
export function normalizePayMethods(methods: readonly PayMethod[] | undefined): PayMethod[] {
  const set = new Set(methods ?? []);
  return set.size === PAY_METHODS.length ? [] : PAY_METHODS.filter((m) => set.has(m));
}

export const isUnpaid = (s: PaymentStatus) => UNPAID.includes(s);

export type PaymentAction = 'markPaid' | 'revertPaid' | 'cancel' | 'resend' | 'supplierSubmit' | 'attachInvoice';

/** Spec §3 plus docs/decisions.md: the statuses each action starts from. */
const ALLOWED_FROM: Record<PaymentAction, readonly PaymentStatus[]> = {
  markPaid: UNPAID,
  revertPaid: ['paid'],
  cancel: UNPAID,
  // A paid or canceled payment's link has nothing left to ask the supplier.
  resend: UNPAID,
  supplierSubmit: ['sent'],
  // A late invoice on a paid payment is accepted (and notified); a canceled payment takes nothing.
  attachInvoice: ['sent', 'awaiting_invoice', 'ready', 'paid'],
};

/** Refuses an action from the wrong status with a message naming the current one. */
export function assertAllowed(action: PaymentAction, status: PaymentStatus): void {
  if (!ALLOWED_FROM[action].includes(status)) {
    throw precondition(`cannot ${action === 'cancel' ? 'cancel' : action} a payment whose status is ${status}; allowed from ${ALLOWED_FROM[action].join(', ')}`, {
      reason: 'paymentStatusNotAllowed',
      params: { status, allowed: [...ALLOWED_FROM[action]] },
    });
  }
}

/** The status once the supplier has given payout details: ready, or awaiting_invoice while a required invoice is missing. */
export const statusAfterSubmission = (p: Pick<PaymentRecord, 'invoiceRequired' | 'invoices'>): PaymentStatus =>
  p.invoiceRequired && p.invoices.length === 0 ? 'awaiting_invoice' : 'ready';

/** Spec §3 rules of updatePaymentSettings: which fields may change in which state. */
export const SETTINGS_RULES = [
  { rule: 'rule 1 (after sending)', fields: ['invoiceRequired', 'payMethods'], allowed: (p: PaymentRecord) => p.status !== 'canceled', when: 'any time after sending, until the payment is canceled' },
  { rule: 'rule 2 (while unpaid)', fields: ['amountAgorot', 'currency', 'vatIncluded', 'noVat', 'description', 'dueDate'], allowed: (p: PaymentRecord) => isUnpaid(p.status), when: 'while the payment is unpaid' },
  {
    rule: 'rule 3 (before bank details)',
    fields: ['supplierName', 'supplierPhone', 'supplierEmail', 'channel'],
    allowed: (p: PaymentRecord) => isUnpaid(p.status) && p.payout === null,
    when: 'while the supplier has not filled payout details',
  },
] as const;
