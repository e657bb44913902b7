import { normalizeSupplierKey } from '../contacts.ts';
import { words } from '../search.ts';
import type { MergedSupplier } from './supplierMerge.ts';

/** A phone as people type it: "+972 52…", "052-…", "52…"; digits only, the Israeli trunk 0 and country code dropped. */
const phoneDigits = (s: string) => s.replace(/\D/g, '').replace(/^(?:972|0)/, '');

/**
 * suppliersList's `q` (the payment form completes from it): every word starts a word of the name, or q is part of
 * an email, or q's digits start a phone (ignoring 0/+972), of the supplier or of one merged into it.
 */
export function supplierMatches(r: MergedSupplier, q: string): boolean {
  const qWords = words(q);
  const nameWords = words(r.name ?? '');
  if (qWords.length && qWords.every((w) => nameWords.some((n) => n.startsWith(w)))) return true;
  const contacts = [r.key, r.phone, r.email, ...(r.aliases ?? [])].filter((c): c is string => !!c);
  const text = q.trim().toLowerCase();
  if (text.length >= 2 && contacts.some((c) => c.includes('@') && c.includes(text))) return true;
  const digits = /^[\d\s()+-]+$/.test(text) ? phoneDigits(text) : '';
  return digits.length >= 3 && contacts.some((c) => !c.includes('@') && phoneDigits(c).startsWith(digits));
}

/** The key of the supplier whose phone or email q is exactly (a merged supplier's gives the one it became), else null. */
export function exactSupplier(records: MergedSupplier[], q: string): string | null {
  let key: string;
  try {
    key = normalizeSupplierKey(q, 'q');
  } catch {
    return null;
  }
  const hit = records.find((r) => r.key === key || r.phone === key || r.email === key || r.aliases?.includes(key));
  return hit?.key ?? null;
}
