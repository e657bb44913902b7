import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { businessPath, profileOf, profileSchema, profileShape } from '../../domain/business.ts';

export default defineOperation({
  name: 'updateBusiness',
  group: 'account',
  summary: 'Update the business profile; only the fields sent change.',
  flags: { idempotent: true },
  input: input(profileShape).partial(),
  output: profileSchema,
  async run(fields, ctx) {
    const path = businessPath(ctx.caller.businessId);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound('business');
      const changes = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      tx.update(path, { ...changes, updatedAt: new Date(ctx.clock.now()).toISOString() });
      return profileOf({ ...doc.data, ...changes });
    });
  },
  activity: (fields) => ({ targetIds: [], summary: `updated ${Object.keys(fields).join(', ') || 'nothing'}` }),
});
