import { z } from 'zod';
import { createHash } from 'node:crypto';
import { invalid } from './errors.ts';
import type { Doc, Query, Reader } from '../ports/store.ts';

/**
 * Cursor paging for list operations. `offset` stays as the spec says, but Firestore bills every
 * skipped document, so page N by offset costs N pages. A page token resumes after the last document
 * of the previous page instead: page N costs one page, whatever N is.
 *
 * The token is opaque to clients: base64url JSON of the last document's orderBy values, the ids
 * already returned that share those values (ties), a fingerprint of the filters it belongs to, and the
 * total as of the first page. Every list this serves orders by an integer last (`createdAtMs`, desc), so
 * "start at" the last values is "start after" them with that integer plus one, minus the ids seen.
 */

export const MAX_PAGE_TOKEN = 2000;

export const pageTokenField = () =>
  z
    .string()
    .max(MAX_PAGE_TOKEN)
    .regex(/^[A-Za-z0-9_-]*$/, 'not a page token')
    .describe('Opaque cursor from a previous page\'s nextPageToken: continues right after it, at the cost of one page (offset must be 0).')
    .optional();

export interface Cursor {
  /** The orderBy values of the last document returned. */
  after: unknown[];
  /** Ids already returned whose orderBy values equal `after`. */
  seen: string[];
  /** Total as counted on the first page. */
  total: number;
  totalIsEstimate: boolean;
  /** The list's own note on how the first page ran (e.g. the search word it scanned on). */
  hint?: string;
}

interface Wire {
  v: 1;
  f: string;
  a: unknown[];
  s: string[];
  t: number;
  e: 0 | 1;
  h?: string;
}

/** A short hash of whatever defines the result set, so a token is refused with other filters. */
export const fingerprint = (filters: unknown) => createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);

export function encodePageToken(fp: string, c: Cursor): string {
  const wire: Wire = { v: 1, f: fp, a: c.after, s: c.seen, t: c.total, e: c.totalIsEstimate ? 1 : 0, ...(c.hint ? { h: c.hint } : {}) };
  return Buffer.from(JSON.stringify(wire)).toString('base64url');
}

/** Decodes a token for the result set `fp`; anything else is `invalid-argument` naming pageToken. */
export function decodePageToken(token: string, fp: string, offset: number): Cursor {
  if (offset) throw invalid('offset', 'must be 0 when pageToken is given', { reason: 'notBoth', params: { other: 'pageToken' } });
  let w: Wire;
  try {
    w = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Wire;
  } catch {
    throw invalid('pageToken', 'not a page token from this list', { reason: 'badPageToken' });
  }
  const ok =
    w && w.v === 1 && typeof w.f === 'string' && Array.isArray(w.a) && w.a.length > 0 && Array.isArray(w.s) && w.s.length <= 1000 &&
    w.s.every((s) => typeof s === 'string') && w.a.every((x) => typeof x === 'string' || Number.isSafeInteger(x)) &&
    Number.isSafeInteger(w.a.at(-1)) && Number.isSafeInteger(w.t) && (w.e === 0 || w.e === 1) && (w.h === undefined || typeof w.h === 'string');
  if (!ok) throw invalid('pageToken', 'not a page token from this list', { reason: 'badPageToken' });
  if (w.f !== fp) throw invalid('pageToken', 'belongs to a list with other filters; start again without it', { reason: 'pageTokenOtherFilters' });
  return { after: w.a, seen: w.s, total: w.t, totalIsEstimate: w.e === 1, ...(w.h ? { hint: w.h } : {}) };
}

/** The query that resumes at a cursor (order: desc, last field an integer). */
export function resumeQuery(q: Query, c: Cursor): Query {
  const after = [...c.after];
  after[after.length - 1] = (after.at(-1) as number) + 1;
  return { ...q, startAfter: after };
}

const valuesOf = (q: Query, d: Doc) => (q.orderBy ?? []).map(([f]) => f.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], d.data));

