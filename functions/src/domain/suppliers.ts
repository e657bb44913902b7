import type { Transaction } from '../ports/store.ts';
import { keyId } from './contacts.ts';
import type { Payout } from './payments.ts';

export const SUPPLIER_KINDS = ['supplier', 'freelancer'] as const;
export type SupplierKind = (typeof SUPPLIER_KINDS)[number];

/** The business-private card of spec §2. */
export const CARD_FIELDS = [
  'fullName', 'companyName', 'companyId', 'address', 'addressCity', 'addressZip', 'phone2', 'personalEmail',
  'companyEmail', 'bankCode', 'bankBranch', 'bankAccount', 'bankBeneficiary', 'bitPhone', 'notes',
] as const;
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
  createdAt: string;
  updatedAt: string;
}

export const suppliersPath = (businessId: string, key = '') => `businesses/${businessId}/suppliers${key ? '/' + keyId(key) : ''}`;

/**
 * Inside a transaction that already read the supplier document (`existing`, or null):
 * records one more payment to this supplier, creating the supplier when it is new.
 */
export function recordPaymentToSupplier(
  tx: Transaction,
  businessId: string,
  existing: SupplierRecord | null,
  payment: { supplierKey: string; supplierName: string; supplierPhone: string | null; supplierEmail: string | null },
  at: string,
): void {
  const path = suppliersPath(businessId, payment.supplierKey);
  if (existing) {
    tx.update(path, {
      name: payment.supplierName || existing.name,
      phone: payment.supplierPhone ?? existing.phone,
      email: payment.supplierEmail ?? existing.email,
      paymentCount: existing.paymentCount + 1,
      lastPaymentAt: at,
      updatedAt: at,
    });
    return;
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
}
