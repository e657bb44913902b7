import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, text, multilineText } from '../../core/schema.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { seal, unseal } from '../../core/secrets.ts';
import { integrationsPath, integrationView, type IntegrationRecord } from '../../domain/integrations.ts';

export default defineOperation({
  name: 'saveBusinessIntegration',
  group: 'account',
  summary: 'Store invoicing-provider credentials (write-only) or disconnect',
  description:
    'Store invoicing-provider credentials (write-only: never returned) or disconnect them. Admin only.',
  flags: { adminOnly: true, idempotent: true },
  input: input({
    provider: z.string().min(1).max(40).regex(/^[a-z0-9][a-z0-9_-]*$/, 'use lowercase letters, digits, - and _').describe('Invoicing provider id: lowercase letters, digits, _ or -, up to 40.'),
    apiKey: text(4096).min(1).optional().describe('Provider API key (write-only: never returned).'),
    apiSecret: text(4096).min(1).optional().describe('Provider API secret (write-only: never returned).'),
    note: multilineText(500).optional().describe('Free note about the connection.'),
    action: z.enum(['disconnect']).optional().describe("disconnect: forget this provider's credentials."),
  }),
  output: z.object({
    provider: z.string(),
    connected: z.boolean(),
    note: z.string(),
    hasApiKey: z.boolean(),
    hasApiSecret: z.boolean(),
  }),
  async run({ provider, apiKey, apiSecret, note, action }, ctx) {
    const path = integrationsPath(ctx.caller.businessId, provider);
    const secret = ctx.config.credentialsKey;
    if (action === 'disconnect') {
      if (apiKey !== undefined || apiSecret !== undefined) throw invalid('action', 'disconnect takes no credentials', { reason: 'notBoth', params: { other: 'credentials' } });
      return ctx.store.runTransaction(async (tx) => {
        if (!(await tx.get(path))) throw notFound(`integration ${provider}`, 'connection');
        tx.delete(path);
        return { provider, connected: false, note: '', hasApiKey: false, hasApiSecret: false };
      });
    }
    return ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      const prev = doc?.data as IntegrationRecord | undefined;
      if (!prev && apiKey === undefined) throw invalid('apiKey', 'is required to connect a provider', { reason: 'required' });
      const creds = prev ? unseal(prev.sealed, secret) : {};
      if (apiKey !== undefined) creds.apiKey = apiKey;
      if (apiSecret !== undefined) creds.apiSecret = apiSecret;
      const at = new Date(ctx.clock.now()).toISOString();
      const record: IntegrationRecord = {
        provider,
        note: note ?? prev?.note ?? '',
        hasApiKey: Boolean(creds.apiKey),
        hasApiSecret: Boolean(creds.apiSecret),
        sealed: seal(creds, secret),
        connectedAt: prev?.connectedAt ?? at,
        updatedAt: at,
      };
      tx.set(path, { ...record });
      const { connectedAt: _c, updatedAt: _u, ...view } = integrationView(record);
      return view;
    });
  },
  activity: ({ provider, action }) => ({ params: { provider, disconnect: action === 'disconnect' }, targetIds: [provider], summary: action === 'disconnect' ? `disconnected ${provider}` : `saved ${provider} credentials` }),
});
