import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS, page, text } from '../../core/schema.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { matchesAll, queryWords } from '../../domain/search.ts';
import { PAYMENT_STATUSES, paymentsPath, type PaymentRecord } from '../../domain/payments.ts';
import { paymentRow, paymentRowSchema, viewDeps } from '../../domain/paymentView.ts';
import type { Query, Where } from '../../ports/store.ts';

export default defineOperation({
  name: 'paymentsList',
  group: 'payments',
  summary:
    'Payments to suppliers, newest first, filtered by status, supplierKey (phone or email) and q (words of the supplier name, description or invoice number); result {items, total, limit, offset}; limit default 50, at most 200.',
  flags: { readOnly: true },
  input: input({
    status: z.enum(PAYMENT_STATUSES).optional(),
    supplierKey: text(LIMITS.email).optional(),
    q: text().optional(),
    ...page,
  }),
  output: z.object({ items: z.array(paymentRowSchema), total: z.int(), limit: z.int(), offset: z.int() }),
  async run({ status, supplierKey, q, limit, offset }, ctx) {
    const where: Where[] = [];
    if (status) where.push(['status', '==', status]);
    if (supplierKey?.trim()) where.push(['supplierKey', '==', normalizeSupplierKey(supplierKey)]);
    // The longest word is the most selective: the store returns only its matches; the rest are checked here.
    const [first, ...rest] = queryWords(q ?? '');
    if (first) where.push(['search', 'array-contains', first]);
    const base: Query = { collection: paymentsPath(ctx.caller.businessId), where, orderBy: [['createdAtMs', 'desc']] };

    let docs: PaymentRecord[];
    let total: number;
    if (rest.length === 0) {
      const [found, n] = await Promise.all([ctx.store.query({ ...base, limit, offset }), ctx.store.count(base)]);
      docs = found.map((d) => d.data as unknown as PaymentRecord);
      total = n;
    } else {
      const matching = (await ctx.store.query(base)).map((d) => d.data as unknown as PaymentRecord).filter((p) => matchesAll(p.search, rest));
      docs = matching.slice(offset, offset + limit);
      total = matching.length;
    }
    const deps = viewDeps(ctx);
    return { items: await Promise.all(docs.map((p) => paymentRow(p, deps))), total, limit, offset };
  },
});
