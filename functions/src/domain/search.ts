/**
 * Text search without reading the whole collection (DESIGN.md): documents keep normalized
 * word prefixes in `search`, and a query asks `array-contains` for one word of `q`.
 */
const MAX_PREFIX = 15;
const MAX_TOKENS = 400;

export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0591-\u05C7]/g, '') // Hebrew points
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}@.+]+/u)
    .flatMap((w) => w.split(/[@.+]/).concat(w.includes('@') || w.includes('.') ? [w] : []))
    .filter((w) => w.length >= 2);
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

/** The words of `q`, cut to the indexed prefix length; the longest one drives the query. */
export function queryWords(q: string): string[] {
  return [...new Set(words(q).map((w) => w.slice(0, MAX_PREFIX)))].sort((a, b) => b.length - a.length);
}

/** Whether a document's tokens hold every word of the query (the other words are checked in memory). */
export const matchesAll = (tokens: string[] | undefined, qWords: string[]) => qWords.every((w) => tokens?.includes(w));
