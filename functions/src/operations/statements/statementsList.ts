import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { listStatements, statementOutput } from '../../domain/statements/statements.ts';

export default defineOperation({
  name: 'statementsList',
  group: 'statements',
  summary: 'Stored statements with files, download links and send state',
  description:
    'Every stored monthly statement of every statement account, newest month first: its state (pending while a sync runs, ready, or failed with the reason), ' +
    'its files with capability download URLs, and the per-month send state.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ statements: z.array(statementOutput) }),
  async run(_input, ctx) {
    return { statements: await listStatements(ctx, ctx.caller.businessId) };
  },
});
