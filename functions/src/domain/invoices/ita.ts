import type { Config } from '../../config.ts';
import type { Caller, Services } from '../../core/context.ts';
import { DELETE_FIELD, type DocStore } from '../../ports/store.ts';
import type { InvoiceReading } from './invoices.ts';
import type { ItaVerdict } from '../payments/payments.ts';
import { ApiError, precondition } from '../../core/errors.ts';
import { seal, unseal } from '../../core/secrets.ts';
import { appendActivity } from '../../core/activity.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { profileOf } from '../business.ts';
import { createOAuthState, holdConsent, spendOAuthState, StateFailure, takeConsent, MAX_CODE, type ConsentToConfirm } from '../oauthState.ts';
import { taxAuthority, ItaError, type ItaClient, type ItaInvoiceDetails, type ItaSettings, type ItaTokens } from '../../ports/taxAuthority.ts';

/**
 * The Israel Tax Authority (ITA) consent and allocation-number check: the OAuth state, the
 * consent record with its sealed tokens, token refresh, and the verdict rule.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** Spec §8: the consent counts as valid 90 days from the grant. */
export const ITA_CONSENT_DAYS = 90;
/** Refresh a little before the access token's stated expiry, so it does not die in flight. */
const ACCESS_SKEW_MS = 30_000;
/** The ITA's access tokens last 10 minutes; assumed when the token answer omits expires_in. */
const DEFAULT_ACCESS_SEC = 600;

export const ITA_CALLBACK_PATH = '/oauth/ita/callback';
export const itaConsentPath = (businessId: string) => `businesses/${businessId}/consents/ita`;
export { oauthStatePath, OAUTH_STATE_TTL_MS, type OAuthStateRecord } from '../oauthState.ts';

export interface ItaConsentRecord {
  provider: 'ita';
  /** Changes with every grant, so a refresh never overwrites a newer grant or revives a forgotten one. */
  grantId: string;
  /** AES-GCM sealed {accessToken, refreshToken}; never leaves the server. */
  sealed: string;
  accessExpiresAtMs: number;
  grantedAt: string;
  grantedAtMs: number;
  expiresAt: string;
  expiresAtMs: number;
  grantedBy: string;
  /** Set when the ITA refused the refresh token: the consent is dead until granted again. */
  refusedAt?: string;
  updatedAt: string;
}

const SETTING_NAMES: [keyof Config, string][] = [
  ['itaClientId', 'ITA_CLIENT_ID'],
  ['itaClientSecret', 'ITA_CLIENT_SECRET'],
  ['itaAuthUrl', 'ITA_AUTH_URL'],
  ['itaBaseUrl', 'ITA_BASE_URL'],
];

/** The client settings, or failed-precondition naming each missing one. */
export function itaSettings(config: Config): ItaSettings {
  const missing = SETTING_NAMES.filter(([k]) => !config[k]).map(([, env]) => env);
  if (missing.length) throw precondition(`the tax authority connection is not configured on this server: set ${missing.join(', ')}`, { reason: 'providerNotConfigured' });
  return {
    authUrl: config.itaAuthUrl,
    baseUrl: config.itaBaseUrl,
    clientId: config.itaClientId,
    clientSecret: config.itaClientSecret,
    scope: config.itaScope,
    timeoutMs: config.itaTimeoutMs > 0 ? config.itaTimeoutMs : 15_000,
  };
}

export const itaRedirectUri = (config: Config) => `${config.oauthReturnBase}${ITA_CALLBACK_PATH}`;

/** What getBusiness shows: connected while the 90 days last and the ITA still takes the consent. */
export function itaStatus(data: Record<string, unknown> | null | undefined, now: number): { connected: boolean; expiresAt: string | null } {
  if (!data) return { connected: false, expiresAt: null };
  const c = data as unknown as ItaConsentRecord;
  return { connected: c.expiresAtMs > now && !c.refusedAt, expiresAt: c.expiresAt ?? null };
}

/** Starts a consent: a single-use, expiring state stored hashed with the business and the starting user. */
export async function startItaConsent(store: DocStore, config: Config, caller: Caller, now: number): Promise<{ url: string; stateExpiresAt: string }> {
  const client = taxAuthority(itaSettings(config));
  const { state, expiresAtMs } = await createOAuthState(store, 'ita', caller, now);
  return { url: client.authorizeUrl({ redirectUri: itaRedirectUri(config), state }), stateExpiresAt: new Date(expiresAtMs).toISOString() };
}

