/**
 * Text search without reading the whole collection (DESIGN.md): documents keep normalized
 * search tokens in `search`, and a query asks `array-contains` for one word of `q`.
 * Every token costs one index entry per index that carries `search`, so tokens are kept few.
 */
const MAX_PREFIX = 15;
const MAX_TOKENS = 400;
/** Invoices: 7 indexes carry `search`, so 150 tokens stay near 1,000 index entries. */
export const MAX_INVOICE_TOKENS = 150;

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The words of a text: lower case, without Hebrew points or other marks, split on anything but letters, digits and
 * `@ . +`; a word with those is split on them too, and an address or dotted word is also kept whole.
 */
export function words(text: string): string[] {
  // ASCII text has no marks or points to strip and is its own NFKD form (every import writes two texts: issue 23).
  const t = ASCII.test(text)
    ? text.toLowerCase()
    : text
        .normalize('NFKD')
        .replace(/[\u0591-\u05C7]/g, '') // Hebrew points
        .replace(/\p{M}/gu, '')
        .toLowerCase();
  const out: string[] = [];
  for (const w of t.split(/[^\p{L}\p{N}@.+]+/u)) {
    const dotted = w.includes('@') || w.includes('.');
    if (dotted || w.includes('+')) {
      for (const part of w.split(/[@.+]/)) if (part.length >= 2) out.push(part);
      if (dotted && w.length >= 2) out.push(w);
    } else if (w.length >= 2) out.push(w);
  }
  return out;
}

/** Every prefix (2..15 characters) of every word, so `q` matches word beginnings. */
export function searchTokens(...texts: (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const w of words(texts.filter(Boolean).join(' '))) {
    for (let i = 2; i <= Math.min(w.length, MAX_PREFIX); i++) out.add(w.slice(0, i));
    if (out.size >= MAX_TOKENS) break;
  }
  return [...out].slice(0, MAX_TOKENS);
}

/**
 * Tokens of invoices: every prefix (2..15 characters) of the words of `prefixed` (names and numbers,
 * typed as beginnings), and only the whole words (cut to 15) of `whole` (notes, subjects, file names).
 * Prefixes come first, so a cap drops note words before issuer prefixes.
 */
export function searchTokensOf(prefixed: (string | null | undefined)[], whole: (string | null | undefined)[], max = MAX_INVOICE_TOKENS): string[] {
  const out = new Set<string>();
  for (const w of words(prefixed.filter(Boolean).join(' '))) {
    for (let i = 2; i <= Math.min(w.length, MAX_PREFIX); i++) out.add(w.slice(0, i));
  }
  for (const w of words(whole.filter(Boolean).join(' '))) out.add(w.slice(0, MAX_PREFIX));
  return [...out].slice(0, max);
}

/** The words of `q`, cut to the indexed prefix length; the longest one drives the query. */
export function queryWords(q: string): string[] {
  return [...new Set(words(q).map((w) => w.slice(0, MAX_PREFIX)))].sort((a, b) => b.length - a.length);
}

/** Whether a document's tokens hold every word of the query (the other words are checked in memory). */
export const matchesAll = (tokens: string[] | undefined, qWords: string[]) => qWords.every((w) => tokens?.includes(w));
