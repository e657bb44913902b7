/**
 * Money in the dashboard is integer agorot (cents): typed amounts are parsed here without floating point.
 * Accepted: "1250", "1250.5", "1,250.50", "₪ 1,250" (commas only as thousands separators, at most 2 decimals).
 */
export function parseAgorot(input: string): number | null {
  const s = input.replace(/[\s\u00a0₪$€]/g, '');
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d{0,2})?$/.test(s)) return null;
  const [whole, frac = ''] = s.replace(/,/g, '').split('.');
  const agorot = Number(whole) * 100 + Number((frac + '00').slice(0, 2));
  return Number.isSafeInteger(agorot) ? agorot : null;
}

/** The amount as typed in an input ("1250.50"), for editing an existing value. */
export const agorotToInput = (agorot: number) => `${Math.trunc(agorot / 100)}.${String(agorot % 100).padStart(2, '0')}`;

/** Israel's VAT rate, as the supplier page computes it. */
export const VAT_PERCENT = 18;

/**
 * The VAT the supplier page shows (functions/src/domain/vat.ts): the part of an amount that includes VAT,
 * the VAT added on top, or none (noVat: a supplier abroad, an exempt dealer). `total` is what is paid.
 */
export function vatOf(agorot: number, included: boolean, noVat = false): { vat: number; total: number } {
  if (noVat) return { vat: 0, total: agorot };
  if (included) return { vat: Math.round((agorot * VAT_PERCENT) / (100 + VAT_PERCENT)), total: agorot };
  const vat = Math.round((agorot * VAT_PERCENT) / 100);
  return { vat, total: agorot + vat };
}

/** The currencies no Israeli VAT applies to by default: the supplier is abroad (as the API defaults noVat). */
export const NO_VAT_CURRENCIES: readonly string[] = ['USD', 'EUR'];