// ---------------------------------------------------------------------------------------------
// The return page's work

export type ConsentFailureReason =
  | 'missing_state'
  | 'unknown_state'
  | 'expired_state'
  | 'used_state'
  | 'declined'
  | 'missing_code'
  | 'member_removed'
  | 'not_configured'
  | 'code_refused'
  | 'client_refused'
  | 'unavailable';

export class ConsentFailure extends Error {
  readonly reason: ConsentFailureReason;
  constructor(reason: ConsentFailureReason, detail: string = reason) {
    super(detail);
    this.name = 'ConsentFailure';
    this.reason = reason;
  }
}

const fail = (reason: ConsentFailureReason, detail?: string) => new ConsentFailure(reason, detail);


const consentRecord = (tokens: ItaTokens, secret: string, now: number, grantedBy: string, grantId: string): ItaConsentRecord => ({
  provider: 'ita',
  grantId,
  sealed: seal({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? '' }, secret),
  accessExpiresAtMs: now + (tokens.expiresInSec ?? DEFAULT_ACCESS_SEC) * 1000,
  grantedAt: new Date(now).toISOString(),
  grantedAtMs: now,
  expiresAt: new Date(now + ITA_CONSENT_DAYS * DAY_MS).toISOString(),
  expiresAtMs: now + ITA_CONSENT_DAYS * DAY_MS,
  grantedBy,
  updatedAt: new Date(now).toISOString(),
});

/**
 * GET /oauth/ita/callback: spends the state (once) and exchanges the code; nothing is stored as the consent yet: the
 * tokens wait, sealed, for the confirmation (holdConsent). Throws ConsentFailure with the reason.
 */
export async function receiveItaConsent(
  services: Services,
  params: { state: string | null; code: string | null; error: string | null },
  client?: ItaClient,
): Promise<ConsentToConfirm> {
  const { store, config, clock, logger } = services;
  const now = clock.now();
  let spent;
  try {
    spent = await spendOAuthState(store, 'ita', params.state, now);
  } catch (e) {
    if (e instanceof StateFailure) throw fail(e.reason);
    throw e;
  }
  const { record, business } = spent;

  if (params.error) throw fail('declined', `the consent was not given (${params.error.slice(0, 60)})`);
  const code = params.code ?? '';
  if (!code || code.length > MAX_CODE) throw fail('missing_code');

  let settings: ItaSettings;
  try {
    settings = itaSettings(config);
  } catch (e) {
    throw fail('not_configured', (e as Error).message);
  }
  const ita = client ?? taxAuthority(settings);
  let tokens: ItaTokens;
  try {
    tokens = await ita.exchangeCode({ code, redirectUri: itaRedirectUri(config) });
  } catch (e) {
    if (!(e instanceof ItaError)) throw e;
    logger.warn('tax authority code exchange failed', { businessId: record.businessId, failure: e.failure, status: e.status });
    if (e.failure === 'invalid_grant' || e.failure === 'refused') throw fail('code_refused', e.message);
    if (e.failure === 'invalid_client') throw fail('client_refused', e.message);
    throw fail('unavailable', e.message);
  }
  // The ITA's token answer names no account: the page names the business and who started the consent.
  const held = await holdConsent(store, config.credentialsKey, spent, { tokens, grantedAtMs: now } satisfies ItaGrant, now);
  const profile = profileOf(business);
  return { token: held.token, businessName: profile.businessName || profile.name, account: null, startedBy: record.email, origin: null };
}

interface ItaGrant {
  tokens: ItaTokens;
  /** When the code was exchanged: the access token's lifetime counts from then. */
  grantedAtMs: number;
}

