import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { disconnectOutput, disconnectSource, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'marketDisconnect',
  group: 'statements',
  summary: 'Forget the freelance marketplace (Upwork) connection and its organizations',
  description:
    'Forgets the stored Upwork tokens of the connection this account belongs to, and every organization of that connection. ' +
    'Stored statements and their transactions are kept (delete them with statementDelete).',
  flags: { dangerous: true },
  input: input({ accountId: syncInput.accountId() }),
  output: disconnectOutput,
  run: ({ accountId }, ctx) => disconnectSource(ctx, 'market', accountId),
  activity: (_input, result) => ({ params: { accounts: result.removedAccountIds.length }, targetIds: result.removedAccountIds, summary: `disconnected market (${result.removedAccountIds.length} accounts)` }),
});
