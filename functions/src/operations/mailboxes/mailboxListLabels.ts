import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { withMailbox } from '../../domain/mail/mailboxes.ts';

export default defineOperation({
  name: 'mailboxListLabels',
  group: 'mailboxes',
  summary: "The mailbox's labels (to limit an import or automation to one)",
  description: 'The labels of a connected mailbox, system ones (INBOX, ...) and the user\'s own, by name.',
  flags: { readOnly: true, idempotent: true, openWorld: true },
  input: input({ accountId: id().describe('The mailbox (mailboxListAccounts).') }),
  output: z.object({ items: z.array(z.object({ id: z.string(), name: z.string(), type: z.string() })) }),
  async run({ accountId }, ctx) {
    const labels = await withMailbox(ctx, ctx.caller.businessId, accountId, (s) => s.listLabels());
    labels.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'system' ? -1 : 1));
    return { items: labels };
  },
});
