import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { APPS, appsSchema, businessPath, profileOf, profileSchema, type BusinessRecord } from '../../domain/business.ts';
import { integrationsPath, integrationView, type IntegrationRecord } from '../../domain/integrations.ts';
import { publicLinkUrl } from '../../domain/publicLink.ts';
import { itaConsentPath, itaStatus } from '../../domain/invoices/ita.ts';

export default defineOperation({
  name: 'getBusiness',
  group: 'account',
  summary: 'The business profile, integrations, apps and your role',
  description:
    'The full business profile, connected integrations (without secrets), enabled apps and the caller role.',
  flags: { readOnly: true },
  input: empty(),
  output: profileSchema.extend({
    id: z.string(),
    apps: appsSchema,
    integrations: z.array(z.object({ provider: z.string(), connected: z.boolean(), note: z.string(), hasApiKey: z.boolean(), hasApiSecret: z.boolean(), connectedAt: z.string(), updatedAt: z.string() })),
    role: z.enum(['admin', 'user']),
    /** The tax authority consent: connected while its 90 days last; expiresAt stays shown after expiry. */
    ita: z.object({ connected: z.boolean(), expiresAt: z.string().nullable() }),
    publicSlug: z.string().nullable(),
    publicLink: z.string().nullable(),
    /** Whether a signature / stamp image for forms is stored (the images themselves are never shown). */
    docSignatureSet: z.boolean(),
    docStampSet: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const [doc, integrations, ita] = await Promise.all([
      ctx.store.get(businessPath(businessId)),
      ctx.store.query({ collection: integrationsPath(businessId) }),
      ctx.store.get(itaConsentPath(businessId)),
    ]);
    if (!doc) throw notFound('business', 'business');
    const b = doc.data as unknown as BusinessRecord;
    return {
      id: businessId,
      ...profileOf(doc.data),
      apps: b.apps,
      integrations: integrations.map((i) => integrationView(i.data as unknown as IntegrationRecord)),
      role: ctx.caller.role,
      ita: itaStatus(ita?.data, ctx.clock.now()),
      publicSlug: b.publicSlug ?? null,
      publicLink: b.publicSlug ? publicLinkUrl(ctx.config.publicLinkBase, b.publicSlug) : null,
      docSignatureSet: Boolean(b.docSignatureFileId),
      docStampSet: Boolean(b.docStampFileId),
      createdAt: b.createdAt,
      updatedAt: b.updatedAt,
    };
  },
});
