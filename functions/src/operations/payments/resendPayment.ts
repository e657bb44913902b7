import { z } from 'zod';
import { requireMobileForWhatsApp } from '../../domain/contacts.ts';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { assertAllowed, paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { paymentRequestMessages, businessContact, supplierLang } from '../../domain/payments/paymentMessages.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';

export default defineOperation({
  name: 'resendPayment',
  group: 'payments',
  summary: 'Send the supplier link again',
  description:
    'Send the supplier link again on one channel: wa (WhatsApp, needs supplierPhone) or em (email, needs supplierEmail). Only unpaid payments.',
  flags: { openWorld: true },
  input: input({ paymentId: id().describe('Payment id (from createPayment or paymentsList).'), channel: z.enum(['wa', 'em']).describe("wa, em or link; default the payment's channel.") }),
  output: paymentViewSchema,
  async run({ paymentId, channel }, ctx) {
    const { businessId } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    const updated = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      const business = await businessContact(tx, businessId);
      if (!business) throw notFound('business', 'business');
      const supplier = await tx.get(suppliersPath(businessId, p.supplierKey));
      assertAllowed('resend', p.status);
      if (channel === 'wa' && !p.supplierPhone) throw precondition('channel wa needs a supplierPhone; this payment has none (add one with updatePaymentSettings)', { reason: 'channelNeedsPhone' });
      if (channel === 'wa') requireMobileForWhatsApp(p.supplierPhone!, 'channel');
      if (channel === 'em' && !p.supplierEmail) throw precondition('channel em needs a supplierEmail; this payment has none (add one with updatePaymentSettings)', { reason: 'channelNeedsEmail' });
      const changes = { sentAt: at, updatedAt: at };
      tx.update(paymentsPath(businessId, paymentId), changes);
      const next: PaymentRecord = { ...p, ...changes };
      const lang = supplierLang(next, (supplier?.data as unknown as SupplierRecord | undefined) ?? null);
      for (const message of await paymentRequestMessages(ctx.config, next, business, lang, channel)) ctx.outbox(tx, message, { ref: next.id });
      return next;
    });
    return paymentView(updated, viewDeps(ctx));
  },
  activity: (input, result) => ({ params: { supplier: result.supplierName, channel: input.channel === 'wa' ? 'wa' : 'email' }, targetIds: [result.id], summary: `resent the payment link to ${result.supplierName} by ${input.channel === 'wa' ? 'WhatsApp' : 'email'}` }),
});
