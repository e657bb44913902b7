import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { ITA_CONSENT_DAYS, startItaConsent } from '../../domain/invoices/ita.ts';

export default defineOperation({
  name: 'itaConnectStart',
  group: 'account',
  summary: 'Start the tax authority consent; returns the URL to open',
  description:
    `Start the tax authority (ITA) consent: returns the ITA login URL to open in a browser. After the user approves, the service's return page names the business and asks to confirm; the confirmation stores the consent; it is valid ${ITA_CONSENT_DAYS} days (getBusiness shows ita.expiresAt). The URL works once, within 15 minutes.`,
  flags: {},
  input: empty(),
  output: z.object({ url: z.string(), stateExpiresAt: z.string() }),
  async run(_input, ctx) {
    return startItaConsent(ctx.store, ctx.config, ctx.caller, ctx.clock.now());
  },
  activity: () => ({ targetIds: ['ita'], summary: 'started the tax authority consent' }),
});