/** POST /oauth/ita/confirm: the person confirmed the page; the tokens are stored sealed with a 90-day expiry. */
export async function confirmItaConsent(services: Services, token: string | null): Promise<{ businessId: string; businessName: string; expiresAt: string }> {
  const { store, config, clock } = services;
  const now = clock.now();
  let taken;
  try {
    taken = await takeConsent<ItaGrant>(store, config.credentialsKey, 'ita', token, now);
  } catch (e) {
    if (e instanceof StateFailure) throw fail(e.reason);
    throw e;
  }
  const { record, caller, business, payload } = taken;
  const consent = consentRecord(payload.tokens, config.credentialsKey, payload.grantedAtMs, record.userId, services.ids());
  // A new grant replaces any earlier one, and starts a new 90 days.
  await store.set(itaConsentPath(record.businessId), { ...consent });
  await appendActivity(store, services.ids, caller, now, {
    operation: 'itaConnectCallback',
    kind: 'account',
    params: { until: jerusalemDay(consent.expiresAtMs) },
    targetIds: ['ita'],
    summary: `connected the tax authority; consent valid until ${jerusalemDay(consent.expiresAtMs)}`,
  });
  // The page names the business, so a user sent someone else's consent link notices whose it is.
  return { businessId: record.businessId, businessName: profileOf(business).businessName || profileOf(business).name, expiresAt: consent.expiresAt };
}

// ---------------------------------------------------------------------------------------------
// Using the consent

/** An ITA failure as the caller sees it; the ITA's own text is kept short and never holds our secrets. */
export function itaApiError(e: ItaError): ApiError {
  switch (e.failure) {
    case 'unavailable':
      return new ApiError('unavailable', `the tax authority did not answer (${e.message}); nothing was changed, try again later`, { reason: 'taxAuthorityDown' });
    case 'bad_reply':
      return new ApiError('unavailable', `the tax authority sent an unexpected answer (${e.message}); nothing was changed, try again later`, { reason: 'taxAuthorityBadAnswer' });
    case 'unauthorized':
    case 'invalid_grant':
      return precondition('the tax authority no longer accepts the stored consent; call itaConnectStart and open its url to connect again', { reason: 'consentExpired' });
    case 'invalid_client':
      return precondition('the tax authority refused this server\'s client credentials (ITA_CLIENT_ID, ITA_CLIENT_SECRET, ITA_SCOPE)', { reason: 'providerNotConfigured' });
    case 'forbidden':
      return precondition(`the tax authority refused access (${e.message}); the user who gave the consent may lack permission for this business's VAT number`, { reason: 'taxAuthorityNoAccess' });
    case 'refused':
      return precondition(`the tax authority refused the request: ${e.message}`, { reason: 'taxAuthorityRefused' });
  }
}

/**
 * Runs `call` with a valid access token of the business's consent: refreshes it when it has expired,
 * or once when the ITA answers 401, and stores the new tokens sealed.
 */
export async function withItaAccess<T>(services: Services, businessId: string, call: (client: ItaClient, accessToken: string) => Promise<T>, client?: ItaClient): Promise<T> {
  const { store, config, clock } = services;
  const path = itaConsentPath(businessId);
  const doc = await store.get(path);
  const now = clock.now();
  if (!doc) throw precondition('the business has no tax authority consent; call itaConnectStart and open its url to give one', { reason: 'consentMissing' });
  const consent = doc.data as unknown as ItaConsentRecord;
  if (consent.expiresAtMs <= now) throw precondition(`the tax authority consent expired on ${consent.expiresAt}; call itaConnectStart and open its url to renew it`, { reason: 'consentExpired' });
  if (consent.refusedAt) throw itaApiError(new ItaError('invalid_grant', null, 'refused earlier'));
  const ita = client ?? taxAuthority(itaSettings(config));
  const open = (sealed: string) => {
    try {
      return unseal(sealed, config.credentialsKey);
    } catch {
      throw precondition('the stored tax authority consent cannot be decrypted (was CREDENTIALS_KEY changed?); call itaConnectStart to connect again', { reason: 'needsReconnect' });
    }
  };
  let tokens = open(consent.sealed);
  let refreshed = false;

  const refresh = async () => {
    refreshed = true;
    let next: ItaTokens;
    try {
      if (!tokens.refreshToken) throw new ItaError('invalid_grant', null, 'no refresh token');
      next = await ita.refresh(tokens.refreshToken);
    } catch (e) {
      if (!(e instanceof ItaError) || e.failure !== 'invalid_grant') throw e;
      // Refresh tokens rotate: a concurrent call may have spent ours and stored its successor.
      const rotated = await markRefused(store, path, consent, clock.now());
      if (!rotated) throw e;
      tokens = open(rotated);
      return;
    }
    const refreshToken = next.refreshToken ?? tokens.refreshToken;
    tokens = { accessToken: next.accessToken, refreshToken };
    const at = clock.now();
    await store.runTransaction(async (tx) => {
      const current = await tx.get(path);
      // Disconnected or re-granted meanwhile: leave that newer state alone.
      if (!current || current.data.grantId !== consent.grantId) return;
      tx.update(path, {
        sealed: seal({ accessToken: next.accessToken, refreshToken }, config.credentialsKey),
        accessExpiresAtMs: at + (next.expiresInSec ?? DEFAULT_ACCESS_SEC) * 1000,
        refusedAt: DELETE_FIELD,
        updatedAt: new Date(at).toISOString(),
      });
    });
  };

  try {
    if (consent.accessExpiresAtMs <= now + ACCESS_SKEW_MS) await refresh();
    try {
      return await call(ita, tokens.accessToken);
    } catch (e) {
      if (!(e instanceof ItaError) || e.failure !== 'unauthorized' || refreshed) throw e;
      await refresh();
      return await call(ita, tokens.accessToken);
    }
  } catch (e) {
    throw e instanceof ItaError ? itaApiError(e) : e;
  }
}

