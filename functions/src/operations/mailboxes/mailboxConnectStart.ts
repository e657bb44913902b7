import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { normalizeOrigin } from '../../domain/people/chat.ts';
import { startMailboxConsent } from '../../domain/mail/mailboxes.ts';

export default defineOperation({
  name: 'mailboxConnectStart',
  group: 'mailboxes',
  summary: 'Start connecting a mailbox; returns the consent URL to open',
  description:
    'Start the mailbox consent (read-only mail access, offline): returns the URL to open in a browser. After the user approves, the return page names the business and the mailbox and asks to confirm; the confirmation stores the mailbox and links back to `origin` (default: the dashboard). The URL works once, within 15 minutes. Connecting the same mailbox again renews its connection.',
  flags: {},
  input: input({
    origin: z.string().max(200).optional().describe('Origin of the app to return to after the consent: the dashboard\'s (the default) or one of ALLOWED_ORIGINS; any other is refused.'),
  }),
  output: z.object({ url: z.string(), stateExpiresAt: z.string() }),
  async run({ origin }, ctx) {
    const o = normalizeOrigin(origin, ctx.config);
    return startMailboxConsent(ctx.store, ctx.config, ctx.caller, ctx.clock.now(), { origin: o });
  },
  activity: () => ({ targetIds: ['mailbox'], summary: 'started connecting a mailbox' }),
});
