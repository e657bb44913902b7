import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { getRun, runView, runViewSchema } from '../../domain/payruns/payRuns.ts';

export default defineOperation({
  name: 'payRunGet',
  group: 'payruns',
  summary: 'A payment run with its bank files.',
  description: 'File links work for 7 days; while the run is open each call renews a link near its end (same bytes). A paid or partly paid run shows only the links still working (a file uploaded twice pays twice); a canceled run has none.',
  flags: { readOnly: true },
  input: input({ runId: id().describe('Run id.') }),
  output: runViewSchema,
  async run({ runId }, ctx) {
    return runView(ctx, await getRun(ctx.store, ctx.caller.businessId, runId));
  },
});
