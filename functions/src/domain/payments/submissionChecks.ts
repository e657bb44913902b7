/**
 * The checks of what a supplier submits on the public pages (payout details, amount, invoice file), and the
 * problems they name per field; the submissions themselves are in supplierSubmission.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sniffFileType } from '../../core/fileTypes.ts';
import { pdfRefusal } from '../../core/pdfInflation.ts';
import { ApiError } from '../../core/errors.ts';
import { normalizePhone } from '../contacts.ts';
import { getCountrySpecifications, isValidBIC, isValidIBAN } from 'ibantools';
import { MAX_AMOUNT_AGOROT, type Currency } from '../money.ts';
import { bankByCode, MERGED_BANKS, OTHER_BANK, OTHER_BANK_ACCOUNT } from './israeliBanks.ts';
import { sanitizeFileName } from '../../core/text.ts';
import {
  PAY_METHODS,
  type PayMethod,
  type Payout,
  type PaymentRecord,
} from './payments.ts';

export const MAX_INVOICE_BYTES = 5 * 1024 * 1024;
/** Applied submission ids kept on a payment; older ones age out. */
export const KEPT_SUBMISSIONS = 50;

/** 128 random bits, URL-safe: one per rendered form. */
export const newSubmissionId = () => randomBytes(16).toString('base64url');
export const isSubmissionId = (s: unknown): s is string => typeof s === 'string' && /^[A-Za-z0-9_-]{22}$/.test(s);
export const isLinkToken = (s: string) => /^[A-Za-z0-9_-]{43}$/.test(s);

export const linkSubmissionPath = (businessId: string, submissionId: string) => `businesses/${businessId}/linkSubmissions/${submissionId}`;

/** A field-level problem; the pages translate these into the page language. */
export type Problem =
  | 'required'
  | 'tooLong'
  | 'method'
  | 'bankCode'
  | 'bankBranch'
  | 'bankAccount'
  | 'phone'
  | 'email'
  | 'contact'
  | 'amount'
  | 'fileType'
  | 'fileSize'
  | 'fileUnreadable'
  | 'bitPhone'
  | 'bankMerged'
  | 'iban'
  | 'ibanCountry'
  | 'foreignAccount'
  | 'swift'
  | 'swiftCountry'
  | 'country';

export type Problems = Record<string, Problem>;

export class SubmissionInvalid extends ApiError {
  readonly problems: Problems;
  constructor(problems: Problems) {
    super('invalid-argument', Object.entries(problems).map(([field, p]) => `${field}: ${p}`).join('; '), { reason: 'fixFields', params: { fields: Object.keys(problems) } });
    this.name = 'SubmissionInvalid';
    this.problems = problems;
  }
}

export const isSubmissionInvalid = (e: unknown): e is SubmissionInvalid => e instanceof SubmissionInvalid;

/** Payout fields as the form sends them. */
export interface PayoutFields {
  method?: string;
  /** A code from the list, or `other` with the code typed in bankCodeOther. */
  bankCode?: string;
  bankCodeOther?: string;
  bankBranch?: string;
  bankAccount?: string;
  bankBeneficiary?: string;
  bitPhone?: string;
  /** A payout abroad (USD, EUR): IBAN or, where the country has none, the account number. */
  iban?: string;
  swift?: string;
  bankName?: string;
  bankCountry?: string;
  beneficiaryAddress?: string;
}

