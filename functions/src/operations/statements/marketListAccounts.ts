import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { accountOutput, listAccounts } from '../../domain/statements/statements.ts';
import { marketConfigured } from '../../domain/statements/market.ts';

export default defineOperation({
  name: 'marketListAccounts',
  group: 'statements',
  summary: 'The connected freelance marketplace (Upwork) organizations and their status',
  description:
    'Each connected Upwork organization with its status: connected, or needs_reconnect (with the reason) when Upwork refused the stored grant. ' +
    '`configured: false` means this server has no Upwork API credentials (MARKET_CLIENT_ID, MARKET_CLIENT_SECRET), so nothing can be connected or synced.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ configured: z.boolean(), accounts: z.array(accountOutput) }),
  run: async (_input, ctx) => ({ configured: marketConfigured(ctx.config), ...(await listAccounts(ctx, 'market')) }),
});
