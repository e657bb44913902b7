/**
 * A payment run's files besides MASAV: which file each payment goes in, the run's totals, and the CSV lists
 * (the bank portal's spreadsheet, transfers abroad, Bit). Each payment is in exactly one file, or refused with the
 * reason it fits none; all amounts are integer agorot/cents until a CSV writes them as 1234.50.
 */
import { csvField, csvFile, headerCell, safeCell, type CsvColumn } from '../../core/csv.ts';
import { CURRENCIES, type Currency } from '../money.ts';
import { isForeignPayout, type Payout } from '../payments/payments.ts';
import type { MasavItem } from './masav.ts';

export interface RunPayment {
  paymentId: string;
  supplierName: string;
  amountAgorot: number;
  currency: Currency;
  payout: Payout | null;
  invoiceNumber?: string;
  /** The supplier's ID or company number, when known. */
  payeeId?: string | null;
}

export type RunFile = 'masav' | 'foreign' | 'bit';

export type SplitRefusal =
  | 'no_payout' // the supplier has not given payout details
  | 'no_amount' // an open amount not filled yet
  | 'bank_incomplete' // an Israeli account without code, branch or number
  | 'israeli_not_ils' // MASAV and the bank's own transfers pay shekels only
  | 'foreign_incomplete' // abroad without an account (IBAN or number) or without SWIFT/BIC
  | 'bit_incomplete' // Bit without a phone
  | 'bit_not_ils' // Bit pays shekels only
  | 'duplicate'; // the same payment named twice: it goes in one file, once

export interface RunSplit {
  masav: RunPayment[];
  foreign: RunPayment[];
  bit: RunPayment[];
  refused: { paymentId: string; reason: SplitRefusal }[];
}

/** The file a payment goes in, or why it fits none. */
export function runFileOf(p: RunPayment): RunFile | { refused: SplitRefusal } {
  const o = p.payout;
  if (!o) return { refused: 'no_payout' };
  if (!Number.isSafeInteger(p.amountAgorot) || p.amountAgorot <= 0) return { refused: 'no_amount' };
  if (o.method === 'bit') {
    if (!o.bitPhone) return { refused: 'bit_incomplete' };
    return p.currency === 'ILS' ? 'bit' : { refused: 'bit_not_ils' };
  }
  if (isForeignPayout(o)) return (o.iban || o.foreignAccount) && o.swift ? 'foreign' : { refused: 'foreign_incomplete' };
  if (!o.bankCode || !o.bankBranch || !o.bankAccount) return { refused: 'bank_incomplete' };
  return p.currency === 'ILS' ? 'masav' : { refused: 'israeli_not_ils' };
}

/** A run's payments by file, in their order. */
export function splitRun(payments: readonly RunPayment[]): RunSplit {
  const out: RunSplit = { masav: [], foreign: [], bit: [], refused: [] };
  const seen = new Set<string>();
  for (const p of payments) {
    const f = seen.has(p.paymentId) ? { refused: 'duplicate' as const } : runFileOf(p);
    seen.add(p.paymentId);
    if (typeof f === 'string') out[f].push(p);
    else out.refused.push({ paymentId: p.paymentId, reason: f.refused });
  }
  return out;
}

export interface RunTotal {
  currency: Currency;
  count: number;
  totalAgorot: number;
}

/** The run's totals per currency (in CURRENCIES order, only currencies present): the one sum every file and screen shows. */
export function runTotals(payments: readonly Pick<RunPayment, 'currency' | 'amountAgorot'>[]): RunTotal[] {
  return CURRENCIES.flatMap((currency) => {
    const of = payments.filter((p) => p.currency === currency);
    return of.length ? [{ currency, count: of.length, totalAgorot: of.reduce((s, p) => s + p.amountAgorot, 0) }] : [];
  });
}

/** The name the bank pays: the account holder the supplier typed, else the supplier's name. */
const beneficiary = (p: RunPayment) => p.payout?.bankBeneficiary?.trim() || p.supplierName;

/** The payee number in MASAV: the invoice number when it is digits only (it fits 20), else none. */
const payeeNumberOf = (p: RunPayment) => (/^\d{1,20}$/.test(p.invoiceNumber ?? '') ? p.invoiceNumber! : null);

