import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { CHAT_RETURN_VIEWS, normalizeOrigin, startChatConsent } from '../../domain/people/chat.ts';

export default defineOperation({
  name: 'chatConnectStart',
  group: 'employees',
  summary: 'Start connecting Slack; returns the consent URL to open',
  description:
    'Start the Slack (chat tool) consent: returns the URL to open in a browser. After the user approves, the return page names the business and the workspace and asks to confirm; the confirmation stores the connection and links back to `origin` at the `returnView` screen. The URL works once, within 15 minutes. Connecting again replaces the earlier connection.',
  flags: {},
  input: input({
    origin: z.string().max(200).optional().describe('Origin of the app to return to after the consent: the dashboard\'s (the default) or one of ALLOWED_ORIGINS; any other is refused.'),
    returnView: z.enum(CHAT_RETURN_VIEWS).default('employees').describe('Screen the return page links back to: employees (default) or integrations.'),
  }),
  output: z.object({ url: z.string(), stateExpiresAt: z.string() }),
  async run({ origin, returnView }, ctx) {
    const o = normalizeOrigin(origin, ctx.config);
    return startChatConsent(ctx.store, ctx.config, ctx.caller, ctx.clock.now(), { origin: o, returnView });
  },
  activity: () => ({ targetIds: ['chat'], summary: 'started connecting Slack' }),
});
