import type { DocStore } from '../ports/store.ts';
import { sha256 } from './ids.ts';

/**
 * Fixed-window counters kept in the store, so a limit holds across instances (Cloud Functions scales
 * out). One document per key and window (`rateLimits/{hash}`), one transaction per hit (a read and a
 * write). Documents carry `expireAt` for a TTL policy (production) and the local sweep.
 */
export interface Limit {
  /** What is counted, e.g. `page-ip:1.2.3.4` (hashed before it is stored). */
  key: string;
  max: number;
  windowMs: number;
}

export interface Verdict {
  allowed: boolean;
  /** Seconds until the window that refused resets (0 when allowed). */
  retryAfterSec: number;
}

const docPath = (key: string, windowStart: number) => `rateLimits/${sha256(key).slice(0, 40)}_${windowStart}`;

/**
 * Counts one hit against every limit, in one transaction; refuses when any would be exceeded
 * (then nothing is counted, so a refused caller does not extend its own ban).
 */
export async function hit(store: DocStore, limits: Limit[], now: number): Promise<Verdict> {
  const active = limits.filter((l) => l.max > 0);
  if (!active.length) return { allowed: true, retryAfterSec: 0 };
  return store.runTransaction(async (tx) => {
    const windows = active.map((l) => ({ l, start: Math.floor(now / l.windowMs) * l.windowMs }));
    const docs = await tx.getAll(windows.map((w) => docPath(w.l.key, w.start)));
    let retryAfterSec = 0;
    windows.forEach((w, i) => {
      const count = Number(docs[i]?.data.count ?? 0);
      if (count >= w.l.max) retryAfterSec = Math.max(retryAfterSec, Math.ceil((w.start + w.l.windowMs - now) / 1000));
    });
    if (retryAfterSec > 0) return { allowed: false, retryAfterSec };
    windows.forEach((w, i) => {
      const count = Number(docs[i]?.data.count ?? 0);
      tx.set(docPath(w.l.key, w.start), { count: count + 1, expireAt: new Date(w.start + w.l.windowMs).toISOString(), expireAtMs: w.start + w.l.windowMs });
    });
    return { allowed: true, retryAfterSec: 0 };
  });
}

/**
 * The visitor's address: behind `trustedHops` proxies that each append to X-Forwarded-For, the entry
 * that many places from the right; everything left of it was sent by the client and is not trusted.
 * Without proxies (npm start), the socket's address.
 */
