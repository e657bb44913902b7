import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { listAccounts, listAccountsOutput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'cardprocListAccounts',
  group: 'statements',
  summary: 'The connected card processor (Stripe) accounts and their status',
  description: 'Each connected card processor (Stripe) account with its status: connected, or needs_reconnect (with the reason) when the provider refused the stored credential.',
  flags: { readOnly: true },
  input: empty(),
  output: listAccountsOutput,
  run: (_input, ctx) => listAccounts(ctx, 'cardproc'),
});
