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

/**
 * Per-key request limits that clients can read (IETF RateLimit headers), in fixed one-minute windows.
 * Each instance decides from what it knows: the store's count for the window (read back when it
 * flushes, at most once a second per key) plus its own hits since. So the limit holds across
 * instances within about a second of traffic, and a request costs no store access at all; the store
 * sees one transaction per key per second per instance (docs/performance.md).
 */
export class KeyRateLimiter {
  private readonly state = new Map<string, { window: number; known: number; pending: number; flushing: boolean }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly store: DocStore;
  private readonly perMin: number;
  private readonly now: () => number;
  private readonly flushMs: number;

  constructor(store: DocStore, perMin: number, now: () => number, flushMs = 1000) {
    this.store = store;
    this.perMin = perMin;
    this.now = now;
    this.flushMs = flushMs;
  }

  get enabled(): boolean {
    return this.perMin > 0;
  }

  /** The message of a refusal, the same on every surface. */
  static refusal(r: { limit: number; resetSec: number }): string {
    return `rate limit: ${r.limit} requests a minute per API key (HTTP calls and MCP tool calls together); retry in ${r.resetSec} s`;
  }

  /** Counts one request of `keyId`; refused (not counted) when the window's allowance is used up. */
  take(keyId: string): { allowed: boolean; limit: number; remaining: number; resetSec: number } {
    const now = this.now();
    const window = Math.floor(now / 60_000);
    let s = this.state.get(keyId);
    if (!s || s.window !== window) {
      s = { window, known: 0, pending: 0, flushing: false };
      this.state.set(keyId, s);
    }
    const resetSec = Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000));
    const used = s.known + s.pending;
    if (used >= this.perMin) return { allowed: false, limit: this.perMin, remaining: 0, resetSec };
    s.pending++;
    this.schedule();
    return { allowed: true, limit: this.perMin, remaining: this.perMin - used - 1, resetSec };
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  /** Adds each key's pending hits to the store's window count and learns the total (other instances' too). */
  async flush(): Promise<void> {
    const current = Math.floor(this.now() / 60_000);
    for (const [keyId, s] of this.state) {
      if (s.window < current) {
        this.state.delete(keyId);
        continue;
      }
      if (!s.pending || s.flushing) continue;
      const add = s.pending;
      s.flushing = true;
      try {
        const total = await this.store.runTransaction(async (tx) => {
          const path = `rateLimits/key_${keyId.slice(0, 40)}_${s.window}`;
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

const shared = new WeakMap<DocStore, KeyRateLimiter>();

/**
 * The one per-key limiter of a process's store: the HTTP API and the MCP surface count against the
 * same allowance (an MCP tool call is one request, each call of a batch included).
 */
export function keyRateLimiter(store: DocStore, perMin: number, now: () => number): KeyRateLimiter {
  let limiter = shared.get(store);
  if (!limiter) shared.set(store, (limiter = new KeyRateLimiter(store, perMin, now)));
  return limiter;
}
