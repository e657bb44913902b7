import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS, page, text } from '../../core/schema.ts';
import { invalid } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { invoicesPath, PAY_MARKS, type InvoiceDoc } from '../../domain/invoices.ts';
import { invoiceRow, invoiceRowSchema, isRealDay } from '../../domain/invoiceDocs.ts';
import { checkCategory } from '../../domain/vendorRules.ts';
import { matchesAll, queryWords } from '../../domain/search.ts';
import type { Query, Reader, Where } from '../../ports/store.ts';

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

/** Words of q whose match counts are compared; beyond that the longest ones are tried. */
export const MAX_COUNTED_WORDS = 4;

/**
 * The word the store should match: with several words, the one with the fewest matching documents
 * (a count costs one read per 1000 matches), so a multi-word q reads as few documents as it can.
 */
async function mostSelective(store: Reader & { count(q: Query): Promise<number> }, businessId: string, filters: ListFilters, words: string[]): Promise<string | undefined> {
  if (words.length <= 1) return words[0];
  const tried = words.slice(0, MAX_COUNTED_WORDS);
  const counts = await Promise.all(tried.map((word) => store.count(listQuery(businessId, { ...filters, word }))));
  return tried[counts.indexOf(Math.min(...counts))];
}

/** YYYY-MM-DD (a bounded string, so oversized input is refused by validation). */
const invoiceDay = () => text(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');

const checkDay = (field: 'from' | 'to', v: string | undefined) => {
  if (v !== undefined && !isRealDay(v)) throw invalid(field, `"${v}" is not a real date (YYYY-MM-DD)`);
  return v || undefined;
};

export default defineOperation({
  name: 'invoicesList',
  group: 'invoices',
  summary:
    'Invoice documents, newest first (by invoice date, then upload, when from/to is given). Filters combine: folderId, category ("" = uncategorized), ' +
    'supplierKey, payMark (the mark in force; "" = any), source, q (words of the file name, issuer, invoice number, note or mail subject), ' +
    'from/to (YYYY-MM-DD, on the invoice date). Result {items, total, limit, offset}; limit default 50, at most 200.',
  flags: { readOnly: true },
  input: input({
    folderId: z.string().max(LIMITS.id).regex(/^(?!\.\.?$)[^/]*$/, 'not a valid id').optional(),
    category: text(64).optional(),
    supplierKey: text(LIMITS.email).optional(),
    payMark: z.enum(['', ...PAY_MARKS]).optional(),
    source: z.enum(['mailbox', 'upload', 'supplier']).optional(),
    q: text().optional(),
    from: invoiceDay().optional(),
    to: invoiceDay().optional(),
    ...page,
  }),
  output: z.object({ items: z.array(invoiceRowSchema), total: z.int(), limit: z.int(), offset: z.int() }),
  async run(input, ctx) {
    const from = checkDay('from', input.from);
    const to = checkDay('to', input.to);
    if (from && to && from > to) throw invalid('from', `${from} is after to (${to})`);
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
    const word = await mostSelective(ctx.store, ctx.caller.businessId, filters, words);
    const rest = words.filter((w) => w !== word);
    const base = listQuery(ctx.caller.businessId, { ...filters, word });
    const { limit, offset } = input;
    let docs: InvoiceDoc[];
    let total: number;
    if (rest.length === 0) {
      const [found, n] = await Promise.all([ctx.store.query({ ...base, limit, offset }), ctx.store.count(base)]);
      docs = found.map((d) => d.data as unknown as InvoiceDoc);
      total = n;
    } else {
      // The store matches the longest word; the other words are checked here.
      const matching = (await ctx.store.query(base)).map((d) => d.data as unknown as InvoiceDoc).filter((d) => matchesAll(d.search, rest));
      docs = matching.slice(offset, offset + limit);
      total = matching.length;
    }
    return { items: docs.map(invoiceRow), total, limit, offset };
  },
});