/**
 * The refresh token was refused. When the stored tokens changed since `read` (a concurrent refresh),
 * returns them; otherwise marks the consent refused, so getBusiness shows it disconnected.
 * The marker, not a delete: a concurrent successful refresh clears it again.
 */
async function markRefused(store: DocStore, path: string, read: ItaConsentRecord, now: number): Promise<string | null> {
  return store.runTransaction(async (tx) => {
    const current = await tx.get(path);
    if (!current || current.data.grantId !== read.grantId) return null;
    if (current.data.sealed !== read.sealed && !current.data.refusedAt) return String(current.data.sealed);
    tx.update(path, { refusedAt: new Date(now).toISOString(), updatedAt: new Date(now).toISOString() });
    return null;
  });
}

/** Deletes the business's consent; true when there was one. */
export async function forgetConsent(store: DocStore, businessId: string): Promise<boolean> {
  const path = itaConsentPath(businessId);
  return store.runTransaction(async (tx) => {
    if (!(await tx.get(path))) return false;
    tx.delete(path);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// The verdict

/** Israeli VAT / company numbers: 9 digits (8-digit ones are zero-padded); null when not one. */
export function israeliVatNumber(raw: string | null | undefined): string | null {
  const s = (raw ?? '').replace(/[\s-]/g, '');
  return /^\d{8,9}$/.test(s) ? s.padStart(9, '0') : null;
}

/** An allocation (confirmation) number as printed: digits, possibly spaced or hyphenated. */
export function allocationNumberOf(raw: string | null | undefined): string | null {
  const s = (raw ?? '').replace(/[\s-]/g, '');
  return /^\d{9,40}$/.test(s) ? s : null;
}

export interface VerdictInput {
  reading: Pick<InvoiceReading, 'totalMinor' | 'vatMinor'> & { issuerVat: string | null };
  details: ItaInvoiceDetails | null;
}

/**
 * not_found: the ITA knows no such number (or it belongs to another issuer's invoice);
 * amount_mismatch: the ITA's total including VAT, or its VAT, differs from the reading by even one agora;
 * match otherwise.
 */
export function itaVerdict({ reading, details }: VerdictInput): ItaVerdict {
  if (!details) return 'not_found';
  const itaIssuer = israeliVatNumber(details.vatNumber);
  if (reading.issuerVat && itaIssuer && itaIssuer !== reading.issuerVat) return 'not_found';
  const total = details.totalAgorot ?? (details.beforeVatAgorot ?? 0) + (details.vatAgorot ?? 0);
  if (reading.totalMinor !== null && reading.totalMinor !== total) return 'amount_mismatch';
  if (reading.vatMinor !== null && details.vatAgorot !== null && reading.vatMinor !== details.vatAgorot) return 'amount_mismatch';
  return 'match';
}
