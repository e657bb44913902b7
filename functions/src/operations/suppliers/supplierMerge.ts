import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS } from '../../core/schema.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { mergeSuppliers } from '../../domain/payments/supplierMerge.ts';

const keyField = (what: string) => z.string().min(1).max(LIMITS.email).describe(`${what}. Its supplierKey: phone (any common form) or email.`);

export default defineOperation({
  name: 'supplierMerge',
  group: 'suppliers',
  summary: 'Merge two records of the same supplier into one (admin)',
  description:
    "Moves from's payments and invoices to into, fills into's empty card fields and rules from from's, and removes from " +
    "from suppliersList. Later payments and invoices to from's phone or email land on into. Admin only: it rewrites history. " +
    'Safe to repeat; an interrupted merge resumes where it stopped.',
  flags: { adminOnly: true, dangerous: true, idempotent: true },
  input: input({ from: keyField('Supplier that goes away'), into: keyField('Supplier that stays') }),
  output: z.object({
    from: z.string().describe('The merged key, now an alias of into.'),
    into: z.string().describe('The supplier that stays.'),
    name: z.string().describe("into's name."),
    payments: z.int().min(0).describe('Payments moved by this call.'),
    invoices: z.int().min(0).describe('Invoices moved by this call.'),
    alreadyMerged: z.boolean().describe('The merge was already done; nothing changed.'),
  }),
  async run(fields, ctx) {
    const from = normalizeSupplierKey(fields.from, 'from');
    const into = normalizeSupplierKey(fields.into, 'into');
    return mergeSuppliers(ctx.store, ctx.caller.businessId, from, into, new Date(ctx.clock.now()).toISOString());
  },
  // A repeat without an Idempotency-Key still logs a row (every committed call does), worded so it is not read as a second merge.
  activity: (_input, r) => ({
    params: { supplier: r.name, payments: r.payments, invoices: r.invoices, already: r.alreadyMerged },
    targetIds: [r.from, r.into],
    summary: r.alreadyMerged
      ? `supplier ${r.from} was already merged into ${r.into}: nothing changed`
      : `merged supplier ${r.from} into ${r.name || r.into}: ${r.payments} payments, ${r.invoices} invoices`,
  }),
});