export function clientIp(headers: Record<string, string | undefined>, remoteAddress: string | undefined, trustedHops: number): string {
  if (trustedHops <= 0) return remoteAddress ?? 'unknown';
  const xff = (headers['x-forwarded-for'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!xff.length) return remoteAddress ?? 'unknown';
  return xff[Math.max(0, xff.length - trustedHops)];
}

/** Requests a minute (0: that policy is off). */
export interface RequestLimits {
  perKey: number;
  perUser: number;
  perBusiness: number;
}

/** Who a request is counted against: its key (none for a dashboard ID token), its user and its business. */
export interface RateSubject {
  keyId?: string;
  userId: string;
  businessId: string;
  firebaseUid?: string;
}

/** One policy as this request left it. */
export interface PolicyState {
  /** The name the RateLimit headers give it: per-key, per-user, per-business. */
  name: string;
  limit: number;
  remaining: number;
}

export interface RateVerdict {
  allowed: boolean;
  /** Seconds to the end of the one-minute window (all policies share it). */
  resetSec: number;
  /** Every policy that applies to this caller, in the order of the headers. */
  policies: PolicyState[];
  /** The first policy that refused, when one did. */
  refusedBy?: PolicyState;
}

interface Bucket {
  window: number;
  known: number;
  pending: number;
  flushing: boolean;
}

const REFUSALS: Record<string, string> = {
  'per-key': 'per API key (HTTP calls and MCP tool calls together)',
  'per-user': "per user (all of the user's API keys and dashboard sign-ins together)",
  'per-business': 'per business (all of its members together)',
};

/**
 * Request limits that clients can read (IETF RateLimit headers), in fixed one-minute windows: per API key, per user
 * (all their keys and dashboard ID tokens: minting keys adds no allowance) and per business. Each instance decides
 * from what it knows: the store's count for the window (read back when it flushes, at most once a second per
 * bucket) plus its own hits since. So the limits hold across instances within about a second of traffic, and a
 * request costs no store access at all; the store sees one transaction per active bucket per second per instance.
 */
export class KeyRateLimiter {
  private readonly state = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | undefined;
  private readonly store: DocStore;
  private readonly limits: RequestLimits;
  private readonly now: () => number;
  private readonly flushMs: number;

  constructor(store: DocStore, limits: number | RequestLimits, now: () => number, flushMs = 1000) {
    this.store = store;
    this.limits = typeof limits === 'number' ? { perKey: limits, perUser: 0, perBusiness: 0 } : limits;
    this.now = now;
    this.flushMs = flushMs;
  }

  get enabled(): boolean {
    return this.limits.perKey > 0 || this.limits.perUser > 0 || this.limits.perBusiness > 0;
  }

  /** The message of a refusal, the same on every surface. */
  static refusal(v: RateVerdict): string {
    const p = v.refusedBy ?? v.policies[0];
    return `rate limit: ${p.limit} requests a minute ${REFUSALS[p.name]}; retry in ${v.resetSec} s`;
  }

  /** The refusal's details params: the limit that refused and when to retry. */
  static refusalParams(v: RateVerdict): { limit: number; retryAfterSec: number } {
    return { limit: (v.refusedBy ?? v.policies[0]).limit, retryAfterSec: v.resetSec };
  }

  /** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers), one list item per policy. */
  static headers(v: RateVerdict): { 'ratelimit-policy': string; ratelimit: string } {
    let policy = '';
    let rate = '';
    for (const p of v.policies) {
      const sep = policy ? ', ' : '';
      policy += `${sep}"${p.name}";q=${p.limit};w=60`;
      rate += `${sep}"${p.name}";r=${p.remaining};t=${v.resetSec}`;
    }
    return { 'ratelimit-policy': policy, ratelimit: rate };
  }

  private bucket(id: string, window: number): Bucket {
    let b = this.state.get(id);
    if (!b || b.window !== window) {
      b = { window, known: 0, pending: 0, flushing: false };
      this.state.set(id, b);
    }
    return b;
  }

  /**
   * Counts one request of `who` against every policy that applies; refused (nothing counted) when any policy's
   * allowance for the window is used up. A string is a key id alone (the per-key policy only).
   */
  take(who: RateSubject | string): RateVerdict {
    const subject: RateSubject = typeof who === 'string' ? { keyId: who, userId: '', businessId: '' } : who;
    const now = this.now();
    const window = Math.floor(now / 60_000);
    const resetSec = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
    const { perKey, perUser, perBusiness } = this.limits;
    const user = subject.userId || (subject.firebaseUid ? `uid:${subject.firebaseUid}` : '');
    const buckets: Bucket[] = [];
    const policies: PolicyState[] = [];
    let refusedBy: PolicyState | undefined;
    const check = (name: string, id: string, limit: number) => {
      const b = this.bucket(id, window);
      const used = b.known + b.pending;
      // What is left before this request; a counted request takes one from each below.
      const p = { name, limit, remaining: Math.max(0, limit - used) };
      if (used >= limit) refusedBy ??= p;
      buckets.push(b);
      policies.push(p);
    };
    if (perKey > 0 && subject.keyId) check('per-key', `key_${subject.keyId.slice(0, 40)}`, perKey);
    if (perUser > 0 && user) check('per-user', `user_${user}`, perUser);
    if (perBusiness > 0 && subject.businessId) check('per-business', `biz_${subject.businessId}`, perBusiness);
    // Refused: nothing is counted, so what is left stays as it was.
    if (refusedBy) return { allowed: false, resetSec, policies, refusedBy };
    for (const b of buckets) b.pending++;
    for (const p of policies) p.remaining--;
    if (buckets.length) this.schedule();
    return { allowed: true, resetSec, policies };
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  /** Adds each bucket's pending hits to the store's window count and learns the total (other instances' too). */
  async flush(): Promise<void> {
    const current = Math.floor(this.now() / 60_000);
    for (const [id, s] of this.state) {
      if (s.window < current) {
        this.state.delete(id);
        continue;
      }
      if (!s.pending || s.flushing) continue;
      const add = s.pending;
      s.flushing = true;
      try {
        const total = await this.store.runTransaction(async (tx) => {
          const path = `rateLimits/${id}_${s.window}`;
          const doc = await tx.get(path);
          const count = Number(doc?.data.count ?? 0) + add;
          const end = (s.window + 1) * 60_000;
          tx.set(path, { count, expireAt: new Date(end).toISOString(), expireAtMs: end });
          return count;
        });
        s.pending -= add;
        s.known = total;
      } catch {
        // The store is busy or away: keep counting locally and try again next time.
      } finally {
        s.flushing = false;
      }
    }
    if ([...this.state.values()].some((s) => s.pending)) this.schedule();
  }
}

/** The configured limits (config.ts: RATE_LIMIT_PER_MIN, RATE_LIMIT_USER_PER_MIN, RATE_LIMIT_BUSINESS_PER_MIN). */
export const requestLimits = (c: { rateLimitPerMin: number; rateLimitUserPerMin: number; rateLimitBusinessPerMin: number }): RequestLimits => ({
  perKey: c.rateLimitPerMin,
  perUser: c.rateLimitUserPerMin,
  perBusiness: c.rateLimitBusinessPerMin,
});

const shared = new WeakMap<DocStore, KeyRateLimiter>();

/**
 * The one request limiter of a process's store: the HTTP API and the MCP surface count against the
 * same allowances (an MCP tool call is one request, each call of a batch included).
 */
export function keyRateLimiter(store: DocStore, limits: number | RequestLimits, now: () => number): KeyRateLimiter {
  let limiter = shared.get(store);
  if (!limiter) shared.set(store, (limiter = new KeyRateLimiter(store, limits, now)));
  return limiter;
}
