import type { Caller } from '../core/context.ts';
import type { DocStore } from '../ports/store.ts';
import { newSecret, sha256 } from '../core/ids.ts';
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
  const [member, business] = await store.getAll([memberPath(record.businessId, record.userId), businessPath(record.businessId)]);
  if (!member || !business) throw new StateFailure('member_removed');
  const caller: Caller = {
    businessId: record.businessId,
    userId: record.userId,
    email: record.email,
    role: (member.data as unknown as MemberRecord).role,
    keyName: record.keyName,
  };
  return { record, caller, business: business.data };
}
