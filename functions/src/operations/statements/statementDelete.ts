import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { deleteStatement } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'statementDelete',
  group: 'statements',
  summary: 'Delete a stored statement and its files',
  description: 'Deletes one stored monthly statement and its files; their download links stop working. Syncing the month again fetches it anew.',
  flags: { dangerous: true },
  input: input({ id: id().describe('Statement id, from statementsList.') }),
  output: z.object({ id: z.string(), deleted: z.boolean() }),
  async run({ id: statementId }, ctx) {
    return deleteStatement(ctx, ctx.caller.businessId, statementId);
  },
  activity: (input) => ({ targetIds: [input.id], summary: `deleted statement ${input.id}` }),
});
