import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { importChatUsers } from '../../domain/people/chat.ts';
import { employeeSchema, employeeView } from '../../domain/people/employees.ts';

export default defineOperation({
  name: 'chatImportUsers',
  group: 'employees',
  summary: 'Import Slack members as employees',
  description:
    'Imports Slack members (by chat user id, from chatListUsers) as employees with source chat: name, email, phone and title from their profile. Importing a member again updates those fields of the same employee (never a duplicate) and keeps its status. An id not in the workspace answers not-found naming it; bots and deactivated members are refused.',
  flags: { idempotent: true, openWorld: true },
  input: input({
    ids: z.array(z.string().min(1).max(64).regex(/^[A-Z0-9]+$/, 'not a Slack user id').describe('A Slack user id, e.g. U024BE7LH.')).min(1).max(200).describe('Slack user ids to import (1 to 200).'),
  }),
  output: z.object({ created: z.int(), updated: z.int(), items: z.array(employeeSchema) }),
  async run({ ids }, ctx) {
    const r = await importChatUsers(ctx, ctx.caller, ids);
    return { created: r.created, updated: r.updated, items: r.items.map(employeeView) };
  },
  activity: (_input, result) => ({ params: { count: result.items.length, created: result.created }, targetIds: result.items.slice(0, 20).map((e) => e.id), summary: `imported ${result.items.length} employees from Slack (${result.created} new)` }),
});