/** The MASAV file's items for the payments splitRun put in `masav`. */
export const masavItems = (payments: readonly RunPayment[]): MasavItem[] =>
  payments.map((p) => ({
    paymentId: p.paymentId,
    bankCode: p.payout?.bankCode ?? '',
    branch: p.payout?.bankBranch ?? '',
    account: p.payout?.bankAccount ?? '',
    payeeId: p.payeeId ?? null,
    payeeName: beneficiary(p),
    amountAgorot: p.amountAgorot,
    payeeNumber: payeeNumberOf(p),
  }));

/** Minor units as a bank portal takes them: 1234.50, no thousands separator, no symbol. */
export const portalAmount = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

const COL = {
  bank: { he: 'בנק', en: 'Bank' },
  branch: { he: 'סניף', en: 'Branch' },
  account: { he: 'חשבון', en: 'Account' },
  beneficiary: { he: 'שם המוטב', en: 'Beneficiary' },
  payeeId: { he: 'ת"ז / ח"פ', en: 'ID / company no.' },
  amount: { he: 'סכום', en: 'Amount' },
  currency: { he: 'מטבע', en: 'Currency' },
  reference: { he: 'אסמכתא', en: 'Reference' },
  iban: { he: 'IBAN / חשבון', en: 'IBAN / account' },
  swift: { he: 'SWIFT/BIC', en: 'SWIFT/BIC' },
  bankName: { he: 'שם הבנק', en: 'Bank name' },
  country: { he: 'מדינה', en: 'Country' },
  address: { he: 'כתובת המוטב', en: 'Beneficiary address' },
  phone: { he: 'טלפון', en: 'Phone' },
  paymentId: { he: 'מזהה תשלום', en: 'Payment ID' },
} satisfies Record<string, CsvColumn>;

/** The reference the supplier sees on the transfer: the invoice number, else the payment's id. */
const reference = (p: RunPayment) => p.invoiceNumber || p.paymentId;

/**
 * The bank-portal spreadsheet: the MASAV file's rows, for portals that take a file but not MASAV. No total row: a
 * portal would import it as one more transfer. Bank, branch, account and ID are written as their plain digits, not
 * in the CSV rule's ="09" form: a portal reads the file raw, and the digits mean the same number to a spreadsheet.
 */
export function portalCsv(masav: readonly RunPayment[]): Buffer {
  const cols = [COL.bank, COL.branch, COL.account, COL.beneficiary, COL.payeeId, COL.amount, COL.reference, COL.paymentId];
  const raw = (v: string | null | undefined) => (/^\d+$/.test(v ?? '') ? v! : safeCell(v));
  const rows = masav.map((p) => [raw(p.payout?.bankCode), raw(p.payout?.bankBranch), raw(p.payout?.bankAccount), safeCell(beneficiary(p)), raw(p.payeeId ?? ''), portalAmount(p.amountAgorot), safeCell(reference(p)), safeCell(p.paymentId)]);
  return Buffer.from('\uFEFF' + [cols.map(headerCell), ...rows].map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n', 'utf8');
}

/** Transfers abroad, each with its own currency. */
export function foreignCsv(foreign: readonly RunPayment[]): Buffer {
  const cols = [COL.beneficiary, COL.iban, COL.swift, COL.bankName, COL.country, COL.address, COL.amount, COL.currency, COL.reference, COL.paymentId];
  return csvFile(cols, foreign.map((p) => {
    const o = p.payout!;
    return [beneficiary(p), (o.iban || o.foreignAccount || '').replace(/\s/g, ''), o.swift, o.bankName, o.bankCountry, o.beneficiaryAddress, portalAmount(p.amountAgorot), p.currency, reference(p), p.paymentId];
  }));
}

/** Bit payments, paid one by one in the app: phone, name, amount. */
export function bitCsv(bit: readonly RunPayment[]): Buffer {
  const cols = [COL.phone, COL.beneficiary, COL.amount, COL.reference, COL.paymentId];
  return csvFile(cols, bit.map((p) => [p.payout?.bitPhone, beneficiary(p), portalAmount(p.amountAgorot), reference(p), p.paymentId]));
}
