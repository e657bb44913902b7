import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { APP_REQUIRES, APPS, appsSchema, businessPath, type App, type BusinessRecord } from '../../domain/business.ts';

export default defineOperation({
  name: 'setBusinessApp',
  group: 'account',
  summary: 'Switch an optional screen (app) on or off',
  description:
    'Switch an app (optional dashboard screen) on or off. The payments app requires the invoices app. Admin only.',
  flags: { adminOnly: true, idempotent: true },
  input: input({ app: z.enum(APPS).describe('The optional screen to switch.'), enabled: z.boolean().describe('true turns it on, false off (payments needs invoices on).') }),
  output: z.object({ apps: appsSchema }),
  async run({ app, enabled }, ctx) {
    const path = businessPath(ctx.caller.businessId);
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound('business', 'business');
      const apps = { ...(doc.data as unknown as BusinessRecord).apps, [app]: enabled };
      const needed = APP_REQUIRES[app];
      if (enabled && needed && !apps[needed]) throw precondition(`the ${app} app requires the ${needed} app; enable ${needed} first`, { reason: 'appRequires', params: { app, needed } });
      if (!enabled) {
        const dependant = (Object.keys(APP_REQUIRES) as App[]).find((a) => APP_REQUIRES[a] === app && apps[a]);
        if (dependant) throw precondition(`the ${dependant} app requires the ${app} app; disable ${dependant} first`, { reason: 'appRequiredBy', params: { app, dependant } });
      }
      tx.update(path, { apps, updatedAt: new Date(ctx.clock.now()).toISOString() });
      return { apps };
    });
  },
  activity: ({ app, enabled }) => ({ params: { app, enabled }, targetIds: [app], summary: `${enabled ? 'enabled' : 'disabled'} the ${app} app` }),
});
