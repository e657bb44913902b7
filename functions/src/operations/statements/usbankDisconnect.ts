import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { disconnectOutput, disconnectSource, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'usbankDisconnect',
  group: 'statements',
  summary: 'Forget a online bank (Mercury) connection and its accounts',
  description:
    'Forgets the stored credential of the connection this account belongs to, and every account of that connection. ' +
    'Stored statements are kept (delete them with statementDelete).',
  flags: { dangerous: true },
  input: input({ accountId: syncInput.accountId() }),
  output: disconnectOutput,
  run: ({ accountId }, ctx) => disconnectSource(ctx, 'usbank', accountId),
  activity: (input, result) => ({ params: { accounts: result.removedAccountIds.length }, targetIds: result.removedAccountIds, summary: `disconnected usbank (${result.removedAccountIds.length} accounts)` }),
});
