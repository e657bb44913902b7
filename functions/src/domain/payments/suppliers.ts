import { z } from 'zod';
import type { Transaction } from '../../ports/store.ts';
import { invalid } from '../../core/errors.ts';
import { keyId, normalizeEmail, normalizePhone } from '../contacts.ts';
import { PAY_METHODS, type Payout } from './payments.ts';

export const SUPPLIER_KINDS = ['supplier', 'freelancer'] as const;
export type SupplierKind = (typeof SUPPLIER_KINDS)[number];

/** The business-private card of spec §2. */
export const CARD_FIELDS = [
  'fullName', 'companyName', 'companyId', 'address', 'addressCity', 'addressZip', 'phone2', 'personalEmail',
  'companyEmail', 'bankCode', 'bankBranch', 'bankAccount', 'bankBeneficiary', 'bitPhone', 'notes', 'businessType',
] as const;
/** The card's `businessType` (beyond the spec, the business profile's words): patur = exempt dealer (עוסק פטור), who charges no VAT. */
export const SUPPLIER_BUSINESS_TYPES = ['', 'patur', 'murshe', 'company'] as const;
export type SupplierCard = Record<(typeof CARD_FIELDS)[number], string>;

export interface SupplierRecord {
  key: string;
  name: string;
  phone: string | null;
  email: string | null;
  kind: SupplierKind;
  /** Created by hand (createSupplier) rather than derived from a payment. */
  manual: boolean;
  paymentCount: number;
  lastPaymentAt: string | null;
  card: Partial<SupplierCard>;
  /** What the supplier entered on their side (last payout details), read-only for the business. */
  supplierSide: (Payout & { name?: string; submittedAt: string }) | null;
  /** The language the supplier used the page in last; their emails follow it. */
  lang?: 'he' | 'en';
  /** The member who last typed the card's payout fields (bank, Bit) on the supplier's behalf, and when: they may not approve payments into them. */
  payoutTypedBy?: string;
  payoutTypedAt?: string;
  createdAt: string;
  updatedAt: string;
}

export const suppliersPath = (businessId: string, key = '') => `businesses/${businessId}/suppliers${key ? '/' + keyId(key) : ''}`;

/** The payout the business knows for a supplier: its own card first, else what the supplier set before. */
export function knownPayout(r: SupplierRecord | null): Payout | null {
  if (!r) return null;
  const c = r.card ?? {};
  if (c.bankAccount) return { method: 'bank', bankCode: c.bankCode ?? '', bankBranch: c.bankBranch ?? '', bankAccount: c.bankAccount };
  if (r.supplierSide) return r.supplierSide;
  if (c.bitPhone) return { method: 'bit', bitPhone: c.bitPhone };
  return null;
}

/**
 * An anonymous filing (standing link) counts one more payment to a known supplier and changes
 * nothing else: no name, contact, card or payout details (nobody verified the filer).
 */
export function countAnonymousPayment(tx: Transaction, businessId: string, existing: SupplierRecord, supplierKey: string, at: string): void {
  tx.update(suppliersPath(businessId, supplierKey), { paymentCount: existing.paymentCount + 1, lastPaymentAt: at, updatedAt: at });
}

/**
 * Inside a transaction that already read the supplier document (`existing`, or null):
 * records one more payment to this supplier, creating the supplier when it is new.
 * A known supplier keeps its name: the name given on a payment names that payment only, and the
 * supplier's own name changes through the supplier operations (issue 17). Returns the name kept.
 */
export function recordPaymentToSupplier(
  tx: Transaction,
  businessId: string,
  existing: SupplierRecord | null,
  payment: { supplierKey: string; supplierName: string; supplierPhone: string | null; supplierEmail: string | null },
  at: string,
): string {
  const path = suppliersPath(businessId, payment.supplierKey);
  if (existing) {
    // A record without a name (none was ever given) takes the payment's.
    const name = existing.name || payment.supplierName;
    tx.update(path, {
      name,
      phone: payment.supplierPhone ?? existing.phone,
      email: payment.supplierEmail ?? existing.email,
      paymentCount: existing.paymentCount + 1,
      lastPaymentAt: at,
      updatedAt: at,
    });
    return name;
  }
  const record: SupplierRecord = {
    key: payment.supplierKey,
    name: payment.supplierName,
    phone: payment.supplierPhone,
    email: payment.supplierEmail,
    kind: 'supplier',
    manual: false,
    paymentCount: 1,
    lastPaymentAt: at,
    card: {},
    supplierSide: null,
    createdAt: at,
    updatedAt: at,
  };
  tx.set(path, { ...record });
  return record.name;
}

// ---------------------------------------------------------------------------------------------
// Views and card rules used by the supplier operations.

