import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { disconnectChat } from '../../domain/people/chat.ts';

export default defineOperation({
  name: 'chatDisconnect',
  group: 'employees',
  summary: 'Disconnect Slack: revoke the token and forget it',
  description:
    'Revokes the stored Slack token (auth.revoke) and forgets it. A token Slack already refuses is simply forgotten. Not connected is not an error (removed=false). Imported employees stay.',
  flags: { dangerous: true, idempotent: true, openWorld: true },
  input: empty(),
  output: z.object({ connected: z.literal(false), removed: z.boolean(), revoked: z.boolean() }),
  async run(_input, ctx) {
    const r = await disconnectChat(ctx, ctx.caller.businessId);
    return { connected: false as const, ...r };
  },
  activity: (_input, result) => ({ params: { removed: result.removed }, targetIds: ['chat'], summary: result.removed ? 'disconnected Slack' : 'Slack was not connected' }),
});
