import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { disconnectOutput, disconnectSource, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'fxwalletDisconnect',
  group: 'statements',
  summary: 'Forget a multi-currency account (Wise) connection and its accounts',
  description:
    'Forgets the stored credential of the connection this account belongs to, and every account of that connection. ' +
    'Stored statements are kept (delete them with statementDelete).',
  flags: { dangerous: true },
  input: input({ accountId: syncInput.accountId() }),
  output: disconnectOutput,
  run: ({ accountId }, ctx) => disconnectSource(ctx, 'fxwallet', accountId),
  activity: (input, result) => ({ params: { accounts: result.removedAccountIds.length }, targetIds: result.removedAccountIds, summary: `disconnected fxwallet (${result.removedAccountIds.length} accounts)` }),
});
