import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { folderRulesPath } from '../../domain/invoices/folderRules.ts';

export default defineOperation({
  name: 'folderRuleDelete',
  group: 'folders',
  summary: 'Delete a folder rule',
  description:
    'Invoices the rule already filed stay in their folders; new invoices are no longer filed by it. An unknown rule id is not-found.',
  flags: { dangerous: true },
  input: input({ id: id().describe('Rule id (from folderRulesList).') }),
  output: z.object({ id: z.string(), deleted: z.literal(true) }),
  async run({ id: ruleId }, ctx) {
    const path = folderRulesPath(ctx.caller.businessId, ruleId);
    return ctx.store.runTransaction(async (tx) => {
      if (!(await tx.get(path))) throw notFound(`folder rule ${ruleId}`, 'rule');
      tx.delete(path);
      return { id: ruleId, deleted: true as const };
    });
  },
  activity: (_input, result) => ({ targetIds: [result.id], summary: 'deleted folder rule' }),
});
