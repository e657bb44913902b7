import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS, text, multilineText } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import {
  CARD_FIELDS,
  normalizeCardChanges,
  SUPPLIER_KINDS,
  supplierContact,
  supplierContactSchema,
  suppliersPath,
  type SupplierCard,
  type SupplierRecord,
} from '../../domain/suppliers.ts';

// Bank numbers allow room for the spaces and hyphens people paste; the digit rules are in the domain.
const opt = (max?: number) => text(max).optional();
const cardInput = {
  fullName: opt(),
  companyName: opt(),
  companyId: opt(40),
  address: opt(),
  addressCity: opt(),
  addressZip: opt(20),
  phone2: opt(40),
  personalEmail: opt(LIMITS.email),
  companyEmail: opt(LIMITS.email),
  bankCode: opt(10),
  bankBranch: opt(10),
  bankAccount: opt(20),
  bankBeneficiary: opt(),
  bitPhone: opt(40),
  notes: multilineText(LIMITS.text).optional(),
} satisfies Record<(typeof CARD_FIELDS)[number], z.ZodOptional<z.ZodString>>;

export default defineOperation({
  name: 'saveSupplierContact',
  group: 'suppliers',
  summary: "Update the fields sent of a known supplier's private card (and its kind); \"\" clears a field. Other businesses never see it.",
  flags: { idempotent: true },
  input: input({ supplierKey: z.string().min(1).max(LIMITS.email), kind: z.enum(SUPPLIER_KINDS).optional(), ...cardInput }),
  output: supplierContactSchema,
  async run(fields, ctx) {
    const key = normalizeSupplierKey(fields.supplierKey);
    const changes = normalizeCardChanges(fields);
    const path = suppliersPath(ctx.caller.businessId, key);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`supplier ${key}`);
      const record = doc.data as unknown as SupplierRecord;
      const card: Partial<SupplierCard> = { ...record.card };
      for (const [f, v] of Object.entries(changes) as [keyof SupplierCard, string][]) {
        if (v === '') delete card[f];
        else card[f] = v;
      }
      const kind = fields.kind ?? record.kind;
      if (fields.kind !== undefined || Object.keys(changes).length > 0) {
        tx.update(path, { card, kind, updatedAt: new Date(ctx.clock.now()).toISOString() });
      }
      return supplierContact({ ...record, card, kind });
    });
  },
  // Field names only: card values (bank details above all) stay out of the activity log.
  activity: (fields, result) => {
    const sent = Object.keys(fields).filter((k) => k !== 'supplierKey');
    return { targetIds: [result.key], summary: `updated supplier card ${result.key}: ${sent.join(', ') || 'nothing'}` };
  },
});
