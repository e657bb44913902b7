import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, page, text } from '../../core/schema.ts';
import { decodePageToken, encodePageToken, fingerprint, pageTokenField, scanPage } from '../../core/pageToken.ts';
import { matchesAll, queryWords } from '../../domain/search.ts';
import { mailsPath, type ScannedMail } from '../../domain/mail/mailImport.ts';
import type { Doc, Query, Where } from '../../ports/store.ts';

const RESULTS = ['processing', 'imported', 'no_invoice', 'duplicate', 'error'] as const;

export const mailRowSchema = z.object({
  seenId: z.string(),
  accountId: z.string(),
  from: z.string(),
  subject: z.string(),
  date: z.string(),
  result: z.enum(RESULTS),
  reason: z.string(),
  invoices: z.int(),
  docIds: z.array(z.string()),
  attempts: z.int().describe('Times the mail was processed.'),
  willRetry: z.boolean().describe('The error is temporary (the provider failed): the next import of the mailbox or its automation\'s next poll tries again.'),
});

/**
 * The store filters on the search word (with the result filter, when given) or on the equality filters;
 * the rest is checked while scanning in order (the same plan as invoicesList, docs/performance.md).
 */
export function mailsQuery(
  businessId: string,
  f: { result?: string; accountId?: string; importId?: string; word?: string },
): { query: Query; memory: { accountId?: string; importId?: string } } {
  const where: Where[] = [];
  const memory: { accountId?: string; importId?: string } = {};
  if (f.result) where.push(['result', '==', f.result]);
  // One of search word, import, mailbox goes to the store (in that order); the others are checked while scanning.
  if (f.word) {
    where.push(['search', 'array-contains', f.word]);
    if (f.importId !== undefined) memory.importId = f.importId;
    if (f.accountId !== undefined) memory.accountId = f.accountId;
  } else if (f.importId !== undefined) {
    where.push(['importId', '==', f.importId]);
    if (f.accountId !== undefined) memory.accountId = f.accountId;
  } else if (f.accountId !== undefined) where.push(['accountId', '==', f.accountId]);
  return { query: { collection: mailsPath(businessId), where, orderBy: [['dateMs', 'desc']] }, memory };
}

export default defineOperation({
  name: 'mailsList',
  group: 'invoices',
  summary: 'Mails the mailbox imports looked at, newest first, and what became of each',
  description:
    'Filters combine: result, accountId (a connected mailbox), importId (one import), q (word beginnings of the sender and subject; every word must match). ' +
    'Result {items, total, totalIsEstimate, limit, offset, nextPageToken}; limit default 50, at most 200. Pass nextPageToken as pageToken for the next page: it costs one page whatever the depth.',
  flags: { readOnly: true },
  input: input({
    result: z.enum(RESULTS).optional().describe('Only mails with this import outcome: processing, imported (invoices made), no_invoice, duplicate or error.'),
    accountId: z.string().max(128).optional().describe('Only mails of this mailbox (mailboxListAccounts).'),
    importId: z.string().max(128).optional().describe("Only mails this import looked at (mailboxImportStart's importId); a mail looked at again by a later import counts as that one's."),
    q: text().optional().describe('Words to find at word beginnings in the sender and subject.'),
    limit: page.limit.describe('Page size, 1 to 200 (default 50).'),
    offset: page.offset.describe('Items to skip (default 0). Prefer pageToken for deep pages.'),
    pageToken: pageTokenField(),
  }),
  output: z.object({ items: z.array(mailRowSchema), total: z.int(), totalIsEstimate: z.boolean(), limit: z.int(), offset: z.int(), nextPageToken: z.string().nullable() }),
  async run({ result, accountId, importId, q, limit, offset, pageToken }, ctx) {
    const [word, ...rest] = queryWords(q ?? '');
    const fp = fingerprint({ result, accountId, importId, words: [word, ...rest].filter(Boolean).sort() });
    const cursor = pageToken ? decodePageToken(pageToken, fp, offset) : undefined;
    const { query, memory } = mailsQuery(ctx.caller.businessId, { result, accountId, importId, word });
    const inMemory = rest.length > 0 || memory.accountId !== undefined || memory.importId !== undefined;
    const keep = inMemory
      ? (d: Doc) => {
          const m = d.data as unknown as ScannedMail;
          return matchesAll(m.search, rest) && (memory.accountId === undefined || m.accountId === memory.accountId) && (memory.importId === undefined || m.importId === memory.importId);
        }
      : undefined;
    const probe = Boolean(cursor || keep);
    const [found, counted] = await Promise.all([scanPage(ctx.store, query, { limit, offset, cursor, keep, probe }), cursor ? Promise.resolve(cursor.total) : ctx.store.count(query)]);
    let total = counted;
    let totalIsEstimate = cursor ? cursor.totalIsEstimate : inMemory;
    if (inMemory && !cursor && found.exhausted) {
      total = offset + found.docs.length;
      totalIsEstimate = false;
    }
    if (!probe && offset + found.docs.length >= total) found.next = null;
    const items = found.docs.map((d) => {
      const m = d.data as unknown as ScannedMail;
      return { seenId: m.seenId, accountId: m.accountId, from: m.from, subject: m.subject, date: m.date, result: m.result, reason: m.reason ?? '', invoices: m.invoices ?? 0, docIds: m.docIds ?? [], attempts: m.attempts ?? 1, willRetry: m.willRetry ?? false };
    });
    return { items, total, totalIsEstimate, limit, offset, nextPageToken: found.next ? encodePageToken(fp, { ...found.next, total, totalIsEstimate }) : null };
  },
});