export interface Upload {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** An upload that passed the checks, with its content hash. */
export interface Checked extends Upload {
  sha256: string;
}

export interface SubmissionResult {
  /** `replayed`: this submission id was applied before, so nothing changed. */
  outcome: 'applied' | 'replayed';
  payment: PaymentRecord;
  /** False when no file came or its bytes were already on the payment. */
  invoiceAdded: boolean;
}

const digits = (s: string | undefined) => (s ?? '').replace(/[\s-]/g, '');

/** The account lengths the chosen bank takes (the page names them when the account is refused). */
export function accountLengthFor(f: Pick<PayoutFields, 'bankCode' | 'bankCodeOther'>): [min: number, max: number] {
  const other = (f.bankCode ?? '').trim() === OTHER_BANK;
  const code = digits(other ? f.bankCodeOther : f.bankCode);
  return (/^\d{1,2}$/.test(code) ? bankByCode(code)?.account : undefined) ?? OTHER_BANK_ACCOUNT;
}

/**
 * Israeli bank details in format only: a bank from the list (or "other" with its 1–2 digit code typed),
 * branch 3 digits, account of the length that bank uses; shorter code/branch are zero-padded.
 */
function checkBank(f: PayoutFields, problems: Problems): Payout {
  const other = (f.bankCode ?? '').trim() === OTHER_BANK;
  const code = digits(other ? f.bankCodeOther : f.bankCode);
  const branch = digits(f.bankBranch);
  const account = digits(f.bankAccount);
  const beneficiary = (f.bankBeneficiary ?? '').trim();
  const known = /^\d{1,2}$/.test(code) ? bankByCode(code) : undefined;
  const codeField = other ? 'bankCodeOther' : 'bankCode';
  if (MERGED_BANKS[code.padStart(2, '0')]) problems[codeField] = 'bankMerged';
  else if (!known && !(other && /^\d{1,2}$/.test(code))) problems[codeField] = code ? 'bankCode' : 'required';
  if (!/^\d{1,3}$/.test(branch)) problems.bankBranch = branch ? 'bankBranch' : 'required';
  const [min, max] = known?.account ?? OTHER_BANK_ACCOUNT;
  if (!/^\d+$/.test(account) || account.length < min || account.length > max) problems.bankAccount = account ? 'bankAccount' : 'required';
  if (!beneficiary) problems.bankBeneficiary = 'required';
  else if (beneficiary.length > 100) problems.bankBeneficiary = 'tooLong';
  return { method: 'bank', bankCode: code.padStart(2, '0'), bankBranch: branch.padStart(3, '0'), bankAccount: account, bankBeneficiary: beneficiary };
}

export function checkPhone(raw: string | undefined, field: string, problems: Problems): string | null {
  const text = (raw ?? '').trim();
  if (!text) return null;
  if (text.length > 40) {
    problems[field] = 'phone';
    return null;
  }
  try {
    return normalizePhone(text, field);
  } catch {
    problems[field] = 'phone';
    return null;
  }
}

const IBAN_COUNTRIES = getCountrySpecifications();
const upper = (s: string | undefined) => (s ?? '').replace(/[\s-]/g, '').toUpperCase();

/**
 * A bank abroad (USD, EUR): the bank's country (ISO code), IBAN with its checksum and of that country
 * (or, where the country has no IBAN, an account number), SWIFT/BIC of that country, the bank's name,
 * and the beneficiary's name and address.
 */
function checkForeignBank(f: PayoutFields, problems: Problems): Payout {
  const country = upper(f.bankCountry);
  const spec = /^[A-Z]{2}$/.test(country) ? IBAN_COUNTRIES[country] : undefined;
  if (!spec) problems.bankCountry = country ? 'country' : 'required';
  const account = upper(f.iban);
  let iban = '';
  let foreignAccount = '';
  if (!account) problems.iban = 'required';
  else if (spec?.chars || (!spec && /^[A-Z]{2}\d{2}/.test(account))) {
    // The country uses IBAN: the checksum and the country's format must hold.
    if (!isValidIBAN(account)) problems.iban = 'iban';
    else if (spec && account.slice(0, 2) !== country) problems.iban = 'ibanCountry';
    else iban = account;
  } else if (!/^[A-Z0-9]{4,34}$/.test(account)) problems.iban = 'foreignAccount';
  else foreignAccount = account;
  const swift = upper(f.swift);
  if (!swift) problems.swift = 'required';
  else if (!isValidBIC(swift)) problems.swift = 'swift';
  else if (spec && swift.slice(4, 6) !== country) problems.swift = 'swiftCountry';
  const text = (name: keyof PayoutFields, max: number) => {
    const v = (f[name] ?? '').trim().replace(/\s+/g, ' ');
    if (!v) problems[name] = 'required';
    else if (v.length > max) problems[name] = 'tooLong';
    return v;
  };
  const bankName = text('bankName', 100);
  const bankBeneficiary = text('bankBeneficiary', 100);
  const beneficiaryAddress = text('beneficiaryAddress', 300);
  return {
    method: 'bank',
    ...(iban ? { iban } : { foreignAccount }),
    swift,
    bankName,
    bankCountry: country,
    bankBeneficiary,
    beneficiaryAddress,
  };
}

/** The methods a payment offers: its own choice, and never Bit for USD or EUR (Bit pays shekels only). */
export function payoutMethodsFor(p: Pick<PaymentRecord, 'payMethods' | 'currency'>): PayMethod[] {
  const offered = p.payMethods.length ? [...p.payMethods] : [...PAY_METHODS];
  return p.currency && p.currency !== 'ILS' ? offered.filter((m) => m !== 'bit') : offered;
}

/** The payout the supplier chose, limited to the payment's methods (empty = both); a foreign currency is paid to a bank abroad. */
export function checkPayout(f: PayoutFields, payMethods: readonly PayMethod[], problems: Problems, currency: Currency = 'ILS'): Payout | null {
  const allowed = payMethods.length ? payMethods : PAY_METHODS;
  const method = (f.method || (allowed.length === 1 ? allowed[0] : '')) as PayMethod;
  if (!allowed.includes(method)) {
    problems.method = f.method ? 'method' : 'required';
    return null;
  }
  if (method === 'bank') return currency === 'ILS' ? checkBank(f, problems) : checkForeignBank(f, problems);
  let bitPhone = checkPhone(f.bitPhone, 'bitPhone', problems);
  // Bit works with Israeli mobile numbers only (+972 5x…).
  if (bitPhone && !/^\+9725\d{8}$/.test(bitPhone)) {
    problems.bitPhone = 'bitPhone';
    bitPhone = null;
  }
  if (!bitPhone && !problems.bitPhone) problems.bitPhone = 'required';
  return { method: 'bit', bitPhone: bitPhone ?? '' };
}

/** "1,250.50" (major units) → 125050 agorot; null when it is not a positive amount with at most two decimals. */
export function parseMajorAmount(text: string): number | null {
  const t = text.replace(/[\s₪$€]/g, '');
  const m = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(t);
  if (!m) return null;
  const agorot = Number(m[1].replace(/,/g, '')) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return agorot > 0 && agorot <= MAX_AMOUNT_AGOROT ? agorot : null;
}

export function checkAmount(text: string | undefined, problems: Problems): number | null {
  if (!text?.trim()) {
    problems.amount = 'required';
    return null;
  }
  const agorot = parseMajorAmount(text);
  if (agorot === null) problems.amount = 'amount';
  return agorot;
}

const ALLOWED_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/webp', 'image/heic'] as const;
const TYPE_ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/heif': 'image/heic' };
const EXTENSION: Record<string, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/heic': 'heic' };

/** A PDF or an image, at most 5 MB: the declared type and the magic bytes must agree; a PDF within the inflation caps. */
export async function checkInvoice(upload: Upload, problems: Problems, field = 'invoice'): Promise<Checked | null> {
  if (upload.bytes.length > MAX_INVOICE_BYTES) {
    problems[field] = 'fileSize';
    return null;
  }
  const declared = upload.contentType.split(';')[0].trim().toLowerCase();
  const normalized = TYPE_ALIASES[declared] ?? declared;
  const actual = sniffFileType(upload.bytes);
  // Some browsers label a file they do not know as octet-stream; then the bytes decide.
  const generic = normalized === '' || normalized === 'application/octet-stream';
  if (!actual || !(ALLOWED_TYPES as readonly string[]).includes(actual) || (!generic && normalized !== actual)) {
    problems[field] = 'fileType';
    return null;
  }
  if (actual === 'application/pdf' && (await pdfRefusal(upload.bytes))) {
    problems[field] = 'fileUnreadable';
    return null;
  }
  return { fileName: cleanFileName(upload.fileName, actual), contentType: actual, bytes: upload.bytes, sha256: createHash('sha256').update(upload.bytes).digest('hex') };
}

const cleanFileName = (name: string, type: string) => sanitizeFileName(name, `invoice.${EXTENSION[type]}`);
