import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { deleteAutomation } from '../../domain/automations/automations.ts';

export default defineOperation({
  name: 'automationDelete',
  group: 'mailboxes',
  summary: 'Delete a mailbox automation and its run history',
  description: 'Invoices it imported stay. The statements automation cannot be deleted (failed-precondition): pause it with automationUpdate instead.',
  flags: { dangerous: true },
  input: input({ id: id().describe('Automation id (automationList).') }),
  output: z.object({ id: z.string(), deleted: z.literal(true), runsRemoved: z.number() }),
  async run({ id: automationId }, ctx) {
    return deleteAutomation(ctx, ctx.caller.businessId, automationId);
  },
  activity: (input) => ({ targetIds: [input.id], summary: `deleted automation ${input.id}` }),
});
