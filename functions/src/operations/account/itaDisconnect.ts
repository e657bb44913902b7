import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { forgetConsent } from '../../domain/invoices/ita.ts';

export default defineOperation({
  name: 'itaDisconnect',
  group: 'account',
  summary: 'Forget the tax authority consent',
  description:
    'Forget the tax authority (ITA) consent: its tokens are deleted. Calling it when not connected is not an error (removed=false). Stored ITA verdicts on payments stay.',
  flags: { dangerous: true, idempotent: true },
  input: empty(),
  output: z.object({ connected: z.literal(false), removed: z.boolean() }),
  async run(_input, ctx) {
    const removed = await forgetConsent(ctx.store, ctx.caller.businessId);
    return { connected: false as const, removed };
  },
  activity: (_input, result) => ({ params: { removed: result.removed }, targetIds: ['ita'], summary: result.removed ? 'disconnected the tax authority' : 'tax authority was not connected' }),
});
