import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { disconnectMailbox } from '../../domain/mail/mailboxes.ts';

export default defineOperation({
  name: 'mailboxDisconnect',
  group: 'mailboxes',
  summary: 'Remove a mailbox, its stored tokens and the automations using it',
  description: 'Removes the connected mailbox with its sealed token, and every automation built on it. Invoices already imported stay.',
  flags: { dangerous: true },
  input: input({ accountId: id().describe('The mailbox (mailboxListAccounts).') }),
  output: z.object({ accountId: z.string(), removed: z.literal(true), automationsRemoved: z.number() }),
  async run({ accountId }, ctx) {
    const r = await disconnectMailbox(ctx.store, ctx.caller.businessId, accountId);
    return { accountId, removed: true as const, automationsRemoved: r.automationsRemoved };
  },
  activity: (input, result) => ({ params: { automations: result.automationsRemoved }, targetIds: [input.accountId], summary: `disconnected a mailbox and ${result.automationsRemoved} automation(s)` }),
});
