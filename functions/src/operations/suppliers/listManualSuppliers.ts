import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { supplierRow, supplierRowSchema, suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';

const byName = new Intl.Collator(['he', 'en'], { sensitivity: 'base', numeric: true });

export default defineOperation({
  name: 'listManualSuppliers',
  group: 'suppliers',
  summary: 'Hand-made suppliers with no payment yet, and freelancers',
  description:
    'Hand-created suppliers with no payment yet, and the keys of every supplier tagged freelancer.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ suppliers: z.array(supplierRowSchema), freelancerKeys: z.array(z.string()) }),
  async run(_input, ctx) {
    const collection = suppliersPath(ctx.caller.businessId);
    // Equality filters only: served by Firestore's automatic single-field indexes, no composite needed.
    const [manual, freelancers] = await Promise.all([
      ctx.store.query({ collection, where: [['manual', '==', true], ['paymentCount', '==', 0]] }),
      ctx.store.query({ collection, where: [['kind', '==', 'freelancer']] }),
    ]);
    return {
      suppliers: manual.map((d) => supplierRow(d.data as unknown as SupplierRecord)).sort((a, b) => byName.compare(a.name, b.name)),
      freelancerKeys: freelancers.map((d) => String(d.data.key)).sort(),
    };
  },
});
