import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { businessPath, usersPath, type BusinessRecord } from '../../domain/business.ts';
import { normalizePhone } from '../../domain/contacts.ts';
import type { PaymentRecord } from '../../domain/payments/payments.ts';
import { businessNameOf, incomingPayment, incomingPaymentSchema, viewDeps } from '../../domain/payments/paymentView.ts';

/** Newest payments read per verified contact (docs/decisions.md). */
export const INCOMING_LIMIT = 200;

/** The owner's phone as stored, in E.164; null when it cannot be read as a phone. */
function e164(raw: unknown): string | null {
  if (typeof raw !== 'string' || !raw.trim()) return null;
  try {
    return normalizePhone(raw, 'phone');
  } catch {
    return null;
  }
}

export default defineOperation({
  name: 'listIncomingPayments',
  group: 'payments',
  summary: 'Payments other businesses addressed to this one',
  description:
    "Payments other businesses addressed to this business's verified contacts (the owner's sign-up email, and the owner's phone once verified), newest first, with their invoices and proofs of payment.",
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(incomingPaymentSchema), contacts: z.object({ email: z.string().nullable(), phone: z.string().nullable() }) }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const business = await ctx.store.get(businessPath(businessId));
    if (!business) throw notFound('business', 'business');
    const b = business.data as unknown as BusinessRecord;
    const owner = (await ctx.store.get(usersPath(b.ownerUserId)))?.data;
    const email = typeof owner?.email === 'string' ? owner.email.toLowerCase() : (b.ownerEmail ?? null);
    const phone = owner?.phoneVerified === true ? e164(owner.phone) : null;

    const lookups: [string, string][] = [];
    if (email) lookups.push(['supplierEmail', email]);
    if (phone) lookups.push(['supplierPhone', phone]);
    const found = await Promise.all(
      lookups.map(([field, value]) =>
        ctx.store.query({ collection: 'payments', group: true, where: [[field, '==', value]], orderBy: [['createdAtMs', 'desc']], limit: INCOMING_LIMIT }),
      ),
    );
    const byPath = new Map<string, PaymentRecord>();
    for (const doc of found.flat()) {
      const p = doc.data as unknown as PaymentRecord;
      // A business's own payments to its owner are not incoming.
      if (p.businessId !== businessId) byPath.set(doc.path, p);
    }
    const payments = [...byPath.values()].sort((x, y) => y.createdAtMs - x.createdAtMs);
    const payerIds = [...new Set(payments.map((p) => p.businessId))];
    const payers = await ctx.store.getAll(payerIds.map(businessPath));
    const names = new Map(payerIds.map((id, i) => [id, payers[i] ? businessNameOf(payers[i]!.data) : '']));
    const deps = viewDeps(ctx);
    return { items: await Promise.all(payments.map((p) => incomingPayment(p, names.get(p.businessId) ?? '', deps))), contacts: { email, phone } };
  },
});
