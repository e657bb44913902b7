import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { headerCredential, input } from '../../core/schema.ts';
import { connectOutput, connectSource } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'fxwalletConnect',
  group: 'statements',
  summary: 'Connect the multi-currency account (Wise) with a personal token',
  description:
    'Checks the Wise personal API token (sandbox: true uses the Wise sandbox), then stores it sealed; each balance (currency) of each profile ' +
    'becomes a statement account. Returns the accounts and the closed months (up to 24 back) with transfers.',
  flags: { openWorld: true },
  input: input({
    token: headerCredential(1000).describe('Wise personal API token; stored sealed, never shown again.'),
    sandbox: z.boolean().default(false).describe('true: the token is for the Wise sandbox.'),
  }),
  output: connectOutput,
  run: ({ token, sandbox }, ctx) => connectSource(ctx, 'fxwallet', { token, sandbox: sandbox ? '1' : '' }, { sandbox }),
  activity: (_input, result) => ({ params: { accounts: result.accounts.length }, targetIds: result.accounts.map((a) => a.id), summary: `connected the multi-currency account (${result.accounts.length} balances)` }),
});
