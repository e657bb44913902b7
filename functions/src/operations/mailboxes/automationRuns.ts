import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { listRuns, runOutput } from '../../domain/automations/automations.ts';

export default defineOperation({
  name: 'automationRuns',
  group: 'mailboxes',
  summary: "An automation's last 30 runs, newest first",
  description:
    'Each run: when it started and finished, its status and summary; a statements run lists every account with its outcome and whom the package was mailed to; ' +
    'a mailbox poll names the import its new mails went to, with that import\'s progress. Older runs are pruned.',
  flags: { readOnly: true, idempotent: true },
  input: input({ id: id().describe('Automation id (automationList).') }),
  output: z.object({ items: z.array(runOutput) }),
  async run({ id: automationId }, ctx) {
    return { items: await listRuns(ctx, ctx.caller.businessId, automationId) };
  },
});
