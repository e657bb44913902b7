import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { closedMonth } from '../../domain/months.ts';
import { marketSettings } from '../../domain/statements/market.ts';
import { requestStatementSync, statementOutput, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'marketSync',
  group: 'statements',
  summary: 'Fetch a month of Upwork transactions: stored as rows and one CSV',
  description:
    "Fetches the organization's Upwork transaction history for the month, stores each transaction (marketTransactions) and one CSV file. " +
    'The sync runs in the background: the answer is the statement, pending until stored (statementsList shows it ready, or failed with the reason). ' +
    'Syncing a month again replaces its transactions and its file.',
  flags: { openWorld: true },
  input: input({ accountId: syncInput.accountId(), month: syncInput.month() }),
  output: statementOutput,
  run: ({ accountId, month }, ctx) => {
    closedMonth(month, ctx.clock.now());
    marketSettings(ctx.config); // a server without Upwork credentials could not refresh the token
    return requestStatementSync(ctx, ctx.caller.businessId, 'market', accountId, month);
  },
  activity: (input, result) => ({ params: { month: input.month }, targetIds: [result.id], summary: `requested the market transactions of ${input.month}` }),
});
