import type { Config } from '../../config.ts';
import type { Caller, Services } from '../../core/context.ts';
import { deleteDocs, type DocStore } from '../../ports/store.ts';
import { ApiError, notFound, precondition } from '../../core/errors.ts';
import { seal, unseal } from '../../core/secrets.ts';
import { sha256 } from '../../core/ids.ts';
import { appendActivity } from '../../core/activity.ts';
import { profileOf } from '../business.ts';
import { createOAuthState, holdConsent, spendOAuthState, StateFailure, takeConsent, MAX_CODE, type ConsentToConfirm, type StateFailureReason } from '../oauthState.ts';
import { mailboxProvider, MailboxError, type MailboxSession, type MailboxSettings } from '../../ports/mailbox.ts';

/**
 * Connected mailboxes (the `mailbox` provider, Gmail) at `businesses/{b}/mailboxes/{accountId}`:
 * the browser consent, the sealed refresh token, the status, and sessions for imports.
 */

export const MAILBOX_CALLBACK_PATH = '/oauth/mailbox/callback';
export const mailboxesPath = (businessId: string, accountId = '') => `businesses/${businessId}/mailboxes${accountId ? '/' + accountId : ''}`;
export const automationsPath = (businessId: string) => `businesses/${businessId}/automations`;
/** Mailboxes one business may connect. */
export const MAX_MAILBOXES = 20;

export type MailboxStatus = 'connected' | 'needs_reconnect';

export interface MailboxRecord {
  accountId: string;
  provider: 'mailbox';
  email: string;
  /** AES-GCM sealed {refreshToken}; never leaves the server. */
  sealed: string;
  status: MailboxStatus;
  statusReason: string;
  scope: string;
  connectedAt: string;
  connectedBy: string;
  updatedAt: string;
}

/** The same mailbox connected again keeps its id (and the automations built on it). */
export const mailboxAccountId = (email: string) => sha256(`mailbox:${email.trim().toLowerCase()}`).slice(0, 20);

const SETTING_NAMES: [keyof Config, string][] = [
  ['mailboxClientId', 'MAILBOX_CLIENT_ID'],
  ['mailboxClientSecret', 'MAILBOX_CLIENT_SECRET'],
];

/** The mailbox provider every account connects through today (ports/mailbox.ts); Gmail registers it. */
const provider = () => mailboxProvider('gmail');

export function mailboxSettings(config: Config): MailboxSettings {
  const missing = SETTING_NAMES.filter(([k]) => !config[k]).map(([, env]) => env);
  if (missing.length) throw precondition(`the mailbox provider is not configured on this server: set ${missing.join(', ')}`, { reason: 'providerNotConfigured' });
  return { clientId: config.mailboxClientId, clientSecret: config.mailboxClientSecret, authUrl: config.mailboxAuthUrl, tokenUrl: config.mailboxTokenUrl, baseUrl: config.mailboxBaseUrl, timeoutMs: config.providerTimeoutMs.mailbox };
}

export const mailboxRedirectUri = (config: Config) => `${config.oauthReturnBase}${MAILBOX_CALLBACK_PATH}`;

export async function startMailboxConsent(store: DocStore, config: Config, caller: Caller, now: number, opts: { origin: string }) {
  const settings = mailboxSettings(config);
  const { state, expiresAtMs } = await createOAuthState(store, 'mailbox', caller, now, { origin: opts.origin });
  return { url: await provider().authorizeUrl(settings, { redirectUri: mailboxRedirectUri(config), state }), stateExpiresAt: new Date(expiresAtMs).toISOString() };
}

// ---------------------------------------------------------------------------------------------
// The return page's work

export type MailboxConsentFailureReason = StateFailureReason | 'declined' | 'missing_code' | 'not_configured' | 'code_refused' | 'unavailable' | 'too_many';

export class MailboxConsentFailure extends Error {
  readonly reason: MailboxConsentFailureReason;
  readonly origin: string | null;
  constructor(reason: MailboxConsentFailureReason, origin: string | null = null) {
    super(reason);
    this.name = 'MailboxConsentFailure';
    this.reason = reason;
    this.origin = origin;
  }
}

interface MailboxGrant {
  email: string;
  refreshToken: string;
  scope: string;
}

