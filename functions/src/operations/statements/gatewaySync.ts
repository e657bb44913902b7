import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { requestStatementSync, statementOutput, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'gatewaySync',
  group: 'statements',
  summary: 'Fetch a month of the payment gateway: its payout reports',
  description:
    "Fetches the merchant's payout (bank deposit) reports for the month from Cardcom: a CSV of the month's deposits and one CSV of lines per deposit. " +
    'The sync runs in the background: the answer is the statement, pending until the files are stored ' +
    '(statementsList shows it ready, or failed with the reason). Syncing a month again replaces its files.',
  flags: { openWorld: true },
  input: input({ accountId: syncInput.accountId(), month: syncInput.month() }),
  output: statementOutput,
  run: ({ accountId, month }, ctx) => requestStatementSync(ctx, ctx.caller.businessId, 'gateway', accountId, month),
  activity: (input, result) => ({ params: { month: input.month }, targetIds: [result.id], summary: `requested the gateway payout reports of ${input.month}` }),
});
