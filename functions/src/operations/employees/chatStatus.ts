import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { chatStatus } from '../../domain/people/chat.ts';

export default defineOperation({
  name: 'chatStatus',
  group: 'employees',
  summary: 'Whether Slack is connected, to which workspace and since when',
  description:
    'Checks the stored Slack connection with Slack (auth.test): connected, the workspace name and when it was connected. When Slack no longer accepts the token (invalid_auth, token_revoked), needsReconnect is true and the message says to call chatConnectStart again.',
  flags: { readOnly: true, openWorld: true },
  input: empty(),
  output: z.object({
    connected: z.boolean(),
    workspace: z.string().nullable(),
    teamId: z.string().nullable(),
    connectedAt: z.string().nullable(),
    needsReconnect: z.boolean(),
    message: z.string(),
  }),
  async run(_input, ctx) {
    return chatStatus(ctx, ctx.caller.businessId);
  },
});
