import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, text } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { applyPayRule, changeRule, checkVendorKey, ruleResultSchema, vendorRulesPath, VENDOR_KEY_MAX, type VendorRuleRecord } from '../../domain/invoices/vendorRules.ts';
import { PAY_RULES } from '../../domain/invoices/payMarks.ts';

export default defineOperation({
  name: 'vendorPayRuleSet',
  group: 'invoices',
  summary: "Set or forget an issuer's pay rule",
  description:
    'Set the pay rule of an issuer (key: vat:, email:, phone: or name: vendorKey): card marks its invoices paid by card, not_card lets the AI ' +
    'pick a non-card mark (else unpaid); "" forgets the rule. Explicit pay marks still win. The issuer\'s existing invoices are updated.',
  flags: { idempotent: true },
  input: input({ key: text(VENDOR_KEY_MAX).describe('Issuer key (vendorKey from invoicesList or invoiceGet): prefixed vat:, email:, phone: or name:.'), rule: z.enum(['', ...PAY_RULES]).describe('card, not_card, or "" to forget the rule.'), name: text().optional().describe('Issuer name to show with the rule.') }),
  output: ruleResultSchema,
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const key = checkVendorKey(input.key);
    const at = iso(ctx.clock.now());
    const rule = await ctx.store.runTransaction(async (tx) => {
      const cur = await tx.get(vendorRulesPath(businessId, key));
      const next = changeRule((cur?.data as unknown as VendorRuleRecord) ?? null, key, { payRule: input.rule, name: input.name }, at);
      if (next) tx.set(vendorRulesPath(businessId, key), { ...next });
      else if (cur) tx.delete(cur.path);
      return next ?? { key, name: input.name?.trim() || ((cur?.data.name as string) ?? key.replace(/^\w+:/, '')), payRule: '' as const, category: '', updatedAt: at };
    });
    const step = await applyPayRule(ctx.store, businessId, key, input.rule, at);
    return { key, name: rule.name, payRule: rule.payRule, category: rule.category, ...step };
  },
  activity: (input, result) => ({
    params: { rule: input.rule ?? null, count: result.updated },
    targetIds: [result.key],
    summary: `${input.rule ? `pay rule ${input.rule}` : 'forgot the pay rule'} for ${result.key}; ${result.updated} invoice(s) updated`,
  }),
});
