import { defineOperation } from '../../core/defineOperation.ts';
import { input, text } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { changeRule, checkCategory, checkVendorKey, ruleResultSchema, vendorRulesPath, VENDOR_KEY_MAX, type VendorRuleRecord } from '../../domain/invoices/vendorRules.ts';
import { applyCategoryRule } from '../../domain/invoices/invoiceDocs.ts';

export default defineOperation({
  name: 'vendorCategoryRuleSet',
  group: 'invoices',
  summary: "Set or forget an issuer's category rule",
  description:
    'Set the category rule of an issuer (key: vat:, email:, phone: or name: vendorKey; category: an id from categoriesList), or forget it with "". ' +
    'The issuer\'s invoices not categorized by hand take the rule now; forgetting it leaves them for categorySync.',
  flags: { idempotent: true },
  input: input({ key: text(VENDOR_KEY_MAX).describe('Issuer key (vendorKey from invoicesList or invoiceGet): prefixed vat:, email:, phone: or name:.'), category: text(64).describe('Category id (categoriesList), or "" to forget the rule.'), name: text().optional().describe('Issuer name to show with the rule.') }),
  output: ruleResultSchema,
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const key = checkVendorKey(input.key);
    const category = checkCategory(input.category);
    const at = iso(ctx.clock.now());
    const rule = await ctx.store.runTransaction(async (tx) => {
      const cur = await tx.get(vendorRulesPath(businessId, key));
      const next = changeRule((cur?.data as unknown as VendorRuleRecord) ?? null, key, { category, name: input.name }, at);
      if (next) tx.set(vendorRulesPath(businessId, key), { ...next });
      else if (cur) tx.delete(cur.path);
      return next ?? { key, name: input.name?.trim() || ((cur?.data.name as string) ?? key.replace(/^\w+:/, '')), payRule: '' as const, category: '', updatedAt: at };
    });
    const step = await applyCategoryRule(ctx.store, businessId, key, category, at);
    return { key, name: rule.name, payRule: rule.payRule, category: rule.category, ...step };
  },
  activity: (input, result) => ({
    params: { category: result.category ?? null, count: result.updated },
    targetIds: [result.key],
    summary: `${result.category ? `category rule ${result.category}` : 'forgot the category rule'} for ${result.key}; ${result.updated} invoice(s) updated`,
  }),
});
