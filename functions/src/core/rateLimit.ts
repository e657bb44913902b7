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
