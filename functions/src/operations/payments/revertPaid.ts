import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { outboxPath, type OutboxRecord } from '../../core/outbox.ts';
import { businessContact, supplierLang } from '../../domain/payments/paymentMessages.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { paymentPaidCorrectionEmail } from '../../emails/messages.ts';
import { assertAllowed, paymentLinkUrl, paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { syncPaymentMarks } from '../../domain/invoices/supplierInvoices.ts';

export default defineOperation({
  name: 'revertPaid',
  group: 'payments',
  summary: 'Undo markPaid: back to sent, awaiting_invoice or ready',
  description:
    'Undo markPaid: a paid payment goes back to the status asked for (sent, awaiting_invoice or ready); its proof of payment is removed, and a supplier emailed that it was paid gets a correction.',
  flags: { openWorld: true },
  input: input({ paymentId: id().describe('Payment id (from createPayment or paymentsList).'), status: z.enum(['sent', 'awaiting_invoice', 'ready']).describe('Status to go back to: sent, or awaiting_invoice/ready when payout details were given.') }),
  output: paymentViewSchema,
  async run({ paymentId, status }, ctx) {
    const { businessId } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    const { before, after } = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      assertAllowed('revertPaid', p.status);
      // ready and awaiting_invoice mean "the supplier gave payout details"; without them the link page would hide its form.
      if (status !== 'sent' && !p.payout) throw precondition(`status: cannot revert to ${status}; the supplier never gave payout details, so revert to sent`, { reason: 'revertNeedsSent' });
      // The paid notices of the payment being undone that reached the supplier or are on their way.
      const since = p.paidAt ? Date.parse(p.paidAt) : 0;
      const notices = (await tx.query({ collection: `businesses/${businessId}/outbox`, where: [['ref', '==', paymentId]] }))
        .map((d) => d.data as unknown as OutboxRecord)
        .filter((r) => r.reason === 'markPaid' && r.channel === 'email' && (r.status === 'delivered' || r.status === 'pending') && r.createdAtMs >= since);
      // One correction per undone payment: a retried revertPaid finds it staged (a later pay-and-undo has another paidAt).
      const correctionId = `paidFix_${paymentId}_${createHash('sha256').update(p.paidAt ?? '').digest('hex').slice(0, 16)}`;
      const staged = notices.length ? await tx.get(outboxPath(businessId, correctionId)) : null;
      const business = notices.length && !staged ? await businessContact(tx, businessId) : null;
      if (notices.length && !staged && !business) throw notFound('business', 'business');
      const supplier = business ? await tx.get(suppliersPath(businessId, p.supplierKey)) : null;
      const changes = { status, paidAt: null, proof: null, updatedAt: at, ...(status === 'ready' && !p.readyAt ? { readyAt: at } : {}) };
      await syncPaymentMarks(tx, businessId, { ...p, ...changes }, at);
      tx.update(paymentsPath(businessId, paymentId), changes);
      if (business) {
        // Email only: there is no approved WhatsApp template for a correction (docs/decisions.md).
        const lang = supplierLang(p, (supplier?.data as unknown as SupplierRecord | undefined) ?? null);
        const email = await paymentPaidCorrectionEmail(ctx.config, business, p, notices[0].to, paymentLinkUrl(ctx.config.publicLinkBase, p.linkToken), lang);
        ctx.outbox(tx, email, { ref: paymentId, id: correctionId });
      }
      return { before: p, after: { ...p, ...changes } satisfies PaymentRecord };
    });
    // The proof belonged to the undone payment; its link dies with it. Best effort after the commit.
    if (before.proof) {
      await ctx.files.remove(businessId, before.proof.fileId).catch((e) => ctx.logger.warn('could not remove a reverted proof file', { paymentId, error: String(e) }));
    }
    return paymentView(after, viewDeps(ctx));
  },
  activity: (input, result) => ({ params: { supplier: result.supplierName, status: input.status }, targetIds: [result.id], summary: `reverted the payment to ${result.supplierName} from paid to ${input.status}` }),
});
