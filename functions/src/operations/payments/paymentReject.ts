import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, multilineText } from '../../core/schema.ts';
import { formatAmount } from '../../domain/money.ts';
import { assertUnpaidFor, type Rejection } from '../../domain/payments/approvals.ts';
import { paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { paymentAmounts } from '../../domain/vat.ts';

export default defineOperation({
  name: 'paymentReject',
  group: 'payments',
  summary: 'Reject a payment, with a reason.',
  description: 'The payment is not canceled: it shows the reason, cannot be paid, and drops its approvals; paymentApprove can approve it later.',
  flags: { adminOnly: true },
  input: input({
    paymentId: id().describe('Payment id.'),
    reason: multilineText(500).trim().min(1).describe('Why, shown on the payment.'),
  }),
  output: paymentViewSchema,
  async run({ paymentId, reason }, ctx) {
    const { businessId, userId, email } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    const updated = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      assertUnpaidFor('reject', p.status);
      const rejection: Rejection = { by: userId, byEmail: email, at, reason };
      const changes: Partial<PaymentRecord> = { rejection, approvals: [], updatedAt: at };
      tx.update(paymentsPath(businessId, paymentId), changes);
      return { ...p, ...changes };
    });
    return paymentView(updated, viewDeps(ctx));
  },
  activity: (input, result) => ({
    params: { supplier: result.supplierName, amountAgorot: paymentAmounts(result).totalAgorot, currency: result.currency, reason: input.reason },
    targetIds: [result.id],
    summary: `rejected the payment to ${result.supplierName} (${formatAmount(paymentAmounts(result).totalAgorot, result.currency)}): ${input.reason}`,
  }),
});
