import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { categoryLabel, categoryRuleRowSchema, payRuleRowSchema, vendorRulesPath, type VendorRuleRecord } from '../../domain/invoices/vendorRules.ts';

const byName = (a: VendorRuleRecord, b: VendorRuleRecord) => a.name.localeCompare(b.name, 'he', { sensitivity: 'base' }) || a.key.localeCompare(b.key);

export default defineOperation({
  name: 'vendorRulesList',
  group: 'invoices',
  summary: 'Pay rules and category rules per issuer',
  description:
    'The per-issuer rules: pay rules (card, not_card) and category rules, each with the issuer key and name, sorted by name.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ payRules: z.array(payRuleRowSchema), categoryRules: z.array(categoryRuleRowSchema) }),
  async run(_input, ctx) {
    const docs = await ctx.store.query({ collection: vendorRulesPath(ctx.caller.businessId) });
    const rules = docs.map((d) => d.data as unknown as VendorRuleRecord).sort(byName);
    return {
      payRules: rules.flatMap((r) => (r.payRule ? [{ key: r.key, name: r.name, rule: r.payRule, updatedAt: r.updatedAt }] : [])),
      categoryRules: rules.flatMap((r) => (r.category ? [{ key: r.key, name: r.name, category: r.category, label: categoryLabel(r.category), updatedAt: r.updatedAt }] : [])),
    };
  },
});
