import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { REFILE_BATCH, refileByRule } from '../../domain/invoices/folderRules.ts';

export default defineOperation({
  name: 'folderRuleApply',
  group: 'folders',
  summary: 'File the rule-placed invoices by one rule',
  description:
    `Re-file, by all rules in priority order, the invoices this rule matches or placed before, ${REFILE_BATCH} scanned per call; ` +
    'hand-filed invoices are never moved. Call again while remaining > 0.',
  flags: {},
  input: input({ id: id().describe('Rule id (from folderRulesList).') }),
  output: z.object({ id: z.string(), refiled: z.int(), scanned: z.int(), remaining: z.int(), createdFolders: z.array(z.string()) }),
  async run({ id: ruleId }, ctx) {
    const step = await refileByRule(ctx.store, ctx.caller.businessId, ruleId, iso(ctx.clock.now()));
    return { id: ruleId, ...step };
  },
  activity: (_input, result) => ({ params: { refiled: result.refiled, remaining: result.remaining }, targetIds: [result.id, ...result.createdFolders], summary: `applied folder rule: ${result.refiled} re-filed, ${result.remaining} remaining` }),
});
