export const CURRENCIES = ['ILS', 'USD', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** The largest amount the service takes: ₪10,000,000 (10 million major units) in minor units (docs/decisions.md). */
export const MAX_AMOUNT_AGOROT = 1_000_000_000;

const SYMBOL: Record<Currency, string> = { ILS: '₪', USD: '$', EUR: '€' };

/** Minor units → "₪1,234.50". */
export function formatAmount(minor: number, currency: Currency): string {
  const major = (minor / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${SYMBOL[currency]}${major}`;
}
