import type { Caller } from '../core/context.ts';
import type { DocStore } from '../ports/store.ts';
import { newSecret, sha256 } from '../core/ids.ts';
import { seal, unseal } from '../core/secrets.ts';
import { DELETE_FIELD } from '../ports/store.ts';
import { memberPath, type MemberRecord } from '../core/auth.ts';
import { businessPath } from './business.ts';

/**
 * The `state` of a browser consent (tax authority, mailbox, chat tool, marketplace): single-use,
 * expiring after 15 minutes, bound to the business and the user who started it. Stored under the
 * hash of the state, so the store never holds a usable state.
 */

export const OAUTH_STATE_TTL_MS = 15 * 60 * 1000;
/** Limits on what a return URL may carry, checked before anything is hashed or sent. */
export const MAX_STATE = 200;
export const MAX_CODE = 4096;

export type OAuthProvider = 'ita' | 'mailbox' | 'market' | 'chat';

/** Global record keyed by the state's hash (DESIGN.md: global records are keyed by their secret's hash). */
export const oauthStatePath = (state: string) => `oauthStates/${sha256(state)}`;

export interface OAuthStateRecord {
  provider: OAuthProvider;
  businessId: string;
  userId: string;
  email: string;
  keyName: string;
  createdAt: string;
  expiresAtMs: number;
  usedAt: string | null;
  /** Provider-specific values the return needs (e.g. `origin`, `returnView`); never secrets. */
  extra?: Record<string, string>;
  expireAt?: string;
  expireAtMs?: number;
}

export type StateFailureReason = 'missing_state' | 'unknown_state' | 'expired_state' | 'used_state' | 'member_removed';

export class StateFailure extends Error {
  readonly reason: StateFailureReason;
  constructor(reason: StateFailureReason) {
    super(reason);
    this.name = 'StateFailure';
    this.reason = reason;
  }
}

/** Stores a fresh state for `provider` and returns it with its expiry. */
export async function createOAuthState(
  store: DocStore,
  provider: OAuthProvider,
  caller: Caller,
  now: number,
  extra?: Record<string, string>,
): Promise<{ state: string; expiresAtMs: number }> {
  const state = newSecret();
  const record: OAuthStateRecord = {
    provider,
    businessId: caller.businessId,
    userId: caller.userId,
    email: caller.email,
    keyName: caller.keyName,
    createdAt: new Date(now).toISOString(),
    expiresAtMs: now + OAUTH_STATE_TTL_MS,
    usedAt: null,
    ...(extra ? { extra } : {}),
    // Deleted by TTL a day after it expired (the day keeps "already used" answers meaningful).
    expireAt: new Date(now + OAUTH_STATE_TTL_MS + 86_400_000).toISOString(),
    expireAtMs: now + OAUTH_STATE_TTL_MS + 86_400_000,
  };
  await store.create(oauthStatePath(state), { ...record });
  return { state, expiresAtMs: record.expiresAtMs };
}

/**
 * Spends a state once, in a transaction: unknown, expired, used or another provider's state throws
 * StateFailure. Then checks that the starting user is still a member of the business.
 */
export async function spendOAuthState(
  store: DocStore,
  provider: OAuthProvider,
  state: string | null,
  now: number,
): Promise<{ record: OAuthStateRecord; caller: Caller; business: Record<string, unknown> }> {
  if (!state || state.length > MAX_STATE) throw new StateFailure('missing_state');
  const record = await store.runTransaction(async (tx) => {
    const doc = await tx.get(oauthStatePath(state));
    if (!doc || doc.data.provider !== provider) throw new StateFailure('unknown_state');
    const r = doc.data as unknown as OAuthStateRecord;
    if (r.usedAt) throw new StateFailure('used_state');
    if (r.expiresAtMs <= now) throw new StateFailure('expired_state');
    tx.update(doc.path, { usedAt: new Date(now).toISOString() });
    return r;
  });
  return { record, ...(await starter(store, record)) };
}

