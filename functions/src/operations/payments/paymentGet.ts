import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';

export default defineOperation({
  name: 'paymentGet',
  group: 'payments',
  summary: 'One payment with its files, payout details and messages',
  description:
    "One payment with the supplier's payout details, its invoices and proof of payment with download URLs, the ITA verdict, timestamps and the supplier link.",
  flags: { readOnly: true },
  input: input({ paymentId: id().describe('Payment id (from createPayment or paymentsList).') }),
  output: paymentViewSchema,
  async run({ paymentId }, ctx) {
    return paymentView(await getPayment(ctx.store, ctx.caller.businessId, paymentId), viewDeps(ctx));
  },
});
