import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { requestStatementSync, statementOutput, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'cardprocSync',
  group: 'statements',
  summary: 'Build a month of the card processor: summary, activity, payouts',
  description:
    "Runs Stripe's balance summary, itemized balance-change activity and itemized payouts reports for the month and stores their CSV files. The sync runs in the background: the answer is the statement, pending until the files are stored " +
    '(statementsList shows it ready, or failed with the reason). Syncing a month again replaces its files.',
  flags: { openWorld: true },
  input: input({ accountId: syncInput.accountId(), month: syncInput.month() }),
  output: statementOutput,
  run: ({ accountId, month }, ctx) => requestStatementSync(ctx, ctx.caller.businessId, 'cardproc', accountId, month),
  activity: (input, result) => ({ params: { month: input.month }, targetIds: [result.id], summary: `requested the cardproc statement of ${input.month}` }),
});
