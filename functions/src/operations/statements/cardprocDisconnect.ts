import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { disconnectOutput, disconnectSource, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'cardprocDisconnect',
  group: 'statements',
  summary: 'Forget a card processor (Stripe) connection and its accounts',
  description:
    'Forgets the stored credential of the connection this account belongs to, and every account of that connection. ' +
    'Stored statements are kept (delete them with statementDelete).',
  flags: { dangerous: true },
  input: input({ accountId: syncInput.accountId() }),
  output: disconnectOutput,
  run: ({ accountId }, ctx) => disconnectSource(ctx, 'cardproc', accountId),
  activity: (input, result) => ({ params: { accounts: result.removedAccountIds.length }, targetIds: result.removedAccountIds, summary: `disconnected cardproc (${result.removedAccountIds.length} accounts)` }),
});
