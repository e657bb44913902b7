import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { listChatUsers, MAX_CHAT_MEMBERS } from '../../domain/people/chat.ts';

export default defineOperation({
  name: 'chatListUsers',
  group: 'employees',
  summary: 'Slack workspace members, flagged when already imported',
  description: `Every person in the connected Slack workspace (users.list, all pages; bots, apps, deactivated members and Slackbot left out), sorted by name, each flagged imported with its employeeId when already an employee. At most ${MAX_CHAT_MEMBERS} members are read (truncated says so).`,
  flags: { readOnly: true, openWorld: true },
  input: empty(),
  output: z.object({
    workspace: z.string(),
    items: z.array(
      z.object({
        chatUserId: z.string(),
        name: z.string(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
        title: z.string().nullable(),
        imported: z.boolean(),
        employeeId: z.string().nullable(),
      }),
    ),
    total: z.int(),
    truncated: z.boolean(),
  }),
  async run(_input, ctx) {
    return listChatUsers(ctx, ctx.caller.businessId);
  },
});