/** One supplier as lists show it. */
export const supplierRowSchema = z.object({
  key: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  kind: z.enum(SUPPLIER_KINDS),
  manual: z.boolean(),
  paymentCount: z.int().min(0),
  lastPaymentAt: z.string().nullable(),
});
export type SupplierRow = z.infer<typeof supplierRowSchema>;

export const supplierRow = (r: SupplierRecord): SupplierRow => ({
  key: r.key,
  name: r.name ?? '',
  phone: r.phone ?? null,
  email: r.email ?? null,
  kind: r.kind ?? 'supplier',
  manual: r.manual === true,
  paymentCount: r.paymentCount ?? 0,
  lastPaymentAt: r.lastPaymentAt ?? null,
});

const cardShape = Object.fromEntries(CARD_FIELDS.map((f) => [f, z.string()])) as Record<(typeof CARD_FIELDS)[number], z.ZodString>;

/** The supplier's own last submission, flattened; "" where they gave nothing. */
export const supplierSideSchema = z.object({
  name: z.string(),
  method: z.enum(PAY_METHODS),
  bankCode: z.string(),
  bankBranch: z.string(),
  bankAccount: z.string(),
  bankBeneficiary: z.string(),
  bitPhone: z.string(),
  /** A payout abroad: IBAN (or the account number where the country has none), SWIFT/BIC, bank name and country, beneficiary address. */
  iban: z.string(),
  foreignAccount: z.string(),
  swift: z.string(),
  bankName: z.string(),
  bankCountry: z.string(),
  beneficiaryAddress: z.string(),
  submittedAt: z.string(),
});

/** getSupplierContact / saveSupplierContact result: the card flattened, every field a string. */
export const supplierContactSchema = z.object({
  key: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  kind: z.enum(SUPPLIER_KINDS),
  ...cardShape,
  supplierSide: supplierSideSchema.nullable(),
  merged: z.string().optional().describe('The key asked for, when it was merged into this supplier.'),
});
export type SupplierContact = z.infer<typeof supplierContactSchema>;

export function supplierContact(r: SupplierRecord): SupplierContact {
  const card = Object.fromEntries(CARD_FIELDS.map((f) => [f, r.card?.[f] ?? ''])) as SupplierCard;
  const s = r.supplierSide;
  return {
    key: r.key,
    name: r.name ?? '',
    phone: r.phone ?? null,
    email: r.email ?? null,
    kind: r.kind ?? 'supplier',
    ...card,
    supplierSide: s
      ? {
          name: s.name ?? '',
          method: s.method,
          bankCode: s.bankCode ?? '',
          bankBranch: s.bankBranch ?? '',
          bankAccount: s.bankAccount ?? '',
          bankBeneficiary: s.bankBeneficiary ?? '',
          bitPhone: s.bitPhone ?? '',
          iban: s.iban ?? '',
          foreignAccount: s.foreignAccount ?? '',
          swift: s.swift ?? '',
          bankName: s.bankName ?? '',
          bankCountry: s.bankCountry ?? '',
          beneficiaryAddress: s.beneficiaryAddress ?? '',
          submittedAt: s.submittedAt,
        }
      : null,
  };
}

/** Israeli bank number formats, by digit count (docs/decisions.md). */
export const BANK_DIGITS = {
  bankCode: { min: 2, max: 2 },
  bankBranch: { min: 1, max: 3 },
  bankAccount: { min: 2, max: 9 },
} as const;

/** Spaces and hyphens are dropped (people paste `12-345-678`); what is left must be digits of the field's length. */
export function normalizeBankNumber(field: keyof typeof BANK_DIGITS, raw: string): string {
  const digits = raw.replace(/[\s-]/g, '');
  const { min, max } = BANK_DIGITS[field];
  if (!/^\d+$/.test(digits) || digits.length < min || digits.length > max) {
    const why = min === max ? ({ reason: 'bankCodeDigits', params: { value: raw, digits: min } } as const) : ({ reason: 'digitsCount', params: { value: raw, min, max } } as const);
    throw invalid(field, `"${raw}" is not valid: expected ${min === max ? min : `${min} to ${max}`} digits`, why);
  }
  return digits;
}

/** Card fields as sent → stored form. "" clears a field; phones go to E.164, emails to lower case. */
export function normalizeCardChanges(fields: Partial<SupplierCard>): Partial<SupplierCard> {
  const out: Partial<SupplierCard> = {};
  for (const f of CARD_FIELDS) {
    const raw = fields[f];
    if (raw === undefined) continue;
    const v = raw.trim();
    if (v === '') out[f] = '';
    else if (f === 'phone2' || f === 'bitPhone') out[f] = normalizePhone(v, f);
    else if (f === 'personalEmail' || f === 'companyEmail') out[f] = normalizeEmail(v, f);
    else if (f === 'bankCode' || f === 'bankBranch' || f === 'bankAccount') out[f] = normalizeBankNumber(f, v);
    else out[f] = v;
  }
  return out;
}
