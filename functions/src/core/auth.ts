import { ApiError } from './errors.ts';
import { newSecret, sha256 } from './ids.ts';
import type { Caller, Role } from './context.ts';
import type { DocStore } from '../ports/store.ts';
import { memberPath, type AuthOptions, type MemberRecord } from './members.ts';

// Shared with idToken.ts; they live in members.ts so the two files do not import each other.
export { memberPath, SIGN_IN_OPERATIONS, type AuthOptions, type MemberRecord } from './members.ts';

/** Every key starts with this literal, so leaked keys are easy to recognise and scan for. */
export const API_KEY_PREFIX = 'bfo_';
const KEY_SHAPE = /^bfo_[A-Za-z0-9_-]{43}$/;
/** A Firebase ID token is a JWT: three base64url parts (the signature may be empty for the emulator's unsigned tokens). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** lastUsedAt is refreshed at most this often, so a busy key does not cost a write per call. */
const LAST_USED_GRANULARITY_MS = 60_000;

export interface ApiKeyRecord {
  keyHash: string;
  name: string;
  /** The 4 characters after `bfo_`, so a person can tell keys apart (24 of the 256 random bits; not enough to use one). */
  prefix?: string;
  businessId: string;
  userId: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Why it was revoked, when the service did it (a removed member's keys). */
  revokedReason?: 'member_removed';
}

export const apiKeyPath = (keyHash: string) => `apiKeys/${keyHash}`;

/** Mints a key; only its SHA-256 is stored, and the key itself is returned once. */
export async function issueApiKey(
  store: DocStore,
  owner: { businessId: string; userId: string; name: string },
  now: number,
): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const apiKey = API_KEY_PREFIX + newSecret();
  const record: ApiKeyRecord = {
    keyHash: sha256(apiKey),
    name: owner.name,
    prefix: apiKey.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + 4),
    businessId: owner.businessId,
    userId: owner.userId,
    createdAt: new Date(now).toISOString(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await store.create(apiKeyPath(record.keyHash), { ...record });
  return { apiKey, record };
}

export async function revokeApiKey(store: DocStore, apiKey: string, now: number): Promise<ApiKeyRecord> {
  const path = apiKeyPath(sha256(apiKey));
  return store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    if (!doc) throw new ApiError('not-found', 'API key not found', { reason: 'notFoundWhat', params: { what: 'key' } });
    const record = doc.data as unknown as ApiKeyRecord;
    const revokedAt = record.revokedAt ?? new Date(now).toISOString();
    tx.update(path, { revokedAt });
    return { ...record, revokedAt };
  });
}

/** Revokes every live key of one user in one business; returns how many. */
export async function revokeUserKeys(store: DocStore, businessId: string, userId: string, now: number): Promise<number> {
  const at = new Date(now).toISOString();
  let n = 0;
  for (;;) {
    const live = await store.query({ collection: 'apiKeys', where: [['businessId', '==', businessId], ['userId', '==', userId], ['revokedAt', '==', null]], limit: 400 });
    if (!live.length) return n;
    const batch = store.batch();
    for (const k of live) batch.update(k.path, { revokedAt: at, revokedReason: 'member_removed' });
    await batch.commit();
    n += live.length;
  }
}

const BEARER_KEY_LENGTH = 'Bearer '.length + API_KEY_PREFIX.length + 43;

/**
 * Store paths of recently seen keys, by key: SHA-256 of the key and the path's hash in the document cache were the
 * largest part of authenticating (issue 23). The keys are in this process's memory as each request brings them;
 * this keeps at most KEY_PATHS of them, and nothing here is ever written out or answered.
 */
const KEY_PATHS = 1024;
const keyPaths = new Map<string, { key: string; member?: string }>();
/** Remembers a well-shaped key not seen before, with the path of its record. */
function rememberKey(key: string): { key: string; member?: string } {
  if (keyPaths.size >= KEY_PATHS) keyPaths.clear();
  const p = { key: apiKeyPath(sha256(key)) };
  keyPaths.set(key, p);
  return p;
}

/** Date.parse with the last answer kept: a busy key's lastUsedAt is the same string for a minute. */
let parsedText = '';
let parsedMs = NaN;
function parsedTime(text: string): number {
  if (text !== parsedText) [parsedText, parsedMs] = [text, Date.parse(text)];
  return parsedMs;
}

/** Resolves `Authorization: Bearer <API key or Firebase ID token>` to the caller, with the user's role as it is now. */
export async function authenticate(store: DocStore, authorization: string | undefined, now: number, opts: AuthOptions = {}): Promise<Caller> {
  // The usual header, `Bearer ` and a key, without the regular expression (every API call comes this way).
  let key = authorization?.length === BEARER_KEY_LENGTH && authorization.startsWith('Bearer bfo_') ? authorization.slice(7) : undefined;
  if (key === undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw new ApiError('unauthenticated', 'missing API key: send the header Authorization: Bearer <API key>', { reason: 'missingKey' });
    key = match[1];
  }
  // A key seen before had its shape checked then.
  let paths = keyPaths.get(key);
  if (paths === undefined) {
    if (!KEY_SHAPE.test(key)) {
      if (JWT_SHAPE.test(key)) return (await import('./idToken.ts')).authenticateIdToken(store, key, opts);
      throw new ApiError('unauthenticated', 'invalid API key', { reason: 'invalidKey' });
    }
    paths = rememberKey(key);
  }
  const keyDoc = await store.get(paths.key);
  if (!keyDoc) throw new ApiError('unauthenticated', 'invalid API key', { reason: 'invalidKey' });
  const record = keyDoc.data as unknown as ApiKeyRecord;
  // A key's business and user never change.
  paths.member ??= memberPath(record.businessId, record.userId);
  const memberDoc = record.revokedAt && record.revokedReason !== 'member_removed' ? null : await store.get(paths.member);
  // Built only when thrown: an Error captures a stack, and this is every request's path.
  const removed = () => new ApiError('permission-denied', 'the user of this API key is no longer a member of the business', { reason: 'noLongerMember' });
  // A removed member is told so (403, spec §5.5); their keys stay revoked if they re-join (401).
  if (record.revokedAt) throw record.revokedReason === 'member_removed' && !memberDoc ? removed() : new ApiError('unauthenticated', 'this API key was revoked', { reason: 'keyRevoked' });
  if (!memberDoc) throw removed();
  const member = memberDoc.data as unknown as MemberRecord;
  if (!record.lastUsedAt || now - parsedTime(record.lastUsedAt) >= LAST_USED_GRANULARITY_MS) {
    await store.update(keyDoc.path, { lastUsedAt: new Date(now).toISOString() });
  }
  return { businessId: record.businessId, userId: record.userId, email: member.email, role: member.role, keyName: record.name, keyId: record.keyHash };
}
