import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { parsePhoneNumberFromString as parseWithTypes } from 'libphonenumber-js/max';
import { z } from 'zod';
import { invalid } from '../core/errors.ts';

/** Israeli (local) or international phone → E.164; Israel is the default region. */
export function normalizePhone(raw: string, field: string): string {
  const parsed = parsePhoneNumberFromString(raw.trim(), 'IL');
  if (!parsed || !parsed.isValid()) throw invalid(field, `"${raw}" is not a valid phone number (Israeli or E.164)`, { reason: 'invalidPhone', params: { value: raw } });
  return parsed.number;
}

/** Number types that can never receive a WhatsApp message (only the full metadata knows a number's type). */
const NOT_MOBILE = new Set(['FIXED_LINE', 'TOLL_FREE', 'PREMIUM_RATE', 'SHARED_COST', 'UAN', 'VOICEMAIL', 'PAGER']);

/**
 * Refuses a phone that WhatsApp cannot reach (a landline, a 1-800 number). A number whose type
 * is unknown passes: refusing it would turn away real mobiles the metadata has not caught up with.
 */
export function requireMobileForWhatsApp(e164: string, field: string): void {
  const type = parseWithTypes(e164)?.getType();
  if (type && NOT_MOBILE.has(type)) {
    const kind = type === 'FIXED_LINE' ? 'a landline' : 'not a mobile number';
    throw invalid(field, `${e164} is ${kind}, and WhatsApp needs a mobile number; send the link by email (supplierEmail) or share it yourself (channel "link")`, { reason: 'phoneNotMobile', params: { value: e164 } });
  }
}

const emailCheck = z.email();

export function normalizeEmail(raw: string, field: string): string {
  const email = raw.trim().toLowerCase();
  if (!emailCheck.safeParse(email).success) throw invalid(field, `"${raw}" is not a valid email address`, { reason: 'invalidEmail', params: { value: raw } });
  return email;
}

/** A supplier's identifier: the phone when there is one, otherwise the email (docs/decisions.md). */
export function supplierKeyOf(contact: { phone?: string | null; email?: string | null }): string {
  const key = contact.phone || contact.email;
  if (!key) throw invalid('supplierPhone', 'a phone or an email is required', { reason: 'supplierContactRequired' });
  return key;
}

/** A supplierKey as the caller sends it: a phone in any accepted form, or an email. */
export function normalizeSupplierKey(raw: string, field = 'supplierKey'): string {
  return raw.includes('@') ? normalizeEmail(raw, field) : normalizePhone(raw, field);
}

/** Document ids cannot hold `/`; keys are encoded the same way everywhere. */
export const keyId = (key: string) => encodeURIComponent(key);
