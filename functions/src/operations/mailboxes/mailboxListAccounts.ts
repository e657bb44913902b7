import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { listMailboxes } from '../../domain/mail/mailboxes.ts';

export default defineOperation({
  name: 'mailboxListAccounts',
  group: 'mailboxes',
  summary: 'Connected mailboxes with their status and automation counts',
  description: 'Every connected mailbox: its address, status (connected, or needs_reconnect after the grant was revoked, with the reason) and how many automations use it.',
  flags: { readOnly: true, idempotent: true },
  input: empty(),
  output: z.object({
    items: z.array(
      z.object({
        accountId: z.string(),
        email: z.string(),
        status: z.enum(['connected', 'needs_reconnect']),
        statusReason: z.string(),
        automations: z.number(),
        connectedAt: z.string(),
      }),
    ),
  }),
  async run(_input, ctx) {
    return { items: await listMailboxes(ctx.store, ctx.caller.businessId) };
  },
});
