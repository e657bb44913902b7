import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { listAccounts, listAccountsOutput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'gatewayListAccounts',
  group: 'statements',
  summary: 'The connected payment gateway (Cardcom) merchants and their status',
  description: 'Each connected payment gateway (Cardcom) merchant with its status: connected, or needs_reconnect (with the reason) when Cardcom refused the stored API user.',
  flags: { readOnly: true },
  input: empty(),
  output: listAccountsOutput,
  run: (_input, ctx) => listAccounts(ctx, 'gateway'),
});
