import { defineOperation } from '../../core/defineOperation.ts';
import { input, int } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { businessPath } from '../../domain/business.ts';
import { MAX_AMOUNT_AGOROT } from '../../domain/money.ts';
import { approvalPolicySchema, type ApprovalPolicy } from '../../domain/payments/approvals.ts';

export default defineOperation({
  name: 'approvalPolicySet',
  group: 'payments',
  summary: 'Set which payments need approval before paying.',
  description: 'null turns approvals off; 0 makes every payment need one; otherwise payments whose total (VAT included, any currency by the same integer) is at or above it. Payments whose payout changed, and public filings, always need one.',
  flags: { adminOnly: true, idempotent: true },
  input: input({
    thresholdAgorot: int().min(0).max(MAX_AMOUNT_AGOROT).nullable().describe('Agorot/cents; 0 = all, null = off.'),
    approvalsRequired: int().min(1).max(2).default(1).describe('Distinct admins needed: 1 or 2.'),
  }),
  output: approvalPolicySchema,
  async run({ thresholdAgorot, approvalsRequired }, ctx) {
    const policy: ApprovalPolicy = { thresholdAgorot, approvalsRequired: approvalsRequired === 2 ? 2 : 1 };
    const path = businessPath(ctx.caller.businessId);
    await ctx.store.runTransaction(async (tx) => {
      if (!(await tx.get(path))) throw notFound('business', 'business');
      tx.update(path, { approvalPolicy: { ...policy }, updatedAt: new Date(ctx.clock.now()).toISOString() });
    });
    return policy;
  },
  activity: (_input, result) => ({
    params: { amountAgorot: result.thresholdAgorot, currency: 'ILS', approvals: result.approvalsRequired },
    targetIds: [],
    summary: result.thresholdAgorot === null ? 'turned payment approvals off' : `payments of ${result.thresholdAgorot} agorot and above need ${result.approvalsRequired} admin approval(s)`,
  }),
});
