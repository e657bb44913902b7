import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { supplierRow, supplierRowSchema, suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';

// Hebrew and Latin names side by side, case-insensitive; Firestore's byte order would put "Zeta" before "alpha".
const byName = new Intl.Collator(['he', 'en'], { sensitivity: 'base', numeric: true });

export default defineOperation({
  name: 'suppliersList',
  group: 'suppliers',
  summary: 'Suppliers and freelancers, from payments and by hand',
  description:
    'All suppliers and freelancers, derived from payments plus hand-created ones, sorted by name.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(supplierRowSchema), total: z.int().min(0) }),
  async run(_input, ctx) {
    const docs = await ctx.store.query({ collection: suppliersPath(ctx.caller.businessId) });
    const items = docs
      .map((d) => supplierRow(d.data as unknown as SupplierRecord))
      .sort((a, b) => byName.compare(a.name, b.name) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { items, total: items.length };
  },
});
