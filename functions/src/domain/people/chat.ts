import type { Config } from '../../config.ts';
import type { Caller, Services } from '../../core/context.ts';
import type { DocStore } from '../../ports/store.ts';
import { ApiError, invalid, precondition } from '../../core/errors.ts';
import { seal, unseal } from '../../core/secrets.ts';
import { appendActivity } from '../../core/activity.ts';
import { profileOf } from '../business.ts';
import { createOAuthState, holdConsent, spendOAuthState, StateFailure, takeConsent, MAX_CODE, type ConsentToConfirm, type StateFailureReason } from '../oauthState.ts';
import { chatProvider, ChatError, type ChatClient, type ChatMember } from '../../ports/chat.ts';
import { chatEmployeeId, employeePath, employeesPath, fromChatProfile, MAX_EMPLOYEES, type EmployeeRecord } from './employees.ts';

/**
 * The chat tool (Slack) connection of a business: the consent, the sealed bot token, its status, and
 * the member list that employees are imported from.
 */

export const CHAT_CALLBACK_PATH = '/oauth/chat/callback';
export const CHAT_RETURN_VIEWS = ['employees', 'integrations'] as const;
export type ChatReturnView = (typeof CHAT_RETURN_VIEWS)[number];
export const chatConnectionPath = (businessId: string) => `businesses/${businessId}/consents/chat`;
/** Members read from one workspace at most (users.list pages of 200). */
export const MAX_CHAT_MEMBERS = 5000;

export interface ChatConnectionRecord {
  provider: 'chat';
  /** AES-GCM sealed {accessToken}; never leaves the server. */
  sealed: string;
  teamId: string;
  teamName: string;
  botUserId: string | null;
  scope: string;
  connectedAt: string;
  connectedBy: string;
}

const SETTING_NAMES: [keyof Config, string][] = [
  ['chatClientId', 'CHAT_CLIENT_ID'],
  ['chatClientSecret', 'CHAT_CLIENT_SECRET'],
  ['chatAuthUrl', 'CHAT_AUTH_URL'],
  ['chatBaseUrl', 'CHAT_BASE_URL'],
];

export function chatClientFor(config: Config): ChatClient {
  const missing = SETTING_NAMES.filter(([k]) => !config[k]).map(([, env]) => env);
  if (missing.length) throw precondition(`the chat tool (Slack) is not configured on this server: set ${missing.join(', ')}`, { reason: 'providerNotConfigured' });
  return chatProvider('slack').client({ authUrl: config.chatAuthUrl, baseUrl: config.chatBaseUrl, clientId: config.chatClientId, clientSecret: config.chatClientSecret, timeoutMs: config.providerTimeoutMs.chat });
}

export const chatRedirectUri = (config: Config) => `${config.oauthReturnBase}${CHAT_CALLBACK_PATH}`;

/** The origins a consent may return to: the dashboard's and ALLOWED_ORIGINS (docs/decisions.md). */
export const consentOrigins = (config: Pick<Config, 'dashboardUrl' | 'allowedOrigins'>): string[] => [...new Set([new URL(config.dashboardUrl).origin, ...config.allowedOrigins])];

/**
 * `origin` as the caller sends it: an http(s) origin (a path is dropped) that is one of the configured origins, since
 * the return page shows it as "Back to the dashboard". Omitted: the dashboard's.
 */
