import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bodyCredential, input } from '../../core/schema.ts';
import { connectOutput, connectSource } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'gatewayConnect',
  group: 'statements',
  summary: 'Connect the payment gateway (Cardcom) with an API user',
  description:
    'Checks the Cardcom API username and password (sandbox: true uses the Cardcom test host), then stores them sealed; each merchant number ' +
    'Cardcom deposits to becomes a statement account. Returns the accounts and the closed months (up to 24 back) with payouts.',
  flags: { openWorld: true },
  input: input({
    username: bodyCredential(200, { trim: true }).describe('Cardcom API username (ApiName); stored sealed, never shown again.'),
    password: bodyCredential(200).describe('Cardcom API password (ApiPassword); stored sealed, never shown again.'),
    sandbox: z.boolean().describe('true: the API user is on the Cardcom test host (GATEWAY_SANDBOX_BASE_URL).'),
  }),
  output: connectOutput,
  run: ({ username, password, sandbox }, ctx) => connectSource(ctx, 'gateway', { username, password, sandbox: sandbox ? '1' : '' }, { sandbox }),
  activity: (_input, result) => ({ params: { accounts: result.accounts.length }, targetIds: result.accounts.map((a) => a.id), summary: `connected the payment gateway (${result.accounts.length} merchants)` }),
});
