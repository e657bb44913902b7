import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, LIMITS, multilineText } from '../../core/schema.ts';
import { formatAmount } from '../../domain/money.ts';
import { approvalBasis, approvalPolicyOf, assertMayApprove, assertUnpaidFor, staleReasons, type ApprovalMark } from '../../domain/payments/approvals.ts';
import { paymentsPath, statusAfterSubmission, type PaymentRecord } from '../../domain/payments/payments.ts';
import { getPayment, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { paymentAmounts } from '../../domain/vat.ts';

export default defineOperation({
  name: 'paymentApprove',
  group: 'payments',
  summary: 'Approve a payment as it is now.',
  description:
    'The approval holds for the amount, currency, VAT, payout and supplier as they are now; a change after it makes the payment pending again. ' +
    'With a policy set, refused (permission-denied) to the admin who created the payment or typed the payout details it pays into. Clears a rejection; approving a public filing ends its review. Repeating it changes nothing.',
  flags: { adminOnly: true },
  input: input({
    paymentId: id().describe('Payment id.'),
    note: multilineText(LIMITS.shortText).trim().optional().describe('Why, for the record.'),
  }),
  output: paymentViewSchema,
  async run({ paymentId, note }, ctx) {
    const { businessId, userId, email } = ctx.caller;
    const at = new Date(ctx.clock.now()).toISOString();
    const updated = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      const supplier = (await tx.get(suppliersPath(businessId, p.supplierKey)))?.data as unknown as SupplierRecord | undefined;
      assertUnpaidFor('approve', p.status);
      assertMayApprove(p, supplier ?? null, userId, await approvalPolicyOf(tx, businessId));
      const basis = approvalBasis(p);
      const counting = (p.approvals ?? []).filter((m) => staleReasons(m.basis, basis).length === 0);
      // The same admin approving the same facts again: nothing changes.
      if (!p.rejection && !p.needsReview && counting.some((m) => m.by === userId)) return p;
      const mark: ApprovalMark = { by: userId, byEmail: email, at, ...(note ? { note } : {}), basis };
      const changes: Partial<PaymentRecord> = {
        approvals: [...counting.filter((m) => m.by !== userId), mark],
        rejection: null,
        updatedAt: at,
      };
      if (p.needsReview) {
        // The review ends: the filing takes the status it would have had had the business opted in to ready filings.
        changes.needsReview = false;
        if (p.status === 'sent' && p.payout) {
          changes.status = statusAfterSubmission(p);
          if (changes.status === 'ready') changes.readyAt = at;
        }
      }
      tx.update(paymentsPath(businessId, paymentId), changes);
      return { ...p, ...changes };
    });
    return paymentView(updated, viewDeps(ctx));
  },
  activity: (input, result) => ({
    params: { supplier: result.supplierName, amountAgorot: paymentAmounts(result).totalAgorot, currency: result.currency, state: result.approval.state },
    targetIds: [result.id],
    summary: `approved the payment to ${result.supplierName} (${formatAmount(paymentAmounts(result).totalAgorot, result.currency)})${input.note ? `: ${input.note}` : ''}`,
  }),
});
