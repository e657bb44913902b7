import { defineOperation } from '../../core/defineOperation.ts';
import { headerCredential, input } from '../../core/schema.ts';
import { connectOutput, connectSource } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'usbankConnect',
  group: 'statements',
  summary: 'Connect the online bank (Mercury) with a read-only API token',
  description:
    'Checks the token with Mercury, then stores it sealed; each bank account becomes a statement account. ' +
    'Returns the accounts and the closed months (up to 24 back) that have a statement to pull.',
  flags: { openWorld: true },
  input: input({ token: headerCredential(1000).describe('Mercury read-only API token; stored sealed, never shown again.') }),
  output: connectOutput,
  run: ({ token }, ctx) => connectSource(ctx, 'usbank', { token }),
  activity: (_input, result) => ({ params: { accounts: result.accounts.length }, targetIds: result.accounts.map((a) => a.id), summary: `connected the online bank (${result.accounts.length} accounts)` }),
});
