import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { assertAllowed, paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { assertNotInOpenRun } from '../../domain/payruns/payRuns.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';

export default defineOperation({
  name: 'cancelPayment',
  group: 'payments',
  summary: 'Cancel an unpaid payment; its supplier link then shows it canceled.',
  description:
    'Only a payment in status sent, awaiting_invoice or ready can be canceled; a paid one is refused (failed-precondition; revertPaid first). The supplier is not messaged: their payment link shows the payment as canceled and takes no more details or invoices. A canceled payment stays in paymentsList (status canceled) and cannot be reopened.',
  flags: { dangerous: true },
  input: input({ paymentId: id().describe('Payment id (from createPayment or paymentsList).') }),
  output: paymentViewSchema,
  async run({ paymentId }, ctx) {
    const { businessId } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    const updated = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      assertAllowed('cancel', p.status);
      await assertNotInOpenRun(tx, p, 'paymentId');
      const changes = { status: 'canceled', canceledAt: at, updatedAt: at } as const;
      tx.update(paymentsPath(businessId, paymentId), changes);
      return { ...p, ...changes } satisfies PaymentRecord;
    });
    return paymentView(updated, viewDeps(ctx));
  },
  activity: (_input, result) => ({ params: { supplier: result.supplierName }, targetIds: [result.id], summary: `canceled the payment to ${result.supplierName}` }),
});