export function normalizeOrigin(raw: string | undefined, config: Pick<Config, 'dashboardUrl' | 'allowedOrigins'>): string {
  const allowed = consentOrigins(config);
  if (!raw?.trim()) return allowed[0];
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('origin', 'expected an http(s) origin such as https://app.example.com', { reason: 'badOrigin' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('origin', 'expected an http(s) origin such as https://app.example.com', { reason: 'badOrigin' });
  if (!allowed.includes(url.origin)) throw invalid('origin', `${url.origin.slice(0, 200)} is not one of this service's configured origins (DASHBOARD_URL, ALLOWED_ORIGINS): ${allowed.join(', ')}; omit it to return to the dashboard`, { reason: 'originNotAllowed' });
  return url.origin;
}

export async function startChatConsent(store: DocStore, config: Config, caller: Caller, now: number, opts: { origin: string; returnView: ChatReturnView }) {
  const client = chatClientFor(config);
  const { state, expiresAtMs } = await createOAuthState(store, 'chat', caller, now, { origin: opts.origin, returnView: opts.returnView });
  return { url: client.authorizeUrl({ redirectUri: chatRedirectUri(config), state }), stateExpiresAt: new Date(expiresAtMs).toISOString() };
}

// ---------------------------------------------------------------------------------------------
// The return page's work

export type ChatConsentFailureReason = StateFailureReason | 'declined' | 'missing_code' | 'not_configured' | 'code_refused' | 'unavailable';

export class ChatConsentFailure extends Error {
  readonly reason: ChatConsentFailureReason;
  /** Where the page sends the user back to start again, when the state was readable. */
  readonly next: { origin: string; returnView: string } | null;
  constructor(reason: ChatConsentFailureReason, next: { origin: string; returnView: string } | null = null) {
    super(reason);
    this.name = 'ChatConsentFailure';
    this.reason = reason;
    this.next = next;
  }
}

interface ChatGrant {
  accessToken: string;
  teamId: string;
  teamName: string;
  botUserId: string | null;
  scope: string;
}

const nextOf = (config: Config, extra: Record<string, string> | undefined) => ({ origin: extra?.origin ?? new URL(config.dashboardUrl).origin, returnView: extra?.returnView ?? 'employees' });

/**
 * GET /oauth/chat/callback: spends the state once and exchanges the code (oauth.v2.access); nothing is connected yet:
 * the bot token waits, sealed, for the confirmation (holdConsent).
 */
export async function receiveChatConsent(
  services: Services,
  params: { state: string | null; code: string | null; error: string | null },
): Promise<ConsentToConfirm & { next: { origin: string; returnView: string } }> {
  const { store, config, clock, logger } = services;
  const now = clock.now();
  let spent;
  try {
    spent = await spendOAuthState(store, 'chat', params.state, now);
  } catch (e) {
    if (e instanceof StateFailure) throw new ChatConsentFailure(e.reason);
    throw e;
  }
  const { record, business } = spent;
  const next = nextOf(config, record.extra);
  if (params.error) throw new ChatConsentFailure('declined', next);
  const code = params.code ?? '';
  if (!code || code.length > MAX_CODE) throw new ChatConsentFailure('missing_code', next);
  let client: ChatClient;
  try {
    client = chatClientFor(config);
  } catch {
    throw new ChatConsentFailure('not_configured', next);
  }
  let grant;
  try {
    grant = await client.exchangeCode({ code, redirectUri: chatRedirectUri(config) });
  } catch (e) {
    if (!(e instanceof ChatError)) throw e;
    logger.warn('chat code exchange failed', { businessId: record.businessId, error: e.error });
    throw new ChatConsentFailure(e.failure === 'unavailable' || e.failure === 'ratelimited' ? 'unavailable' : 'code_refused', next);
  }
  const payload: ChatGrant = { accessToken: grant.accessToken, teamId: grant.teamId, teamName: grant.teamName, botUserId: grant.botUserId, scope: grant.scope };
  const held = await holdConsent(store, config.credentialsKey, spent, payload, now);
  const profile = profileOf(business);
  return { token: held.token, businessName: profile.businessName || profile.name, account: grant.teamName, startedBy: record.email, origin: next.origin, next };
}

/** POST /oauth/chat/confirm: the person confirmed the page; the bot token is stored sealed. */
export async function confirmChatConsent(services: Services, token: string | null): Promise<{ businessName: string; teamName: string; origin: string; returnView: string }> {
  const { store, config, clock } = services;
  const now = clock.now();
  let taken;
  try {
    taken = await takeConsent<ChatGrant>(store, config.credentialsKey, 'chat', token, now);
  } catch (e) {
    if (e instanceof StateFailure) throw new ChatConsentFailure(e.reason);
    throw e;
  }
  const { record, caller, business, payload: grant } = taken;
  const next = nextOf(config, record.extra);
  const at = new Date(now).toISOString();
  const connection: ChatConnectionRecord = {
    provider: 'chat',
    sealed: seal({ accessToken: grant.accessToken }, config.credentialsKey),
    teamId: grant.teamId,
    teamName: grant.teamName,
    botUserId: grant.botUserId,
    scope: grant.scope,
    connectedAt: at,
    connectedBy: record.userId,
  };
  // A new grant replaces an earlier one (possibly of another workspace).
  await store.set(chatConnectionPath(record.businessId), { ...connection });
  await appendActivity(store, services.ids, caller, now, { operation: 'chatConnectCallback', kind: 'employees', params: { workspace: grant.teamName }, targetIds: ['chat'], summary: `connected Slack workspace ${grant.teamName}`.slice(0, 200) });
  const profile = profileOf(business);
  return { businessName: profile.businessName || profile.name, teamName: grant.teamName, ...next };
}

// ---------------------------------------------------------------------------------------------
// Using the connection

const RECONNECT = 'call chatConnectStart and open its url to connect again';

export function chatApiError(e: ChatError): ApiError {
  switch (e.failure) {
    case 'auth':
      return precondition(`Slack no longer accepts the stored connection (${e.error}); ${RECONNECT}`, { reason: 'needsReconnect' });
    case 'ratelimited':
      return new ApiError('resource-exhausted', `Slack is rate limiting this workspace; try again in ${e.retryAfterSec ?? 60} seconds`, { reason: 'providerRateLimited' });
    case 'unavailable':
      return new ApiError('unavailable', `Slack did not answer (${e.error}); nothing was changed, try again later`, { reason: 'providerDown', params: { provider: 'Slack' } });
    case 'refused':
      return precondition(`Slack refused the request (${e.error})`, { reason: 'providerRefused', params: { provider: 'Slack' } });
  }
}

async function loadConnection(store: DocStore, businessId: string): Promise<ChatConnectionRecord | null> {
  const doc = await store.get(chatConnectionPath(businessId));
  return doc ? (doc.data as unknown as ChatConnectionRecord) : null;
}

function tokenOf(c: ChatConnectionRecord, config: Config): string {
  try {
    return unseal(c.sealed, config.credentialsKey).accessToken;
  } catch {
    throw precondition(`the stored Slack connection cannot be decrypted (was CREDENTIALS_KEY changed?); ${RECONNECT}`, { reason: 'needsReconnect' });
  }
}

/** Runs `fn` with the business's bot token; Slack refusing the token is answered as "connect again". */
async function withChat<T>(services: Services, businessId: string, fn: (client: ChatClient, token: string, c: ChatConnectionRecord) => Promise<T>): Promise<T> {
  const c = await loadConnection(services.store, businessId);
  if (!c) throw precondition('Slack is not connected; call chatConnectStart and open its url to connect it', { reason: 'notConnected' });
  const client = chatClientFor(services.config);
  try {
    return await fn(client, tokenOf(c, services.config), c);
  } catch (e) {
    if (!(e instanceof ChatError)) throw e;
    throw chatApiError(e);
  }
}

export interface ChatStatus {
  connected: boolean;
  workspace: string | null;
  teamId: string | null;
  connectedAt: string | null;
  needsReconnect: boolean;
  message: string;
}

/** The connection as Slack sees it now (`auth.test`). */
export async function chatStatus(services: Services, businessId: string): Promise<ChatStatus> {
  const c = await loadConnection(services.store, businessId);
  if (!c) return { connected: false, workspace: null, teamId: null, connectedAt: null, needsReconnect: false, message: 'Slack is not connected; call chatConnectStart to connect it' };
  const base = { workspace: c.teamName, teamId: c.teamId, connectedAt: c.connectedAt };
  const broken = (error: string): ChatStatus => ({ connected: false, ...base, needsReconnect: true, message: `Slack no longer accepts the connection (${error}); reconnect: ${RECONNECT}` });
  try {
    await chatClientFor(services.config).authTest(tokenOf(c, services.config));
  } catch (e) {
    if (!(e instanceof ChatError)) throw e;
    if (e.failure !== 'auth') throw chatApiError(e);
    // Read-only: the verdict is Slack's answer now, nothing is written.
    return broken(e.error);
  }
  return { connected: true, ...base, needsReconnect: false, message: `connected to Slack workspace ${c.teamName}` };
}

/** Revokes the token at Slack (`auth.revoke`) and forgets it; a token Slack already refuses is simply forgotten. */
export async function disconnectChat(services: Services, businessId: string): Promise<{ removed: boolean; revoked: boolean }> {
  const c = await loadConnection(services.store, businessId);
  if (!c) return { removed: false, revoked: false };
  let revoked = false;
  try {
    revoked = await chatClientFor(services.config).revoke(tokenOf(c, services.config));
  } catch (e) {
    if (!(e instanceof ChatError) && !(e instanceof ApiError)) throw e;
    if (e instanceof ChatError && e.failure !== 'auth') throw chatApiError(e);
    // The token is already dead (or unreadable): nothing to revoke, forget it.
  }
  await services.store.delete(chatConnectionPath(businessId));
  return { removed: true, revoked };
}

/** People only: no bots or apps, no deleted members, not Slackbot. */
export const isPerson = (m: ChatMember) => m.person;

export interface ChatUserRow {
  chatUserId: string;
  name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  imported: boolean;
  employeeId: string | null;
}

async function importedIds(store: DocStore, businessId: string, teamId: string, userIds: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < userIds.length; i += 300) {
    const chunk = userIds.slice(i, i + 300);
    const docs = await store.getAll(chunk.map((u) => employeePath(businessId, chatEmployeeId(teamId, u))));
    docs.forEach((d, j) => d && found.add(chunk[j]));
  }
  return found;
}

export async function listChatUsers(services: Services, businessId: string): Promise<{ workspace: string; items: ChatUserRow[]; total: number; truncated: boolean }> {
  return withChat(services, businessId, async (client, token, c) => {
    const { members, truncated } = await client.listMembers(token, MAX_CHAT_MEMBERS);
    const people = members.filter(isPerson);
    const imported = await importedIds(services.store, businessId, c.teamId, people.map((m) => m.id));
    const items = people.map((m) => {
      const f = fromChatProfile(m);
      const done = imported.has(m.id);
      return { chatUserId: m.id, ...f, imported: done, employeeId: done ? chatEmployeeId(c.teamId, m.id) : null };
    });
    items.sort((a, b) => a.name.localeCompare(b.name));
    return { workspace: c.teamName, items, total: items.length, truncated };
  });
}

/**
 * Imports members as employees by their chat user id. The employee id is derived from the member, so a
 * second import updates name, email, phone and title and keeps the status the owner set.
 */
export async function importChatUsers(services: Services, caller: Caller, ids: string[]): Promise<{ created: number; updated: number; items: EmployeeRecord[] }> {
  const { store, clock } = services;
  const businessId = caller.businessId;
  return withChat(services, businessId, async (client, token, c) => {
    const { members } = await client.listMembers(token, MAX_CHAT_MEMBERS);
    const byId = new Map(members.map((m) => [m.id, m]));
    const unknown = ids.filter((id) => !byId.has(id));
    if (unknown.length) throw new ApiError('not-found', `ids: chat user ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} not found in Slack workspace ${c.teamName}`, { reason: 'notFoundWhat', params: { what: 'chatUser' } });
    const notPeople = ids.filter((id) => !isPerson(byId.get(id)!));
    if (notPeople.length) throw invalid('ids', `${notPeople.slice(0, 10).join(', ')} ${notPeople.length === 1 ? 'is a bot or a deactivated member' : 'are bots or deactivated members'} and cannot be imported`, { reason: 'notAPerson' });
    const unique = [...new Set(ids)];
    const at = new Date(clock.now()).toISOString();
    const existing = await store.getAll(unique.map((u) => employeePath(businessId, chatEmployeeId(c.teamId, u))));
    const newCount = existing.filter((d) => !d).length;
    if (newCount > 0) {
      const count = await store.count({ collection: employeesPath(businessId) });
      if (count + newCount > MAX_EMPLOYEES) throw new ApiError('resource-exhausted', `ids: a business keeps at most ${MAX_EMPLOYEES} employees (has ${count}, importing ${newCount} new)`, { reason: 'tooManyEmployees', params: { max: MAX_EMPLOYEES } });
    }
    const items: EmployeeRecord[] = [];
    let created = 0;
    // A batch holds 500 writes at most.
    for (let i = 0; i < unique.length; i += 400) {
      const batch = store.batch();
      unique.slice(i, i + 400).forEach((u, k) => {
        const prev = existing[i + k]?.data as unknown as EmployeeRecord | undefined;
        const id = chatEmployeeId(c.teamId, u);
        const record: EmployeeRecord = {
          id,
          ...fromChatProfile(byId.get(u)!),
          status: prev?.status ?? 'active',
          source: 'chat',
          chatUserId: u,
          chatTeamId: c.teamId,
          createdAt: prev?.createdAt ?? at,
          updatedAt: at,
        };
        if (!prev) created++;
        batch.set(employeePath(businessId, id), { ...record });
        items.push(record);
      });
      await batch.commit();
    }
    return { created, updated: items.length - created, items };
  });
}
