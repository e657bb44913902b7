import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input, recentUnixMs } from '../../core/schema.ts';
import { withMailbox } from '../../domain/mail/mailboxes.ts';
import { importQuery, MAX_IMPORT_MAILS } from '../../domain/mail/mailImport.ts';

export default defineOperation({
  name: 'mailboxImportCount',
  group: 'mailboxes',
  summary: 'How many mails an import would look at (no mail is read)',
  description: `Counts the mails since \`since\` (optionally in one label) by listing message ids only; no message is opened. At most ${MAX_IMPORT_MAILS} are counted (truncated=true beyond).`,
  flags: { readOnly: true, idempotent: true, openWorld: true },
  input: input({
    accountId: id().describe('The mailbox (mailboxListAccounts).'),
    since: recentUnixMs().describe('Count mails received after this moment: unix time in milliseconds, from the year 2000.'),
    labelId: z.string().trim().max(200).optional().describe('Only mails with this label (mailboxListLabels); default all mail.'),
  }),
  output: z.object({ count: z.number(), truncated: z.boolean() }),
  async run({ accountId, since, labelId }, ctx) {
    const { ids, truncated } = await withMailbox(ctx, ctx.caller.businessId, accountId, (s) => s.listMessageIds({ q: importQuery(since), labelId: labelId || undefined, max: MAX_IMPORT_MAILS }));
    return { count: ids.length, truncated };
  },
});