/** The user who started a consent, still a member of its business (else StateFailure member_removed). */
async function starter(store: DocStore, record: Pick<OAuthStateRecord, 'businessId' | 'userId' | 'email' | 'keyName'>) {
  const [member, business] = await store.getAll([memberPath(record.businessId, record.userId), businessPath(record.businessId)]);
  if (!member || !business) throw new StateFailure('member_removed');
  const caller: Caller = {
    businessId: record.businessId,
    userId: record.userId,
    email: record.email,
    role: (member.data as unknown as MemberRecord).role,
    keyName: record.keyName,
  };
  return { caller, business: business.data };
}

// ---------------------------------------------------------------------------------------------
// The confirmation step (login CSRF, docs/decisions.md): the return page exchanges the code and shows which business
// and which account are about to be connected; nothing is connected until the person confirms with a POST carrying a
// one-time token. The grant waits meanwhile, sealed, in a record keyed by the token's hash (like a state's).

/** What the confirmation page shows, and the token its form posts. */
export interface ConsentToConfirm {
  token: string;
  businessName: string;
  /** What is being connected, as the provider named it (a mailbox address, a workspace, organizations); null when the provider does not say. */
  account: string | null;
  /** The email of the member who started the consent. */
  startedBy: string;
  /** Where the page links back to. */
  origin: string | null;
}

/** How long the confirmation page's form works. */
export const CONFIRM_TTL_MS = 15 * 60 * 1000;

export interface PendingConsentRecord extends Omit<OAuthStateRecord, 'provider'> {
  provider: `confirm:${OAuthProvider}`;
  /** The grant and what the page showed, sealed with the credentials key; removed once confirmed or cancelled. */
  sealed?: string;
}

/** Holds what the code exchange gave until the person confirms; returns the form's one-time token. */
export async function holdConsent(store: DocStore, key: string, spent: { record: OAuthStateRecord }, payload: unknown, now: number): Promise<{ token: string; expiresAtMs: number }> {
  const token = newSecret();
  const { provider, businessId, userId, email, keyName, extra } = spent.record;
  const record: PendingConsentRecord = {
    provider: `confirm:${provider}`,
    businessId,
    userId,
    email,
    keyName,
    createdAt: new Date(now).toISOString(),
    expiresAtMs: now + CONFIRM_TTL_MS,
    usedAt: null,
    ...(extra ? { extra } : {}),
    sealed: seal({ payload: JSON.stringify(payload) }, key),
    expireAt: new Date(now + CONFIRM_TTL_MS + 86_400_000).toISOString(),
    expireAtMs: now + CONFIRM_TTL_MS + 86_400_000,
  };
  await store.create(oauthStatePath(token), { ...record });
  return { token, expiresAtMs: record.expiresAtMs };
}

/** Spends a confirmation token once, in a transaction (unknown, expired, used or another provider's: StateFailure), dropping the sealed grant. */
async function spendConsent(store: DocStore, provider: OAuthProvider, token: string | null, now: number): Promise<PendingConsentRecord> {
  if (!token || token.length > MAX_STATE) throw new StateFailure('missing_state');
  return store.runTransaction(async (tx) => {
    const doc = await tx.get(oauthStatePath(token));
    if (!doc || doc.data.provider !== `confirm:${provider}`) throw new StateFailure('unknown_state');
    const r = doc.data as unknown as PendingConsentRecord;
    if (r.usedAt) throw new StateFailure('used_state');
    if (r.expiresAtMs <= now) throw new StateFailure('expired_state');
    tx.update(doc.path, { usedAt: new Date(now).toISOString(), sealed: DELETE_FIELD });
    return r;
  });
}

/** The confirmation: spends the token, opens the grant held for it, and checks the starting user is still a member. */
export async function takeConsent<T>(
  store: DocStore,
  key: string,
  provider: OAuthProvider,
  token: string | null,
  now: number,
): Promise<{ record: PendingConsentRecord; caller: Caller; business: Record<string, unknown>; payload: T }> {
  const record = await spendConsent(store, provider, token, now);
  const payload = JSON.parse(unseal(record.sealed ?? '', key).payload) as T;
  return { record, ...(await starter(store, record)), payload };
}

/** Cancel on the confirmation page: the token is spent and the grant dropped, nothing connected; returns what the state carried (the link back). */
export async function cancelConsent(store: DocStore, provider: OAuthProvider, token: string | null, now: number): Promise<Record<string, string>> {
  return (await spendConsent(store, provider, token, now)).extra ?? {};
}
