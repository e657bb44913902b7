import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { automationOutput, listAutomations } from '../../domain/automations/automations.ts';

export default defineOperation({
  name: 'automationList',
  group: 'mailboxes',
  summary: 'Automations: the statements automation and mailbox automations',
  description:
    'The system statements automation first (every business has it: on the 2nd of each month, Israel time, it pulls the closed month for every statement account and mails the package to its recipients), ' +
    'then the mailbox automations, each with its last run. automationRuns lists up to 30 runs of one.',
  flags: { readOnly: true, idempotent: true },
  input: empty(),
  output: z.object({ items: z.array(automationOutput) }),
  async run(_input, ctx) {
    return { items: await listAutomations(ctx, ctx.caller.businessId) };
  },
});
