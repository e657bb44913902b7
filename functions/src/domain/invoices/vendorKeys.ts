import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { InvoiceReading } from './invoices.ts';

/**
 * The issuer key of a reading: the first that applies of `vat:`, `email:`, `phone:`, `name:`.
 * Pay rules and category rules are kept per key.
 */
export function vendorKeyOf(reading: InvoiceReading | null): string | null {
  if (!reading) return null;
  const { vatId, email, phone, name } = reading.issuer;
  const vat = vatId?.replace(/\D/g, '');
  if (vat && vat.length >= 5) return `vat:${vat}`;
  if (email && email.includes('@')) return `email:${email.trim().toLowerCase()}`;
  const parsed = phone ? parsePhoneNumberFromString(phone, 'IL') : undefined;
  if (parsed?.isValid()) return `phone:${parsed.number}`;
  const n = name?.trim().toLowerCase().replace(/\s+/g, ' ');
  return n ? `name:${n}` : null;
}

export const VENDOR_KEY_PATTERN = /^(vat|email|phone|name):.+$/;