/**
 * GET /oauth/mailbox/callback: spends the state once, exchanges the code and reads the mailbox's address; nothing is
 * connected yet: the grant waits, sealed, for the confirmation (holdConsent).
 */
export async function receiveMailboxConsent(services: Services, params: { state: string | null; code: string | null; error: string | null }): Promise<ConsentToConfirm> {
  const { store, config, clock, logger } = services;
  const now = clock.now();
  let spent;
  try {
    spent = await spendOAuthState(store, 'mailbox', params.state, now);
  } catch (e) {
    if (e instanceof StateFailure) throw new MailboxConsentFailure(e.reason);
    throw e;
  }
  const { record, business } = spent;
  const origin = record.extra?.origin ?? new URL(config.dashboardUrl).origin;
  if (params.error) throw new MailboxConsentFailure('declined', origin);
  const code = params.code ?? '';
  if (!code || code.length > MAX_CODE) throw new MailboxConsentFailure('missing_code', origin);
  let settings: MailboxSettings;
  try {
    settings = mailboxSettings(config);
  } catch {
    throw new MailboxConsentFailure('not_configured', origin);
  }
  let email: string;
  let grant: { refreshToken: string; scope: string };
  try {
    grant = await provider().exchangeCode(settings, { code, redirectUri: mailboxRedirectUri(config) });
    email = await (await provider().openSession(settings, grant.refreshToken)).profileEmail();
  } catch (e) {
    if (!(e instanceof MailboxError)) throw e;
    logger.warn('mailbox code exchange failed', { businessId: record.businessId, failure: e.failure });
    throw new MailboxConsentFailure(e.failure === 'unavailable' || e.failure === 'ratelimited' ? 'unavailable' : 'code_refused', origin);
  }
  await checkRoom(store, record.businessId, email, origin);
  const held = await holdConsent(store, config.credentialsKey, spent, { email, refreshToken: grant.refreshToken, scope: grant.scope } satisfies MailboxGrant, now);
  const profile = profileOf(business);
  return { token: held.token, businessName: profile.businessName || profile.name, account: email, startedBy: record.email, origin };
}

/** A new mailbox past MAX_MAILBOXES is refused (the same one again renews its connection). */
async function checkRoom(store: DocStore, businessId: string, email: string, origin: string) {
  const existing = await store.count({ collection: mailboxesPath(businessId) });
  const again = await store.get(mailboxesPath(businessId, mailboxAccountId(email)));
  if (!again && existing >= MAX_MAILBOXES) throw new MailboxConsentFailure('too_many', origin);
  return again;
}

/** POST /oauth/mailbox/confirm: the person confirmed the page; the mailbox is connected, its refresh token sealed. */
export async function confirmMailboxConsent(services: Services, token: string | null): Promise<{ businessName: string; email: string; origin: string }> {
  const { store, config, clock } = services;
  const now = clock.now();
  let taken;
  try {
    taken = await takeConsent<MailboxGrant>(store, config.credentialsKey, 'mailbox', token, now);
  } catch (e) {
    if (e instanceof StateFailure) throw new MailboxConsentFailure(e.reason);
    throw e;
  }
  const { record, caller, business, payload } = taken;
  const origin = record.extra?.origin ?? new URL(config.dashboardUrl).origin;
  const { email } = payload;
  const accountId = mailboxAccountId(email);
  const again = await checkRoom(store, record.businessId, email, origin);
  const at = new Date(now).toISOString();
  const rec: MailboxRecord = {
    accountId,
    provider: 'mailbox',
    email,
    sealed: seal({ refreshToken: payload.refreshToken }, config.credentialsKey),
    status: 'connected',
    statusReason: '',
    scope: payload.scope,
    connectedAt: again ? String(again.data.connectedAt) : at,
    connectedBy: record.userId,
    updatedAt: at,
  };
  await store.set(mailboxesPath(record.businessId, accountId), { ...rec });
  await appendActivity(store, services.ids, caller, now, { operation: 'mailboxConnectCallback', kind: 'mailboxes', params: { email }, targetIds: [accountId], summary: `connected mailbox ${email}`.slice(0, 200) });
  const profile = profileOf(business);
  return { businessName: profile.businessName || profile.name, email, origin };
}

// ---------------------------------------------------------------------------------------------
// Using a mailbox

