/**
 * The tax-authority port: the Israel Tax Authority (ITA) consent (OAuth tokens) and the check of an invoice's
 * allocation number, in agorot. The ITA's "Israel Invoices" API fills it (adapters/ita/itaClient.ts), which
 * registers its client factory with registerTaxAuthority; the domain asks taxAuthority(settings) for a client.
 */

export interface ItaSettings {
  authUrl: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  timeoutMs: number;
}

export interface ItaTokens {
  accessToken: string;
  /** Null when the server did not send one (a refresh may keep the old one). */
  refreshToken: string | null;
  /** Lifetime of the access token in seconds, when the server says. */
  expiresInSec: number | null;
}

/** What the ITA holds for an allocation number; amounts converted to agorot. */
export interface ItaInvoiceDetails {
  vatNumber: string | null;
  customerVatNumber: string | null;
  invoiceDate: string | null;
  invoiceReferenceNumber: string | null;
  beforeVatAgorot: number | null;
  vatAgorot: number | null;
  totalAgorot: number | null;
}

export type ItaFailure =
  /** Network error, timeout, 5xx or 429: nothing was decided. */
  | 'unavailable'
  /** 401 on the API: the access token is not (or no longer) accepted. */
  | 'unauthorized'
  /** OAuth `invalid_grant`: the code or refresh token is dead; a new consent is needed. */
  | 'invalid_grant'
  /** The ITA refused our client (id, secret, scope or redirect URI). */
  | 'invalid_client'
  /** 403/406: the consent does not cover this VAT number. */
  | 'forbidden'
  /** Any other 4xx: the request was refused as such. */
  | 'refused'
  /** A 2xx whose body is not the documented shape. */
  | 'bad_reply';

export class ItaError extends Error {
  readonly failure: ItaFailure;
  readonly status: number | null;
  constructor(failure: ItaFailure, status: number | null, detail: string) {
    super(detail);
    this.name = 'ItaError';
    this.failure = failure;
    this.status = status;
  }
}

export interface ItaClient {
  /** The browser URL of the consent screen. */
  authorizeUrl(p: { redirectUri: string; state: string }): string;
  exchangeCode(p: { code: string; redirectUri: string }): Promise<ItaTokens>;
  refresh(refreshToken: string): Promise<ItaTokens>;
  /** Null when the ITA knows no invoice under that number (for that supplier and customer). */
  invoiceDetails(accessToken: string, q: { customerVatNumber: string; confirmationNumber: string; vatNumber: string | null }): Promise<ItaInvoiceDetails | null>;
}

let factory: ((settings: ItaSettings) => ItaClient) | undefined;

export function registerTaxAuthority(make: (settings: ItaSettings) => ItaClient): void {
  factory = make;
}

export function taxAuthority(settings: ItaSettings): ItaClient {
  if (!factory) throw new Error('no tax authority client registered');
  return factory(settings);
}
