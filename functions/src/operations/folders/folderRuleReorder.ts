import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invalid } from '../../core/errors.ts';
import { folderRulesPath, loadRules, MAX_RULES, ruleOutput, ruleView } from '../../domain/invoices/folderRules.ts';

export default defineOperation({
  name: 'folderRuleReorder',
  group: 'folders',
  summary: 'Set the priority order of the folder rules',
  description:
    'Set the priority of every folder rule: ids lists all rule ids exactly once, the first is tried first.',
  flags: { idempotent: true },
  input: input({ ids: z.array(z.string().min(1).max(128)).max(MAX_RULES).describe('Every rule id, in the new priority order (first = highest).') }),
  output: z.object({ rules: z.array(ruleOutput) }),
  async run({ ids }, ctx) {
    const { businessId } = ctx.caller;
    const now = iso(ctx.clock.now());
    return ctx.store.runTransaction(async (tx) => {
      const rules = await loadRules(tx, businessId);
      const known = new Set(rules.map((r) => r.id));
      const seen = new Set<string>();
      for (const id of ids) {
        if (seen.has(id)) throw invalid('ids', `${id} is listed more than once`, { reason: 'listedTwice', params: { value: id } });
        if (!known.has(id)) throw invalid('ids', `${id} is not a folder rule of this business`, { reason: 'notFoundWhat', params: { what: 'rule' } });
        seen.add(id);
      }
      const missing = rules.filter((r) => !seen.has(r.id)).map((r) => r.id);
      if (missing.length) throw invalid('ids', `every rule id must be listed exactly once; missing ${missing.join(', ')}`, { reason: 'notAllListed', params: { missing } });
      const byId = new Map(rules.map((r) => [r.id, r]));
      const ordered = ids.map((id, order) => ({ ...byId.get(id)!, order }));
      for (const r of ordered) if (byId.get(r.id)!.order !== r.order) tx.update(folderRulesPath(businessId, r.id), { order: r.order, updatedAt: now });
      return { rules: ordered.map((r) => (byId.get(r.id)!.order !== r.order ? { ...r, updatedAt: now } : r)).map(ruleView) };
    });
  },
  activity: (input) => ({ params: { count: input.ids.length }, targetIds: input.ids, summary: `reordered ${input.ids.length} folder rule(s)` }),
});