export async function getMailbox(store: DocStore, businessId: string, accountId: string, field = 'accountId'): Promise<MailboxRecord> {
  const doc = /^[a-z0-9]{1,40}$/.test(accountId) ? await store.get(mailboxesPath(businessId, accountId)) : null;
  if (!doc) throw notFound(`${field}: mailbox ${accountId}`, 'mailbox');
  return doc.data as unknown as MailboxRecord;
}

const RECONNECT = 'call mailboxConnectStart and open its url to connect it again';

/** Marks the mailbox as needing a new consent, so callers stop retrying a dead grant. */
export async function markNeedsReconnect(store: DocStore, businessId: string, accountId: string, reason: string, now: number) {
  await store.update(mailboxesPath(businessId, accountId), { status: 'needs_reconnect', statusReason: reason.slice(0, 300), updatedAt: new Date(now).toISOString() }).catch(() => undefined);
}

export function mailboxApiError(e: MailboxError): ApiError {
  switch (e.failure) {
    case 'auth':
      return precondition(`the mailbox no longer accepts the stored connection (${e.message}); ${RECONNECT}`, { reason: 'needsReconnect' });
    case 'ratelimited':
      return new ApiError('resource-exhausted', 'the mailbox provider is rate limiting this mailbox; try again in a minute', { reason: 'providerRateLimited' });
    case 'unavailable':
      return new ApiError('unavailable', `${e.message}; nothing was changed, try again later`, { reason: 'providerDown', params: { provider: 'Gmail' } });
    case 'not_found':
      return notFound(e.message, 'mail');
    case 'refused':
      return precondition(e.message, { reason: 'providerRefused', params: { provider: 'Gmail' } });
  }
}

/**
 * Runs `fn` on a session of the mailbox. A revoked grant marks it needs_reconnect and answers
 * failed-precondition; a mailbox already marked so is refused at once (no call to the provider).
 */
export async function withMailbox<T>(services: Services, businessId: string, accountId: string, fn: (s: MailboxSession, m: MailboxRecord) => Promise<T>): Promise<T> {
  const m = await getMailbox(services.store, businessId, accountId);
  if (m.status === 'needs_reconnect') throw precondition(`mailbox ${m.email} needs to be connected again (${m.statusReason || 'the grant was revoked'}); ${RECONNECT}`, { reason: 'needsReconnect' });
  const settings = mailboxSettings(services.config);
  let token: string;
  try {
    token = unseal(m.sealed, services.config.credentialsKey).refreshToken;
  } catch {
    throw precondition(`the stored mailbox connection cannot be decrypted (was CREDENTIALS_KEY changed?); ${RECONNECT}`, { reason: 'needsReconnect' });
  }
  try {
    return await fn(await provider().openSession(settings, token), m);
  } catch (e) {
    if (!(e instanceof MailboxError)) throw e;
    if (e.failure === 'auth') await markNeedsReconnect(services.store, businessId, accountId, e.message, services.clock.now());
    throw mailboxApiError(e);
  }
}

export interface MailboxView {
  accountId: string;
  email: string;
  status: MailboxStatus;
  statusReason: string;
  automations: number;
  connectedAt: string;
}

export async function listMailboxes(store: DocStore, businessId: string): Promise<MailboxView[]> {
  const docs = await store.query({ collection: mailboxesPath(businessId), limit: MAX_MAILBOXES + 10 });
  const out: MailboxView[] = [];
  for (const d of docs) {
    const m = d.data as unknown as MailboxRecord;
    const automations = await store.count({ collection: automationsPath(businessId), where: [['config.accountId', '==', m.accountId]] });
    out.push({ accountId: m.accountId, email: m.email, status: m.status, statusReason: m.statusReason ?? '', automations, connectedAt: m.connectedAt });
  }
  return out.sort((a, b) => a.email.localeCompare(b.email));
}

/** Removes the mailbox, its sealed token and the automations built on it. */
export async function disconnectMailbox(store: DocStore, businessId: string, accountId: string): Promise<{ email: string; automationsRemoved: number }> {
  const m = await getMailbox(store, businessId, accountId);
  const autos = await store.query({ collection: automationsPath(businessId), where: [['config.accountId', '==', accountId]] });
  await deleteDocs(store, autos.map((a) => a.path));
  await store.delete(mailboxesPath(businessId, accountId));
  return { email: m.email, automationsRemoved: autos.length };
}
