import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { requestStatementSync, statementOutput, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'fxwalletSync',
  group: 'statements',
  summary: 'Fetch a month of a Wise balance: statements and receipts',
  description:
    "Fetches the balance statement (PDF and CSV) of the month and a receipt PDF for each outgoing transfer in it. The sync runs in the background: the answer is the statement, pending until the files are stored " +
    '(statementsList shows it ready, or failed with the reason). Syncing a month again replaces its files.',
  flags: { openWorld: true },
  input: input({ accountId: syncInput.accountId(), month: syncInput.month() }),
  output: statementOutput,
  run: ({ accountId, month }, ctx) => requestStatementSync(ctx, ctx.caller.businessId, 'fxwallet', accountId, month),
  activity: (input, result) => ({ params: { month: input.month }, targetIds: [result.id], summary: `requested the fxwallet statement of ${input.month}` }),
});
