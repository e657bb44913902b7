import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { normalizeOrigin } from '../../domain/people/chat.ts';
import { startMarketConsent } from '../../domain/statements/market.ts';

export default defineOperation({
  name: 'marketConnectStart',
  group: 'statements',
  summary: 'Start connecting Upwork (freelance marketplace); returns the consent URL',
  description:
    'Start the Upwork consent: returns the URL to open in a browser. After the user approves, the return page names the business and the organizations and asks to confirm; the confirmation connects every ' +
    'Upwork organization the user can see as a statement account (marketListAccounts) and links back to `origin` (default: the dashboard). ' +
    'The URL works once, within 15 minutes. Connecting again renews the connection and keeps the account ids.',
  // Only builds the consent link (as mailbox, chat and ITA consents do): the browser goes to Upwork, not the tool.
  flags: {},
  input: input({
    origin: z.string().max(200).optional().describe('Origin of the app to return to after the consent: the dashboard\'s (the default) or one of ALLOWED_ORIGINS; any other is refused.'),
  }),
  output: z.object({ url: z.string(), stateExpiresAt: z.string() }),
  async run({ origin }, ctx) {
    const o = normalizeOrigin(origin, ctx.config);
    return startMarketConsent(ctx, ctx.caller, { origin: o });
  },
  activity: () => ({ targetIds: ['market'], summary: 'started connecting the freelance marketplace' }),
});
