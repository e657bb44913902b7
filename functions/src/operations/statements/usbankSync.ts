import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { requestStatementSync, statementOutput, syncInput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'usbankSync',
  group: 'statements',
  summary: 'Fetch a month of the online bank: its statement PDF',
  description:
    "Fetches the bank's official statement PDF for the month from Mercury. The sync runs in the background: the answer is the statement, pending until the files are stored " +
    '(statementsList shows it ready, or failed with the reason). Syncing a month again replaces its files.',
  flags: { openWorld: true },
  input: input({ accountId: syncInput.accountId(), month: syncInput.month() }),
  output: statementOutput,
  run: ({ accountId, month }, ctx) => requestStatementSync(ctx, ctx.caller.businessId, 'usbank', accountId, month),
  activity: (input, result) => ({ params: { month: input.month }, targetIds: [result.id], summary: `requested the usbank statement of ${input.month}` }),
});
