import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS, page, text } from '../../core/schema.ts';
import { decodePageToken, encodePageToken, fingerprint, pageTokenField, scanPage } from '../../core/pageToken.ts';
import { invalid } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { invoicesPath, PAY_MARKS, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { invoiceRow, invoiceRowSchema, isRealDay } from '../../domain/invoices/invoiceDocs.ts';
import { checkCategory } from '../../domain/invoices/vendorRules.ts';
import { paymentsOfDocs } from '../../domain/invoices/readingMismatch.ts';
import { matchesAll, queryWords } from '../../domain/search.ts';
import type { Doc, Query, Reader, Where } from '../../ports/store.ts';

/** The equality filters, input name → stored field; payMark filters on the mark in force. */
export const EQUALITY_FILTERS = [
  ['folderId', 'folderId'],
  ['category', 'category'],
  ['supplierKey', 'supplierKey'],
  ['payMark', 'effectivePayMark'],
  ['source', 'source'],
] as const;

export interface ListFilters {
  folderId?: string;
  category?: string;
  supplierKey?: string;
  payMark?: string;
  source?: string;
  /** The one q word the store matches (array-contains on the search tokens). */
  word?: string;
  from?: string;
  to?: string;
}

/**
 * The one query shape per filter combination. With a date range Firestore needs the range field
 * first in orderBy, so those lists run by invoice date (then newest upload first); otherwise
 * newest upload first. Every shape has its composite index (test/operations/invoices/invoicesList.test.ts).
 */
export function listQuery(businessId: string, f: ListFilters): Query {
  const where: Where[] = [];
  for (const [name, field] of EQUALITY_FILTERS) if (f[name] !== undefined) where.push([field, '==', f[name]]);
  if (f.word) where.push(['search', 'array-contains', f.word]);
  if (f.from) where.push(['date', '>=', f.from]);
  if (f.to) where.push(['date', '<=', f.to]);
  const ranged = Boolean(f.from || f.to);
  return { collection: invoicesPath(businessId), where, orderBy: ranged ? [['date', 'desc'], ['createdAtMs', 'desc']] : [['createdAtMs', 'desc']] };
}

/**
 * Search is served by 7 indexes only (docs/performance.md): `search` with no equality filter or with
 * one, ordered by upload; or `search` with the date range. What the store does not filter is checked
 * in memory while scanning in order, and `total` is then the store's count: an upper bound.
 */
export const SEARCH_FILTER_PRIORITY = ['supplierKey', 'folderId', 'category', 'payMark', 'source'] as const;

/** Which filters the store applies for a search on `word`; the rest are checked in memory. */
export function storeFilters(f: ListFilters, word: string | undefined): { store: ListFilters; memory: Partial<ListFilters> } {
  if (!word) return { store: f, memory: {} };
  const { from, to, ...eq } = f;
  if (from || to) return { store: { word, from, to }, memory: eq };
  const first = SEARCH_FILTER_PRIORITY.find((k) => eq[k] !== undefined);
  const store: ListFilters = { word, ...(first ? { [first]: eq[first] } : {}) };
  const memory: Partial<ListFilters> = { ...eq };
  if (first) delete memory[first];
  return { store, memory };
}

const fieldOf = Object.fromEntries(EQUALITY_FILTERS) as Record<(typeof EQUALITY_FILTERS)[number][0], keyof InvoiceDoc>;

/**
 * The count of a list. Every invoice has createdAtMs, so ordering by it excludes none: without a range
 * or a search word the count drops the order and runs on the equality filters alone (in SQLite, a scan
 * of a covering index rather than of the documents).
 */
const countQuery = (q: Query, f: ListFilters): Query => (f.word || f.from || f.to ? q : { ...q, orderBy: undefined });

/** Words of q whose match counts are compared; beyond that the longest ones are tried. */
export const MAX_COUNTED_WORDS = 4;

/** Word counts stop here: a count costs one read per 1,000 matches, so a common word costs one read, not ten. */
export const COUNT_CAP = 1001;

/**
 * The word the store should match: with several words, the one with the fewest matching documents
 * (each counted up to COUNT_CAP; ties among saturated words go to the longest), so a multi-word q
 * reads as few documents as it can. The chosen word's count doubles as the total when it is below the cap.
 */
async function mostSelective(store: Reader & { count(q: Query): Promise<number> }, businessId: string, filters: ListFilters, words: string[]): Promise<{ word?: string; count?: number }> {
  if (words.length <= 1) return { word: words[0] };
  const tried = words.slice(0, MAX_COUNTED_WORDS);
  const counts = await Promise.all(tried.map((word) => store.count({ ...listQuery(businessId, storeFilters(filters, word).store), limit: COUNT_CAP })));
  const i = counts.indexOf(Math.min(...counts));
  return { word: tried[i], ...(counts[i] < COUNT_CAP ? { count: counts[i] } : {}) };
}

/** YYYY-MM-DD (a bounded string, so oversized input is refused by validation). */
const invoiceDay = () => text(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');

const checkDay = (field: 'from' | 'to', v: string | undefined) => {
  if (v !== undefined && !isRealDay(v)) throw invalid(field, `"${v}" is not a real date (YYYY-MM-DD)`, { reason: 'notARealDate', params: { value: v } });
  return v || undefined;
};

export default defineOperation({
  name: 'invoicesList',
  group: 'invoices',
  summary: 'Invoice documents, newest first, with filters, text search and paging',
  description:
    'Newest upload first; by invoice date, then upload, when from/to is given. Filters combine. ' +
    'Result {items, total, totalIsEstimate, limit, offset, nextPageToken}; limit default 50, at most 200. ' +
    'With q plus more than one other filter (or q with from/to plus another filter), total is an upper bound (totalIsEstimate: true). ' +
    'Pass nextPageToken as pageToken for the next page: it costs one page whatever the depth, where a deep offset is billed for every skipped document.',
  flags: { readOnly: true },
  input: input({
    folderId: z.string().max(LIMITS.id).regex(/^(?!\.\.?$)[^/]*$/, 'not a valid id').optional().describe('Only invoices in this folder (foldersList ids).'),
    category: text(64).optional().describe('Only this expense category id (categoriesList); "" = uncategorized.'),
    supplierKey: text(LIMITS.email).optional().describe("Only invoices assigned to this supplier (the supplier's phone in E.164 or email)."),
    payMark: z.enum(['', ...PAY_MARKS]).optional().describe('Only invoices whose pay mark in force is this; "" = any.'),
    source: z.enum(['mailbox', 'upload', 'supplier']).optional().describe('Only invoices from this source: mailbox (imported mail), upload (uploadInvoiceDoc) or supplier (sent by a supplier with a payment).'),
    q: text().optional().describe('Words to find: beginnings of issuer and invoice-number words, whole words of file name, note and mail subject. Every word must match.'),
    from: invoiceDay().optional().describe('Earliest invoice date, YYYY-MM-DD, inclusive.'),
    to: invoiceDay().optional().describe('Latest invoice date, YYYY-MM-DD, inclusive.'),
    limit: page.limit.describe('Page size, 1 to 200 (default 50).'),
    offset: page.offset.describe('Items to skip (default 0). Prefer pageToken for deep pages.'),
    pageToken: pageTokenField(),
  }),
  output: z.object({
    items: z.array(invoiceRowSchema),
    total: z.int(),
    totalIsEstimate: z.boolean(),
    limit: z.int(),
    offset: z.int(),
    nextPageToken: z.string().nullable(),
  }),
  async run(input, ctx) {
    const from = checkDay('from', input.from);
    const to = checkDay('to', input.to);
    if (from && to && from > to) throw invalid('from', `${from} is after to (${to})`, { reason: 'dateRangeReversed' });
    const filters: ListFilters = {
      folderId: input.folderId || undefined,
      category: input.category === undefined ? undefined : checkCategory(input.category),
      supplierKey: input.supplierKey?.trim() ? normalizeSupplierKey(input.supplierKey) : undefined,
      payMark: input.payMark || undefined,
      source: input.source,
      from,
      to,
    };
    const words = queryWords(input.q ?? '');
    const fp = fingerprint({ ...filters, words: [...words].sort() });
    const cursor = input.pageToken ? decodePageToken(input.pageToken, fp, input.offset) : undefined;
    const businessId = ctx.caller.businessId;
    // On later pages the word and the total come from the first page's plan, so they cost nothing.
    const picked: { word?: string; count?: number } = cursor
      ? { word: cursor.hint && words.includes(cursor.hint) ? cursor.hint : words[0] }
      : await mostSelective(ctx.store, businessId, filters, words);
    const word = picked.word;
    const plan = storeFilters(filters, word);
    const rest = words.filter((w) => w !== word);
    const memory = Object.entries(plan.memory).filter(([, v]) => v !== undefined) as [keyof typeof fieldOf, string][];
    const inMemory = rest.length > 0 || memory.length > 0;
    const keep = inMemory
      ? (d: Doc) => {
          const doc = d.data as unknown as InvoiceDoc;
          return matchesAll(doc.search, rest) && memory.every(([k, v]) => doc[fieldOf[k]] === v);
        }
      : undefined;
    const base = listQuery(businessId, plan.store);
    const { limit, offset } = input;
    // A first page without filters in memory has an exact count, so it need not read one past the page.
    const probe = Boolean(cursor || keep);
    const [page, counted] = await Promise.all([
      scanPage(ctx.store, base, { limit, offset, cursor, keep, probe }),
      cursor ? Promise.resolve(cursor.total) : picked.count !== undefined ? Promise.resolve(picked.count) : ctx.store.count(countQuery(base, plan.store)),
    ]);
    let total = counted;
    let totalIsEstimate = cursor ? cursor.totalIsEstimate : inMemory;
    // A scan that saw the whole result from the start knows the exact total.
    if (inMemory && !cursor && page.exhausted) {
      total = offset + page.docs.length;
      totalIsEstimate = false;
    }
    if (!probe && offset + page.docs.length >= total) page.next = null;
    const nextPageToken = page.next ? encodePageToken(fp, { ...page.next, total, totalIsEstimate, ...(word ? { hint: word } : {}) }) : null;
    const docs = page.docs.map((d) => d.data as unknown as InvoiceDoc);
    const payments = await paymentsOfDocs(ctx.store, businessId, docs);
    return { items: docs.map((d) => invoiceRow(d, payments.get(d.paymentId ?? '') ?? null)), total, totalIsEstimate, limit, offset, nextPageToken };
  },
});
