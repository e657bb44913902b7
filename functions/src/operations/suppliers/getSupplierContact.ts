import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { supplierContact, supplierContactSchema, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { supplierDocOf } from '../../domain/payments/supplierAliases.ts';
import { z } from 'zod';

export default defineOperation({
  name: 'getSupplierContact',
  group: 'suppliers',
  summary: "A supplier's private card and what they set on their side",
  description:
    "A supplier's private card (every field a string, \"\" when unset) with kind and name, plus what the supplier entered on their side (read-only). " +
    'A key merged into another supplier (supplierMerge) answers that supplier\'s card, with merged: the key asked for.',
  flags: { readOnly: true },
  input: input({ supplierKey: z.string().min(1).max(LIMITS.email).describe("Supplier key: the supplier's phone (E.164, any common form accepted) or email.") }),
  output: supplierContactSchema,
  async run({ supplierKey }, ctx) {
    const key = normalizeSupplierKey(supplierKey);
    // An old link to a merged supplier (bookmark, email, activity) still finds the card it became.
    const doc = await supplierDocOf(ctx.store, ctx.caller.businessId, key);
    if (!doc) throw notFound(`supplier ${key}`, 'supplier');
    const card = supplierContact(doc.data as unknown as SupplierRecord);
    return card.key === key ? card : { ...card, merged: key };
  },
});
