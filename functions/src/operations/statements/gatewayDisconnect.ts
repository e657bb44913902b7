import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { disconnectOutput, disconnectSource, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'gatewayDisconnect',
  group: 'statements',
  summary: 'Forget a payment gateway (Cardcom) connection and its merchants',
  description:
    'Forgets the stored API user of the connection this merchant belongs to, and every merchant of that connection. ' +
    'Stored statements are kept (delete them with statementDelete).',
  flags: { dangerous: true },
  input: input({ accountId: syncInput.accountId() }),
  output: disconnectOutput,
  run: ({ accountId }, ctx) => disconnectSource(ctx, 'gateway', accountId),
  activity: (input, result) => ({ params: { accounts: result.removedAccountIds.length }, targetIds: result.removedAccountIds, summary: `disconnected gateway (${result.removedAccountIds.length} merchants)` }),
});
