export const integrationsPath = (businessId: string, provider = '') => `businesses/${businessId}/integrations${provider ? '/' + provider : ''}`;

export interface IntegrationRecord {
  provider: string;
  note: string;
  hasApiKey: boolean;
  hasApiSecret: boolean;
  /** AES-GCM sealed {apiKey, apiSecret}; never leaves the server. */
  sealed: string;
  connectedAt: string;
  updatedAt: string;
}

/** What anyone may see of an integration: never the credentials. */
export const integrationView = (r: IntegrationRecord) => ({
  provider: r.provider,
  connected: true,
  note: r.note,
  hasApiKey: r.hasApiKey,
  hasApiSecret: r.hasApiSecret,
  connectedAt: r.connectedAt,
  updatedAt: r.updatedAt,
});
