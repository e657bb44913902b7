import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, text } from '../../core/schema.ts';
import { supplierRow, supplierRowSchema, suppliersPath } from '../../domain/payments/suppliers.ts';
import type { MergedSupplier } from '../../domain/payments/supplierMerge.ts';
import { exactSupplier, supplierMatches } from '../../domain/payments/supplierSearch.ts';

// Hebrew and Latin names side by side, case-insensitive; Firestore's byte order would put "Zeta" before "alpha".
const byName = new Intl.Collator(['he', 'en'], { sensitivity: 'base', numeric: true });

export default defineOperation({
  name: 'suppliersList',
  group: 'suppliers',
  summary: 'Suppliers and freelancers, from payments and by hand',
  description:
    'All suppliers and freelancers, derived from payments plus hand-created ones, sorted by name. ' +
    'q keeps those whose name words start with its words, or whose email or phone (or a merged one\'s) holds it; ' +
    'exact is the key of the supplier q is the phone or email of.',
  flags: { readOnly: true },
  input: input({ q: text(120).optional().describe('Name, phone or email to find. Name words match at their beginnings, a phone as typed, an email in part.') }),
  output: z.object({
    items: z.array(supplierRowSchema),
    total: z.int().min(0),
    exact: z.string().nullable().optional().describe('With q: the key of the supplier whose phone or email q is, else null.'),
  }),
  async run({ q }, ctx) {
    const docs = await ctx.store.query({ collection: suppliersPath(ctx.caller.businessId) });
    const records = docs.map((d) => d.data as unknown as MergedSupplier);
    const query = q?.trim();
    const items = (query ? records.filter((r) => supplierMatches(r, query)) : records)
      .map((r) => supplierRow(r))
      .sort((a, b) => byName.compare(a.name, b.name) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return query ? { items, total: items.length, exact: exactSupplier(records, query) } : { items, total: items.length };
  },
});
