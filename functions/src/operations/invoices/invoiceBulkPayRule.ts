import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invoicesPath } from '../../domain/invoices/invoices.ts';
import { BULK_MAX, issuersOf, readAll } from '../../domain/invoices/invoiceDocs.ts';
import { bulkPayMark, PAY_RULES } from '../../domain/invoices/payMarks.ts';
import { applyPayRule, changeRule, RULE_BUDGET, vendorRulesPath, type VendorRuleRecord } from '../../domain/invoices/vendorRules.ts';

export default defineOperation({
  name: 'invoiceBulkPayRule',
  group: 'invoices',
  summary: 'Mark many invoices paid by card or not, optionally as a rule',
  description:
    'Mark invoices by pay rule: card marks them paid_card; not_card replaces a card mark by the AI\'s non-card mark (else unpaid). ' +
    'With remember=true the rule is also saved for each distinct issuer, and applies to their other invoices and future ones.',
  flags: { idempotent: true },
  input: input({ docIds: z.array(id()).min(1).max(BULK_MAX).describe('Invoice document ids (from invoicesList).'), rule: z.enum(PAY_RULES).describe('card: paid by card; not_card: paid otherwise.'), remember: bool().describe('true also saves it as the rule for each distinct issuer of these invoices.') }),
  output: z.object({
    updated: z.int(),
    /** Issuer keys whose pay rule was saved (remember=true); unread documents have no issuer. */
    rules: z.array(z.string()),
    /** Other invoices of those issuers brought in line, and those a repeated call would still reach. */
    propagated: z.object({ updated: z.int(), remaining: z.int() }),
  }),
  async run({ docIds, rule, remember }, ctx) {
    const { businessId } = ctx.caller;
    const ids = [...new Set(docIds)];
    const at = iso(ctx.clock.now());
    const keys = await ctx.store.runTransaction(async (tx) => {
      const docs = await readAll(tx, businessId, ids);
      const issuers = remember ? issuersOf(docs) : new Map<string, string>();
      const current = await tx.getAll([...issuers.keys()].map((k) => vendorRulesPath(businessId, k)));
      [...issuers].forEach(([key, name], i) => {
        const next = changeRule((current[i]?.data as unknown as VendorRuleRecord) ?? null, key, { payRule: rule, name: current[i] ? undefined : name }, at);
        tx.set(vendorRulesPath(businessId, key), { ...next! });
      });
      for (const d of docs) {
        const mark = bulkPayMark(rule, d.effectivePayMark ?? 'unpaid', d.reading?.payMethod);
        tx.update(invoicesPath(businessId, d.docId), {
          payMark: mark,
          effectivePayMark: mark,
          ...(d.vendorKey && issuers.has(d.vendorKey) ? { payRule: rule } : {}),
          updatedAt: at,
        });
      }
      return [...issuers.keys()];
    });
    const propagated = { updated: 0, remaining: 0 };
    for (const key of keys) {
      const step = await applyPayRule(ctx.store, businessId, key, rule, at, Math.max(0, RULE_BUDGET - propagated.updated));
      propagated.updated += step.updated;
      propagated.remaining += step.remaining;
    }
    return { updated: ids.length, rules: keys, propagated };
  },
  activity: (input, result) => ({
    params: { rule: input.rule, count: result.updated, remembered: result.rules.length },
    targetIds: [...new Set(input.docIds)],
    summary: `pay rule ${input.rule} on ${result.updated} invoice(s)${result.rules.length ? `; remembered for ${result.rules.length} issuer(s)` : ''}`,
  }),
});
