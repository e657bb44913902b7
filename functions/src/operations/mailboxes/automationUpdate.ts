import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { email, id, input, text } from '../../core/schema.ts';
import { automationOutput, updateAutomation } from '../../domain/automations/automations.ts';

export default defineOperation({
  name: 'automationUpdate',
  group: 'mailboxes',
  summary: 'Pause, resume or rename an automation; set the statements recipients',
  description:
    'Send only what changes. enabled: false pauses (a paused automation does nothing: no poll, no monthly run); a resumed mailbox automation imports mails arriving from then on. ' +
    'config applies to the statements automation (id system_statements): who gets the monthly package, whether it is mailed only when every account synced, ' +
    "and whether the mail also links the accountant's ZIP of the month.",
  flags: { idempotent: true },
  input: input({
    id: id().describe('Automation id (automationList); system_statements is the statements automation.'),
    enabled: z.boolean().optional().describe('false pauses, true resumes.'),
    name: text(100).trim().min(1).optional().describe('A new name.'),
    config: z
      .strictObject({
        recipients: z.array(email()).max(20).optional().describe('Who gets the monthly package; an empty list mails nobody.'),
        onlyWhenComplete: z.boolean().optional().describe('true: mail only when every statement account synced; false: mail what there is and list what is missing.'),
        includeAccountantZip: z
          .boolean()
          .optional()
          .describe("true: the month package mail also links the accountant's ZIP of that month (as accZip builds it for the whole accountant tree; the link works 7 days). Default false."),
      })
      .optional()
      .describe('Statements automation only.'),
  }),
  output: automationOutput,
  async run({ id: automationId, ...patch }, ctx) {
    return updateAutomation(ctx, ctx.caller.businessId, automationId, patch);
  },
  activity: (_input, r) => ({ params: { name: r.name, enabled: r.enabled }, targetIds: [r.id], summary: `updated automation ${r.name} (${r.enabled ? 'enabled' : 'paused'})`.slice(0, 200) }),
});
