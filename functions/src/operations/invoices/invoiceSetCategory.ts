import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, id, input, text } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invoicesPath } from '../../domain/invoices/invoices.ts';
import { changeRule, checkCategory, RULE_BUDGET, vendorRulesPath, type VendorRuleRecord } from '../../domain/invoices/vendorRules.ts';
import { applyCategoryRule, BULK_MAX, issuersOf, placementOf, planRefile, readAll, writeBuiltIns } from '../../domain/invoices/invoiceDocs.ts';

export default defineOperation({
  name: 'invoiceSetCategory',
  group: 'invoices',
  summary: 'Set the expense category of invoices, optionally as a rule',
  description:
    'Set the category of invoices by hand (an id from categoriesList, or "" for uncategorized). With remember=true it becomes the category ' +
    'rule of each distinct issuer ("" forgets it), applied to their other invoices not categorized by hand and to future ones.',
  flags: { idempotent: true },
  input: input({ docIds: z.array(id()).min(1).max(BULK_MAX).describe('Invoice document ids (from invoicesList).'), category: text(64).describe('Expense category id (categoriesList), or "" for uncategorized.'), remember: bool().describe('true also saves it as the rule for each distinct issuer of these invoices.') }),
  output: z.object({
    updated: z.int(),
    rules: z.array(z.string()),
    propagated: z.object({ updated: z.int(), remaining: z.int() }),
  }),
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    const category = checkCategory(input.category);
    const ids = [...new Set(input.docIds)];
    const at = iso(ctx.clock.now());
    const keys = await ctx.store.runTransaction(async (tx) => {
      const docs = await readAll(tx, businessId, ids);
      const issuers = input.remember ? issuersOf(docs) : new Map<string, string>();
      const current = await tx.getAll([...issuers.keys()].map((k) => vendorRulesPath(businessId, k)));
      const fields = { category, categoryBy: 'hand' as const, categoryNeedsAi: false };
      // Folder rules can test the category.
      const plan = await planRefile(tx, businessId, docs.map((d) => ({ ...d, ...fields })), at);
      writeBuiltIns(tx, businessId, plan);
      [...issuers].forEach(([key, name], i) => {
        const next = changeRule((current[i]?.data as unknown as VendorRuleRecord) ?? null, key, { category, name: current[i] ? undefined : name }, at);
        if (next) tx.set(vendorRulesPath(businessId, key), { ...next });
        else if (current[i]) tx.delete(current[i]!.path);
      });
      for (const d of docs) tx.update(invoicesPath(businessId, d.docId), { ...fields, ...placementOf(plan, d.docId), updatedAt: at });
      return [...issuers.keys()];
    });
    const propagated = { updated: 0, remaining: 0 };
    for (const key of keys) {
      const step = await applyCategoryRule(ctx.store, businessId, key, category, at, Math.max(0, RULE_BUDGET - propagated.updated));
      propagated.updated += step.updated;
      propagated.remaining += step.remaining;
    }
    return { updated: ids.length, rules: keys, propagated };
  },
  activity: (input, result) => ({
    params: { category: input.category || null, count: result.updated, remembered: result.rules.length },
    targetIds: [...new Set(input.docIds)],
    summary: `category ${input.category || '(none)'} on ${result.updated} invoice(s) by hand${result.rules.length ? `; remembered for ${result.rules.length} issuer(s)` : ''}`,
  }),
});
