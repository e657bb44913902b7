import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS, page, text } from '../../core/schema.ts';
import { decodePageToken, encodePageToken, fingerprint, pageTokenField, scanPage } from '../../core/pageToken.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { matchesAll, queryWords } from '../../domain/search.ts';
import { currentSupplierKey } from '../../domain/payments/supplierAliases.ts';
import { isUnpaid, PAYMENT_STATUSES, paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { approvalOf, approvalPolicyOf } from '../../domain/payments/approvals.ts';
import { addDays } from '../../domain/payments/dueDates.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { paymentRow, paymentRowSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { latestReadings } from '../../domain/invoices/readingMismatch.ts';
import type { Doc, Query, Where } from '../../ports/store.ts';

export default defineOperation({
  name: 'paymentsList',
  group: 'payments',
  summary: 'Payments to suppliers, newest first, with filters, text search and paging',
  description:
    'Filters combine: status, supplierKey (phone or email), payoutChanged (payout details differ from the supplier\'s known ones: verify before paying), ' +
    'q (words of the supplier name, description or invoice number), approval (its computed state), due (unpaid; overdue: dueDate before today in Israel; week: today through 6 days on).  Result {items, total, totalIsEstimate, limit, offset, nextPageToken}; limit default 50, at most 200. ' +
    'Pass nextPageToken as pageToken for the next page: it costs one page whatever the depth.',
  flags: { readOnly: true },
  input: input({
    status: z.enum(PAYMENT_STATUSES).optional().describe('Only payments in this status: sent, awaiting_invoice, ready (to pay), paid or canceled.'),
    supplierKey: text(LIMITS.email).optional().describe("Only payments to this supplier (the supplier's phone in E.164 or email)."),
    payoutChanged: z.boolean().optional().describe('true: only payments whose filed payout differs from the known one (a fraud signal); false: only the others.'),
    approval: z.enum(['pending', 'approved', 'rejected']).optional().describe('pending, approved or rejected.'),
    due: z.enum(['overdue', 'week']).optional().describe('Unpaid, overdue or due in 7 days.'),
    q: text().optional().describe('Words to find at word beginnings in the supplier name, description or invoice number; every word must match.'),
    limit: page.limit.describe('Page size, 1 to 200 (default 50).'),
    offset: page.offset.describe('Items to skip (default 0). Prefer pageToken for deep pages.'),
    pageToken: pageTokenField(),
  }),
  output: z.object({
    items: z.array(paymentRowSchema),
    total: z.int(),
    totalIsEstimate: z.boolean(),
    limit: z.int(),
    offset: z.int(),
    nextPageToken: z.string().nullable(),
  }),
  async run({ status, supplierKey, payoutChanged, approval, due, q, limit, offset, pageToken }, ctx) {
    // A merged supplier's key lists the payments of the supplier it became (they moved there).
    const key = supplierKey?.trim() ? await currentSupplierKey(ctx.store, ctx.caller.businessId, normalizeSupplierKey(supplierKey)) : undefined;
    const words = queryWords(q ?? '');
    // One policy read per page: the approval filter and every row's approval use it.
    const policy = await approvalPolicyOf(ctx.store, ctx.caller.businessId);
    const today = jerusalemDay(ctx.clock.now());
    const weekEnd = addDays(today, 6);
    const fp = fingerprint({ status, key, payoutChanged, approval, due, ...(due ? { today } : {}), words: [...words].sort() });
    const cursor = pageToken ? decodePageToken(pageToken, fp, offset) : undefined;
    const where: Where[] = [];
    if (status) where.push(['status', '==', status]);
    if (key) where.push(['supplierKey', '==', key]);
    // The longest word is the most selective: the store returns only its matches; the rest are checked here.
    const [first, ...rest] = words;
    if (first) where.push(['search', 'array-contains', first]);
    // Flagged payments have indexes of their own and with status; "false", or beside a supplier or a word,
    // is checked here (older payments lack the field, so the store cannot match false).
    const flagInStore = payoutChanged === true && !key && !first;
    if (flagInStore) where.push(['payoutChanged', '==', payoutChanged]);
    const flagInMemory = payoutChanged !== undefined && !flagInStore;
    const base: Query = { collection: paymentsPath(ctx.caller.businessId), where, orderBy: [['createdAtMs', 'desc']] };
    // Approval is computed when read and due dates compare with today, so both are checked here, as the words are.
    const isDue = (p: PaymentRecord) => {
      if (!due) return true;
      if (!p.dueDate || !isUnpaid(p.status)) return false;
      return due === 'overdue' ? p.dueDate < today : p.dueDate >= today && p.dueDate <= weekEnd;
    };
    const inMemory = rest.length > 0 || flagInMemory || approval !== undefined || due !== undefined;
    const keep = inMemory
      ? (d: Doc) => {
          const p = d.data as unknown as PaymentRecord;
          return matchesAll(p.search, rest) && (!flagInMemory || (p.payoutChanged === true) === payoutChanged) && (!approval || approvalOf(p, policy).state === approval) && isDue(p);
        }
      : undefined;
    const probe = Boolean(cursor || keep);
    const [found, counted] = await Promise.all([
      scanPage(ctx.store, base, { limit, offset, cursor, keep, probe }),
      cursor ? Promise.resolve(cursor.total) : ctx.store.count(base),
    ]);
    let total = counted;
    let totalIsEstimate = cursor ? cursor.totalIsEstimate : inMemory;
    if (inMemory && !cursor && found.exhausted) {
      total = offset + found.docs.length;
      totalIsEstimate = false;
    }
    if (!probe && offset + found.docs.length >= total) found.next = null;
    const nextPageToken = found.next ? encodePageToken(fp, { ...found.next, total, totalIsEstimate }) : null;
    const deps = { ...viewDeps(ctx), policy };
    const payments = found.docs.map((d) => d.data as unknown as PaymentRecord);
    const readings = await latestReadings(ctx.store, payments);
    const items = await Promise.all(payments.map((p) => paymentRow(p, deps, readings.get(p.id) ?? null)));
    return { items, total, totalIsEstimate, limit, offset, nextPageToken };
  },
});
