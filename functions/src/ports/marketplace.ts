/**
 * The marketplace port: the freelance marketplace's OAuth consent (its settings, the consent page, the code
 * exchange) and the transaction rows it yields. Upwork fills it (adapters/market/upwork.ts), which registers
 * itself with registerMarketplace and also as the `market` statement source (domain/statements/statementSources.ts).
 */

export interface MarketSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  baseUrl: string;
  /** Time limit of one call (token endpoint or API), ms. */
  timeoutMs?: number;
}

export interface MarketCredentials extends Record<string, string> {
  accessToken: string;
  refreshToken: string;
  /** When the access token expires, ms since epoch, as a string (credentials are string maps). */
  expiresAt: string;
}

/** Why a call failed: `revoked` (the grant is gone: reconnect), `auth` (token refused), `refused`, `ratelimited`, `unavailable`. */
export type MarketFailure = 'revoked' | 'auth' | 'refused' | 'ratelimited' | 'unavailable';

export class MarketError extends Error {
  readonly failure: MarketFailure;
  constructor(failure: MarketFailure, message: string) {
    super(message);
    this.name = 'MarketError';
    this.failure = failure;
  }
}

/** One transaction as stored and answered by marketTransactions. */
export type MarketRow = {
  id: string | null;
  date: string | null;
  type: string | null;
  subtype: string | null;
  description: string | null;
  amount: string | null;
  currency: string | null;
  balance: string | null;
  freelancer: string | null;
  agency: string | null;
  company: string | null;
  invoiceId: string | null;
  status: string | null;
};

/** The configuration the marketplace reads (Config's market fields). */
export interface MarketConfig {
  marketClientId: string;
  marketClientSecret: string;
  marketAuthUrl: string;
  marketTokenUrl: string;
  marketBaseUrl: string;
}

export interface MarketplaceOAuth {
  readonly name: string;
  /** Settings from configuration; a missing client id or secret is refused naming the variables. */
  settingsFrom(config: MarketConfig): MarketSettings;
  /** The consent page URL. */
  authorizeUrl(s: MarketSettings, opts: { redirectUri: string; state: string }): string;
  exchangeCode(s: MarketSettings, opts: { code: string; redirectUri: string }, nowMs: number): Promise<MarketCredentials>;
}

const providers = new Map<string, MarketplaceOAuth>();

export function registerMarketplace(provider: MarketplaceOAuth): void {
  providers.set(provider.name, provider);
}

export function marketplace(name: string): MarketplaceOAuth {
  const p = providers.get(name);
  if (!p) throw new Error(`no marketplace registered as ${name}`);
  return p;
}
