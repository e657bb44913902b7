import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { approvalPolicyOf, approvalPolicySchema } from '../../domain/payments/approvals.ts';

export default defineOperation({
  name: 'approvalPolicyGet',
  group: 'payments',
  summary: 'Which payments need approval before paying.',
  description: 'thresholdAgorot null: off (the default); 0: every payment; otherwise payments whose total, VAT included, is at or above it. approvalsRequired: distinct admins.',
  flags: { readOnly: true, adminOnly: true },
  input: empty(),
  output: approvalPolicySchema,
  async run(_input, ctx) {
    return approvalPolicyOf(ctx.store, ctx.caller.businessId);
  },
});
