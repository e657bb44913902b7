import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { precondition } from '../../core/errors.ts';
import { assertAllowed, paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { syncPaymentMarks } from '../../domain/invoices/supplierInvoices.ts';

export default defineOperation({
  name: 'revertPaid',
  group: 'payments',
  summary: 'Undo markPaid: back to sent, awaiting_invoice or ready',
  description:
    'Undo markPaid: a paid payment goes back to the status asked for (sent, awaiting_invoice or ready); its proof of payment is removed.',
  flags: {},
  input: input({ paymentId: id().describe('Payment id (from createPayment or paymentsList).'), status: z.enum(['sent', 'awaiting_invoice', 'ready']).describe('Status to go back to: sent, or awaiting_invoice/ready when payout details were given.') }),
  output: paymentViewSchema,
  async run({ paymentId, status }, ctx) {
    const { businessId } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    const { before, after } = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      assertAllowed('revertPaid', p.status);
      // ready and awaiting_invoice mean "the supplier gave payout details"; without them the link page would hide its form.
      if (status !== 'sent' && !p.payout) throw precondition(`status: cannot revert to ${status}; the supplier never gave payout details, so revert to sent`);
      const changes = { status, paidAt: null, proof: null, updatedAt: at, ...(status === 'ready' && !p.readyAt ? { readyAt: at } : {}) };
      await syncPaymentMarks(tx, businessId, { ...p, ...changes }, at);
      tx.update(paymentsPath(businessId, paymentId), changes);
      return { before: p, after: { ...p, ...changes } satisfies PaymentRecord };
    });
    // The proof belonged to the undone payment; its link dies with it. Best effort after the commit.
    if (before.proof) {
      await ctx.files.remove(businessId, before.proof.fileId).catch((e) => ctx.logger.warn('could not remove a reverted proof file', { paymentId, error: String(e) }));
    }
    return paymentView(after, viewDeps(ctx));
  },
  activity: (input, result) => ({ targetIds: [result.id], summary: `reverted the payment to ${result.supplierName} from paid to ${input.status}` }),
});