/**
 * Reads `q` in order from `cursor` (or the start, skipping `offset` kept documents) and returns up to
 * `limit` documents that pass `keep`, with the cursor after the last one examined (null at the end).
 * Reads in batches, at most `scanCap` documents a call; past it, the page may be short and still carry a cursor.
 * With `probe: false` (the caller knows the total) no document past the page is read, and `next` is
 * returned for a full page; the caller drops it when the total says the page was the last.
 */
export async function scanPage(
  store: Reader,
  q: Query,
  opts: { limit: number; offset: number; cursor?: Cursor; keep?: (d: Doc) => boolean; scanCap?: number; probe?: boolean },
): Promise<{ docs: Doc[]; next: Pick<Cursor, 'after' | 'seen'> | null; exhausted: boolean }> {
  const keep = opts.keep;
  const scanCap = opts.scanCap ?? 2000;
  // Ids at the resume point already looked at; each batch asks for that many more, so it always progresses.
  let skip = new Set(opts.cursor?.seen ?? []);
  let toSkip = opts.cursor ? 0 : opts.offset;
  // Without a filter in memory the store skips the offset itself, in the first query.
  let storeOffset = !keep && toSkip > 0 ? toSkip : 0;
  if (storeOffset) toSkip = 0;
  let query = opts.cursor ? resumeQuery(q, opts.cursor) : q;
  let lastEdge: unknown[] = opts.cursor?.after ?? [];
  const docs: Doc[] = [];
  const examined: Doc[] = [];
  let more = false;
  let exhausted = false;
  const extra = opts.probe === false ? 0 : 1;
  let kept = 0;
  while (!more && examined.length < scanCap) {
    if (!extra && docs.length === opts.limit) break;
    const want = opts.limit + extra - docs.length + toSkip;
    // Filtered in memory, the next batch is sized by the match rate seen so far: few round trips, little overshoot.
    const rate = examined.length ? Math.max(kept / examined.length, 0.02) : 1;
    const size = Math.min(keep ? Math.ceil(want / rate + (examined.length ? 2 : 0)) : want, scanCap - examined.length + 1, 1000) + skip.size;
    const batch = await store.query({ ...query, limit: size, ...(storeOffset ? { offset: storeOffset } : {}) });
    storeOffset = 0;
    for (const d of batch) {
      if (skip.has(d.id)) continue;
      if (keep && !keep(d)) {
        examined.push(d);
        continue;
      }
      kept++;
      if (toSkip > 0) {
        toSkip--;
        examined.push(d);
        continue;
      }
      if (docs.length === opts.limit) {
        more = true; // one past the page: proves there is more
        break;
      }
      docs.push(d);
      examined.push(d);
    }
    if (more || (!extra && docs.length === opts.limit)) break;
    if (batch.length < size) {
      exhausted = true;
      break;
    }
    // Ties at the batch edge: resume at its values, skipping what was already looked at.
    const edge = valuesOf(q, batch.at(-1)!);
    const tied = batch.filter((d) => sameValues(valuesOf(q, d), edge)).map((d) => d.id);
    skip = new Set([...[...skip].filter(() => sameValues(edge, lastEdge)), ...tied]);
    lastEdge = edge;
    query = resumeQuery(q, { after: edge, seen: [], total: 0, totalIsEstimate: false });
  }
  const end = exhausted ? undefined : examined.at(-1);
  let next: Pick<Cursor, 'after' | 'seen'> | null = null;
  if (end) {
    const after = valuesOf(q, end);
    const tie = examined.filter((d) => sameValues(valuesOf(q, d), after)).map((d) => d.id);
    const prev = opts.cursor && sameValues(opts.cursor.after, after) ? opts.cursor.seen : [];
    next = { after, seen: [...new Set([...prev, ...tie])] };
  }
  return { docs, next, exhausted };
}

const sameValues = (a: unknown[], b: unknown[]) => JSON.stringify(a) === JSON.stringify(b);
