import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { emailOrEmpty, input, LIMITS, text, multilineText } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { currentSupplierKey } from '../../domain/payments/supplierAliases.ts';
import {
  CARD_FIELDS,
  normalizeCardChanges,
  SUPPLIER_BUSINESS_TYPES,
  SUPPLIER_KINDS,
  supplierContact,
  supplierContactSchema,
  suppliersPath,
  type SupplierCard,
  type SupplierRecord,
} from '../../domain/payments/suppliers.ts';

/** The card fields that say where money goes. */
const PAYOUT_CARD_FIELDS = ['bankCode', 'bankBranch', 'bankAccount', 'bankBeneficiary', 'bitPhone'] as const;

// Bank numbers allow room for the spaces and hyphens people paste; the digit rules are in the domain.
const opt = (max?: number) => text(max).optional();
const cardInput = {
  fullName: opt().describe('Contact person. "" clears.'),
  companyName: opt().describe('Company name. "" clears.'),
  companyId: opt(40).describe('Company or dealer registration number. "" clears.'),
  address: opt().describe('Street address. "" clears.'),
  addressCity: opt().describe('City. "" clears.'),
  addressZip: opt(20).describe('Postal code. "" clears.'),
  phone2: opt(40).describe('Another phone (stored E.164). "" clears.'),
  personalEmail: emailOrEmpty().optional().describe('Personal email. "" clears.'),
  companyEmail: emailOrEmpty().optional().describe('Company email. "" clears.'),
  bankCode: opt(10).describe('Bank code, 2 digits. "" clears.'),
  bankBranch: opt(10).describe('Branch number, 1-3 digits. "" clears.'),
  bankAccount: opt(20).describe('Account number, 2-9 digits. "" clears.'),
  bankBeneficiary: opt().describe('Account holder name. "" clears.'),
  bitPhone: opt(40).describe('Phone for Bit payments (stored E.164). "" clears.'),
  notes: multilineText(LIMITS.text).optional().describe('Private notes; new lines allowed. "" clears.'),
  businessType: z
    .enum(SUPPLIER_BUSINESS_TYPES)
    .optional()
    .describe('"", patur (exempt dealer: charges no VAT, so new payments to them default to noVat), murshe (licensed dealer) or company. "" clears.'),
} satisfies Record<(typeof CARD_FIELDS)[number], z.ZodOptional<z.ZodType<string>>>;

export default defineOperation({
  name: 'saveSupplierContact',
  group: 'suppliers',
  summary: "Update fields of a supplier's private card",
  description:
    "Update the fields sent of a known supplier's private card (and its kind, or its name); \"\" clears a field. Other businesses never see it. " +
    'name renames the supplier in suppliersList and getSupplierContact; payments keep the name each was created with (a new payment\'s supplierName never renames a known supplier).',
  flags: { idempotent: true },
  input: input({ supplierKey: z.string().min(1).max(LIMITS.email).describe("Supplier key: the supplier's phone (E.164, any common form accepted) or email."), kind: z.enum(SUPPLIER_KINDS).optional().describe('supplier or freelancer.'), name: text(LIMITS.shortText).trim().min(1).optional().describe("The supplier's name, as lists show it."), ...cardInput }),
  output: supplierContactSchema,
  async run(fields, ctx) {
    const asked = normalizeSupplierKey(fields.supplierKey);
    const changes = normalizeCardChanges(fields);
    return ctx.store.runTransaction(async (tx) => {
      // A merged key edits the card it became (its own is gone, or about to be, once the merge ends).
      let key = asked;
      let doc = await tx.get(suppliersPath(ctx.caller.businessId, key));
      if (!doc) {
        key = await currentSupplierKey(tx, ctx.caller.businessId, asked);
        doc = key === asked ? null : await tx.get(suppliersPath(ctx.caller.businessId, key));
      }
      if (!doc) throw notFound(`supplier ${asked}`, 'supplier');
      const path = doc.path;
      const record = doc.data as unknown as SupplierRecord;
      const card: Partial<SupplierCard> = { ...record.card };
      for (const [f, v] of Object.entries(changes) as [keyof SupplierCard, string][]) {
        if (v === '') delete card[f];
        else card[f] = v;
      }
      const kind = fields.kind ?? record.kind;
      const name = fields.name ?? record.name;
      const at = new Date(ctx.clock.now()).toISOString();
      // Whoever types payout details on the supplier's behalf may not approve payments into them (issue 36).
      const payoutTyped = PAYOUT_CARD_FIELDS.some((f) => (card[f] ?? '') !== (record.card?.[f] ?? ''));
      if (fields.kind !== undefined || fields.name !== undefined || Object.keys(changes).length > 0) {
        tx.update(path, { card, kind, name, updatedAt: at, ...(payoutTyped ? { payoutTypedBy: ctx.caller.userId, payoutTypedAt: at } : {}) });
      }
      const out = supplierContact({ ...record, card, kind, name });
      return key === asked ? out : { ...out, merged: asked };
    });
  },
  // Field names only: card values (bank details above all) stay out of the activity log.
  activity: (fields, result) => {
    const sent = Object.keys(fields).filter((k) => k !== 'supplierKey');
    return { params: { supplier: result.name }, targetIds: [result.key], summary: `updated supplier card ${result.key}: ${sent.join(', ') || 'nothing'}` };
  },
});
