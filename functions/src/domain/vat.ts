import { formatAmount, type Currency } from './money.ts';

/** Israel's VAT rate (18% since January 2025). */
export const VAT_PERCENT = 18;

/** The currencies Israeli VAT does not apply to by default: a supplier paid in them is abroad. */
export const NO_VAT_CURRENCIES: readonly Currency[] = ['USD', 'EUR'];

/**
 * What a payment's amount means for VAT: `none` (noVat: a supplier abroad, an exempt dealer),
 * `included` (the amount holds VAT) or `added` (VAT comes on top of the amount).
 */
export type VatMode = 'none' | 'included' | 'added';

export interface VatFields {
  amountAgorot: number;
  currency: Currency;
  vatIncluded: boolean;
  noVat?: boolean;
}

export const vatMode = (p: Pick<VatFields, 'vatIncluded' | 'noVat'>): VatMode => (p.noVat ? 'none' : p.vatIncluded ? 'included' : 'added');

export interface PaymentAmounts {
  mode: VatMode;
  /** What the business pays, VAT included: the one figure every page and message names. */
  totalAgorot: number;
  /** The VAT in it; 0 when no VAT applies. */
  vatAgorot: number;
  /** The amount before VAT. */
  netAgorot: number;
}

export function paymentAmounts(p: Pick<VatFields, 'amountAgorot' | 'vatIncluded' | 'noVat'>): PaymentAmounts {
  const mode = vatMode(p);
  const a = p.amountAgorot;
  if (mode === 'none') return { mode, totalAgorot: a, vatAgorot: 0, netAgorot: a };
  if (mode === 'included') {
    const vat = Math.round((a * VAT_PERCENT) / (100 + VAT_PERCENT));
    return { mode, totalAgorot: a, vatAgorot: vat, netAgorot: a - vat };
  }
  const vat = Math.round((a * VAT_PERCENT) / 100);
  return { mode, totalAgorot: a + vat, vatAgorot: vat, netAgorot: a };
}

/**
 * noVat when the caller did not say: true for USD and EUR (no Israeli VAT abroad) and for a supplier
 * whose card says exempt dealer (עוסק פטור); false otherwise.
 */
export function defaultNoVat(currency: Currency, supplierBusinessType: string | undefined): boolean {
  return NO_VAT_CURRENCIES.includes(currency) || supplierBusinessType === 'patur';
}

export type AmountLang = 'he' | 'en';

/** The amount as pages and messages name it: the figure (VAT included) and the VAT line, or none when no VAT applies. */
export function amountWords(p: VatFields, lang: AmountLang): { figure: string; vatLine: string | null } {
  const a = paymentAmounts(p);
  const fmt = (minor: number) => formatAmount(minor, p.currency);
  const figure = fmt(a.totalAgorot);
  if (a.mode === 'none') return { figure, vatLine: null };
  if (a.mode === 'included') return { figure, vatLine: lang === 'he' ? `כולל מע"מ (מתוכו ${fmt(a.vatAgorot)} מע"מ)` : `including VAT (${fmt(a.vatAgorot)} of it is VAT)` };
  return { figure, vatLine: lang === 'he' ? `כולל מע"מ ${fmt(a.vatAgorot)} (${fmt(a.netAgorot)} לפני מע"מ)` : `including VAT of ${fmt(a.vatAgorot)} (${fmt(a.netAgorot)} before VAT)` };
}

/** What the typed amount of an open-amount form means: "including VAT", "before VAT" or "no VAT". */
export function typedAmountMeaning(p: Pick<VatFields, 'vatIncluded' | 'noVat'>, lang: AmountLang): string {
  const mode = vatMode(p);
  if (lang === 'he') return mode === 'none' ? 'ללא מע"מ' : mode === 'included' ? 'כולל מע"מ' : 'לפני מע"מ (המע"מ יתווסף)';
  return mode === 'none' ? 'no VAT' : mode === 'included' ? 'including VAT' : 'before VAT (VAT is added)';
}
