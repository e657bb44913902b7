import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { emailText, input, LIMITS, text } from '../../core/schema.ts';
import { ApiError, invalid } from '../../core/errors.ts';
import { normalizeEmail, normalizePhone, supplierKeyOf } from '../../domain/contacts.ts';
import { SUPPLIER_KINDS, supplierRow, supplierRowSchema, suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';

export default defineOperation({
  name: 'createSupplier',
  group: 'suppliers',
  summary: 'Add a supplier or freelancer by hand',
  description:
    'Create a supplier or freelancer by hand. A phone or an email is required; the phone (else the email) becomes its supplierKey.',
  flags: {},
  input: input({
    name: text(LIMITS.shortText).trim().min(1).describe('Supplier or freelancer name.'),
    phone: text(40).optional().describe('Phone (Israeli forms or E.164); with email, at least one is required. The phone becomes the supplierKey.'),
    email: emailText().optional().describe('Email; the supplierKey when there is no phone.'),
    kind: z.enum(SUPPLIER_KINDS).default('supplier').describe('supplier (default) or freelancer.'),
  }),
  output: supplierRowSchema,
  async run({ name, phone: rawPhone, email: rawEmail, kind }, ctx) {
    const phone = rawPhone?.trim() ? normalizePhone(rawPhone, 'phone') : null;
    const email = rawEmail?.trim() ? normalizeEmail(rawEmail, 'email') : null;
    if (!phone && !email) throw invalid('phone', 'a phone or an email is required', { reason: 'supplierContactRequired' });
    const key = supplierKeyOf({ phone, email });
    const path = suppliersPath(ctx.caller.businessId, key);
    const at = new Date(ctx.clock.now()).toISOString();
    return ctx.store.runTransaction(async (tx) => {
      const existing = await tx.get(path);
      if (existing) throw new ApiError('already-exists', `supplierKey: a supplier with key ${key} already exists (${String(existing.data.name ?? '')})`, { reason: 'supplierExists', params: { key } });
      const record: SupplierRecord = {
        key, name, phone, email, kind,
        manual: true,
        paymentCount: 0,
        lastPaymentAt: null,
        card: {},
        supplierSide: null,
        createdAt: at,
        updatedAt: at,
      };
      tx.create(path, { ...record });
      return supplierRow(record);
    });
  },
  activity: (_input, result) => ({ params: { name: result.name, type: result.kind }, targetIds: [result.key], summary: `created ${result.kind} ${result.name}` }),
});
