import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { loadRules, ruleOutput, ruleView } from '../../domain/invoices/folderRules.ts';

export default defineOperation({
  name: 'folderRulesList',
  group: 'folders',
  summary: 'Folder rules in priority order',
  description:
    'Folder rules in priority order: the first enabled rule that matches a document files it.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ rules: z.array(ruleOutput) }),
  async run(_input, ctx) {
    return { rules: (await loadRules(ctx.store, ctx.caller.businessId)).map(ruleView) };
  },
});
