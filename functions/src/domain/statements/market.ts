import type { Config } from '../../config.ts';
import type { Caller, Ctx, Services } from '../../core/context.ts';
import { isApiError, notFound } from '../../core/errors.ts';
import { appendActivity } from '../../core/activity.ts';
import { profileOf } from '../business.ts';
import { closedMonth } from '../months.ts';
import { createOAuthState, holdConsent, spendOAuthState, StateFailure, takeConsent, MAX_CODE, type ConsentToConfirm, type StateFailureReason } from '../oauthState.ts';
import type { ConnectResult } from './statementSources.ts';
import { accountsPath, connectSource, probeSource, readStatementRows, statementId, statementsPath, type AccountRecord, type StatementRecord } from './statements.ts';
import { marketplace, MarketError, type MarketRow, type MarketSettings } from '../../ports/marketplace.ts';

/**
 * The freelance marketplace (`market`, Upwork) as a statement source: the browser consent and its return, which connects
 * the organizations as statement accounts (domain/statements/statements.ts), and the stored transactions of a synced month.
 */

export const MARKET_SOURCE = 'market';
export const MARKET_CALLBACK_PATH = '/oauth/market/callback';

/** The marketplace connected today (ports/marketplace.ts); Upwork registers it. */
const upwork = () => marketplace('upwork');

export const marketRedirectUri = (config: Config) => `${config.oauthReturnBase}${MARKET_CALLBACK_PATH}`;
export const marketConfigured = (config: Config) => !!config.marketClientId && !!config.marketClientSecret;
/** Throws failed-precondition naming the missing variables. */
export const marketSettings = (config: Config): MarketSettings => upwork().settingsFrom(config);

export async function startMarketConsent(services: Services, caller: Caller, opts: { origin: string }) {
  const settings = marketSettings(services.config);
  const { state, expiresAtMs } = await createOAuthState(services.store, 'market', caller, services.clock.now(), { origin: opts.origin });
  return { url: upwork().authorizeUrl(settings, { redirectUri: marketRedirectUri(services.config), state }), stateExpiresAt: new Date(expiresAtMs).toISOString() };
}

export type MarketConsentFailureReason = StateFailureReason | 'declined' | 'missing_code' | 'not_configured' | 'code_refused' | 'unavailable' | 'no_organizations';

export class MarketConsentFailure extends Error {
  readonly reason: MarketConsentFailureReason;
  readonly origin: string | null;
  constructor(reason: MarketConsentFailureReason, origin: string | null = null) {
    super(reason);
    this.name = 'MarketConsentFailure';
    this.reason = reason;
    this.origin = origin;
  }
}

interface MarketGrant {
  credentials: Record<string, string>;
  probed: ConnectResult;
}

/**
 * GET /oauth/market/callback: spends the state once, exchanges the code and lists the organizations with the new token;
 * nothing is connected yet: the grant and the list wait, sealed, for the confirmation (holdConsent).
 */
export async function receiveMarketConsent(services: Services, params: { state: string | null; code: string | null; error: string | null }): Promise<ConsentToConfirm & { organizations: string[] }> {
  const { store, config, clock, logger } = services;
  const now = clock.now();
  let spent;
  try {
    spent = await spendOAuthState(store, 'market', params.state, now);
  } catch (e) {
    if (e instanceof StateFailure) throw new MarketConsentFailure(e.reason);
    throw e;
  }
  const { record, business } = spent;
  const origin = record.extra?.origin ?? new URL(config.dashboardUrl).origin;
  if (params.error) throw new MarketConsentFailure('declined', origin);
  const code = params.code ?? '';
  if (!code || code.length > MAX_CODE) throw new MarketConsentFailure('missing_code', origin);
  let settings: MarketSettings;
  try {
    settings = marketSettings(config);
  } catch {
    throw new MarketConsentFailure('not_configured', origin);
  }
  let credentials;
  try {
    credentials = await upwork().exchangeCode(settings, { code, redirectUri: marketRedirectUri(config) }, now);
  } catch (e) {
    if (!(e instanceof MarketError)) throw e;
    logger.warn('market code exchange failed', { businessId: record.businessId, failure: e.failure });
    throw new MarketConsentFailure(e.failure === 'unavailable' || e.failure === 'ratelimited' ? 'unavailable' : 'code_refused', origin);
  }
  let probed: ConnectResult;
  try {
    probed = await probeSource(services, MARKET_SOURCE, credentials);
  } catch (e) {
    if (!isApiError(e)) throw e;
    logger.warn('market organizations listing failed', { businessId: record.businessId, code: e.code });
    throw new MarketConsentFailure(e.code === 'unavailable' || e.code === 'resource-exhausted' ? 'unavailable' : 'code_refused', origin);
  }
  if (!probed.accounts.length) throw new MarketConsentFailure('no_organizations', origin);
  const organizations = probed.accounts.map((a) => a.name);
  const held = await holdConsent(store, config.credentialsKey, spent, { credentials, probed } satisfies MarketGrant, now);
  const profile = profileOf(business);
  return { token: held.token, businessName: profile.businessName || profile.name, account: organizations.join(', '), organizations, startedBy: record.email, origin };
}

/** POST /oauth/market/confirm: the person confirmed the page; the organizations become statement accounts, the tokens sealed. */
export async function confirmMarketConsent(services: Services, token: string | null): Promise<{ businessName: string; organizations: string[]; origin: string }> {
  const { store, config, clock } = services;
  const now = clock.now();
  let taken;
  try {
    taken = await takeConsent<MarketGrant>(store, config.credentialsKey, 'market', token, now);
  } catch (e) {
    if (e instanceof StateFailure) throw new MarketConsentFailure(e.reason);
    throw e;
  }
  const { record, caller, business, payload } = taken;
  const origin = record.extra?.origin ?? new URL(config.dashboardUrl).origin;
  const connected = await connectSource({ ...services, caller }, MARKET_SOURCE, payload.credentials, {}, payload.probed);
  const names = connected.accounts.map((a) => a.name);
  await appendActivity(store, services.ids, caller, now, {
    operation: 'marketConnectCallback',
    kind: 'statements',
    params: { accounts: names.length },
    targetIds: connected.accounts.map((a) => a.id),
    summary: `connected the freelance marketplace (${names.length} organizations)`,
  });
  const profile = profileOf(business);
  return { businessName: profile.businessName || profile.name, organizations: names, origin };
}

/**
 * The stored transactions of one account's month. The statement stays readable after a disconnect (statements are kept);
 * an account never synced for the month answers `not_synced` with no rows.
 */
export async function marketTransactions(ctx: Ctx, accountId: string, month: string) {
  closedMonth(month, ctx.clock.now());
  const { businessId } = ctx.caller;
  const safe = !accountId.includes('/');
  const [sDoc, aDoc] = safe ? await ctx.store.getAll([statementsPath(businessId, statementId(accountId, month)), accountsPath(businessId, accountId)]) : [null, null];
  const s = sDoc?.data as unknown as StatementRecord | undefined;
  const a = aDoc?.data as unknown as AccountRecord | undefined;
  if (s?.source === MARKET_SOURCE) {
    const rows = (await readStatementRows(ctx, businessId, s)) as MarketRow[];
    return { accountId, accountName: s.accountName, month, status: s.status, reason: s.reason, syncedAt: s.syncedAt, transactions: rows };
  }
  if (a?.source !== MARKET_SOURCE) throw notFound(`accountId: market account ${accountId}`, 'account');
  return { accountId, accountName: a.name, month, status: 'not_synced' as const, reason: null, syncedAt: null, transactions: [] as MarketRow[] };
}
