import { createHash, randomUUID } from 'node:crypto';
import type { DocStore } from '../ports/store.ts';
import type { Caller } from './context.ts';
import { ApiError, isApiError } from './errors.ts';
import { seal, unseal } from './secrets.ts';

/**
 * `Idempotency-Key` (HTTP header) or `idempotencyKey` (MCP argument) on a mutating call: the first
 * request runs; a repeat with the same key, caller and operation within 24 hours gets the stored
 * outcome without running again. Another body with the same key is refused; a repeat while the first
 * still runs gets `aborted` (retry). Records live per business and expire by TTL after 24 hours.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A running request holds its key by a lease it renews while it runs; a lease not renewed in time was left by a
 * process that died (a crash, a killed instance), and the next request with the key takes it over. Mutable for tests.
 */
export const IDEMPOTENCY_LEASE = { ms: 30_000, renewMs: 10_000 };
export const MAX_IDEMPOTENCY_KEY = 255;

export interface Outcome {
  status: number;
  body: { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; details?: unknown } };
}

interface IdempotencyRecord {
  state: 'running' | 'done';
  requestHash: string;
  operation: string;
  status: number;
  /**
   * The outcome as JSON text, sealed with the credentials key: a result can hold a secret shown once (apiKeyCreate's
   * key, stored nowhere else but as its hash), and this record keeps it for 24 hours. Unsealed in records made before.
   */
  outcome: string;
  startedAtMs: number;
  /** Until then the running request holds the key; renewed while it runs (absent in records made before: started + lease). */
  leaseUntilMs?: number;
  /** Which request holds the lease: a renewal never extends another's. */
  holder?: string;
  expireAt: string;
  expireAtMs: number;
}

export function checkIdempotencyKey(key: string, field: string): void {
  if (!key || key.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError('invalid-argument', `${field}: 1 to ${MAX_IDEMPOTENCY_KEY} visible ASCII characters`, { reason: 'badFormat', params: { format: `1-${MAX_IDEMPOTENCY_KEY} ASCII` } });
  }
}

/** Canonical JSON (sorted keys), so the same body in another key order is the same request. */
const canonical = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]` : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}` : JSON.stringify(v);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Statuses worth replaying: success and the caller's own mistakes. Conflicts, quotas and server errors may pass on retry. */
const replayable = (status: number) => status < 500 && status !== 409 && status !== 429;

export async function withIdempotency(
  store: DocStore,
  caller: Caller,
  operation: string,
  key: string,
  input: unknown,
  now: () => number,
  run: () => Promise<Outcome>,
  /** The credentials key (config.credentialsKey), which seals the stored outcome. */
  sealKey: string,
): Promise<Outcome & { replayed: boolean }> {
  // Checked before anything runs: an outcome that could not be sealed afterwards would leave a retry to run again.
  if (!sealKey) throw new ApiError('unavailable', 'Idempotency-Key needs the credentials key (CREDENTIALS_KEY), which seals the stored outcome; it is not configured', { reason: 'serverNotConfigured' });
  const path = `businesses/${caller.businessId}/idempotency/${sha(`${caller.userId}\n${operation}\n${key}`)}`;
  const requestHash = sha(canonical(input ?? {}));
  const start = now();
  const holder = randomUUID();
  const prior = await store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    const r = doc?.data as unknown as IdempotencyRecord | undefined;
    const held = r?.state === 'running' && (r.leaseUntilMs ?? r.startedAtMs + IDEMPOTENCY_LEASE.ms) > start;
    const live = r && r.expireAtMs > start && (r.state === 'done' || held);
    if (live) {
      if (r.requestHash !== requestHash) throw new ApiError('invalid-argument', 'Idempotency-Key reused with a different request', { reason: 'idempotencyReused' });
      if (r.state === 'running') throw new ApiError('aborted', 'a request with this Idempotency-Key is still running; retry in a moment', { reason: 'conflictRetry' });
      return r;
    }
    const record: IdempotencyRecord = {
      state: 'running', requestHash, operation, status: 0, outcome: '', startedAtMs: start, leaseUntilMs: start + IDEMPOTENCY_LEASE.ms, holder,
      expireAt: new Date(start + IDEMPOTENCY_TTL_MS).toISOString(), expireAtMs: start + IDEMPOTENCY_TTL_MS,
    };
    tx.set(path, { ...record });
    return null;
  });
  if (prior) return { status: prior.status, body: JSON.parse(prior.outcome.startsWith('{') ? prior.outcome : unseal(prior.outcome, sealKey).outcome), replayed: true };
  // Only a long request renews (most end before the first tick), and only while the record is still its own.
  const renew = () =>
    store
      .runTransaction(async (tx) => {
        const r = (await tx.get(path))?.data as unknown as IdempotencyRecord | undefined;
        if (r?.state === 'running' && r.holder === holder) tx.update(path, { leaseUntilMs: now() + IDEMPOTENCY_LEASE.ms });
      })
      .catch(() => {});
  // One renewal at a time: on a slow store, overlapping renewals would contend with each other and with the final write.
  let stopped = false;
  let renewal: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout>;
  const schedule = () => {
    timer = setTimeout(() => {
      renewal = renew().finally(() => {
        if (!stopped) schedule();
      });
    }, IDEMPOTENCY_LEASE.renewMs);
    timer.unref();
  };
  const stopRenewing = async () => {
    stopped = true;
    clearTimeout(timer);
    await renewal;
  };
  schedule();
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (e) {
    await stopRenewing();
    // An unexpected failure: forget the key so a retry runs again.
    await store.delete(path).catch(() => {});
    throw e;
  }
  await stopRenewing();
  if (replayable(outcome.status)) {
    await store.update(path, { state: 'done', status: outcome.status, outcome: seal({ outcome: JSON.stringify(outcome.body) }, sealKey) });
  } else {
    await store.delete(path).catch(() => {});
  }
  return { ...outcome, replayed: false };
}

/** An ApiError as an outcome (the HTTP status the envelope goes with). */
export const errorOutcome = (e: unknown): Outcome | null => (isApiError(e) ? { status: e.status, body: { ok: false, error: e.toJSON() } } : null);
