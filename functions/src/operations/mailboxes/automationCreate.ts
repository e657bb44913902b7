import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, text } from '../../core/schema.ts';
import { automationOutput, createMailboxAutomation } from '../../domain/automations/automations.ts';

export default defineOperation({
  name: 'automationCreate',
  group: 'mailboxes',
  summary: 'Watch a mailbox (optionally one label) and import arriving invoices',
  description:
    'Creates a mailbox_invoices automation: every few minutes the mailbox is checked and every mail that arrived since is imported like mailboxImportStart would (attachments read by AI, duplicates skipped, filed by the folder rules). ' +
    'Only mails arriving after the automation is created are imported; for older ones call mailboxImportStart. One automation per mailbox and label (already-exists otherwise). ' +
    'Pause or rename it with automationUpdate; mailboxDisconnect removes it with the mailbox.',
  flags: { openWorld: true },
  input: input({
    type: z.enum(['mailbox_invoices']).describe('mailbox_invoices: import every invoice arriving in the mailbox.'),
    config: z
      .strictObject({
        accountId: id().describe('The mailbox (mailboxListAccounts).'),
        labelId: z.string().trim().min(1).max(200).nullable().optional().describe('Only mails with this label (mailboxListLabels); null or omitted: every arriving mail.'),
        labelName: text(200).optional().describe("The label's name, shown in lists; taken from the mailbox when labelId is given."),
      })
      .describe('Which mailbox to watch.'),
    name: text(100).optional().describe('A name for the list; defaults to the mailbox address and label.'),
  }),
  output: automationOutput,
  async run({ config, name }, ctx) {
    return createMailboxAutomation(ctx, ctx.caller.businessId, { accountId: config.accountId, labelId: config.labelId ?? null, labelName: config.labelName, name });
  },
  activity: (_input, r) => ({ params: { name: r.name }, targetIds: [r.id], summary: `created automation ${r.name}`.slice(0, 200) }),
});
