import { ApiError } from './errors.ts';
import { jerusalemDay, msToJerusalemMidnight } from './clock.ts';
import type { DocStore } from '../ports/store.ts';

/** A used-up quota, with the seconds until it resets (the HTTP surface sends them as Retry-After). */
export class QuotaExhausted extends ApiError {
  readonly retryAfterSec: number;
  constructor(message: string, retryAfterSec: number) {
    super('resource-exhausted', message);
    this.retryAfterSec = retryAfterSec;
  }
}

/**
 * Per-business daily quotas, one counter document per quota and day (the day in Israel).
 * Limits come from configuration (`QUOTA_<NAME>`); a quota without a limit is unlimited.
 *
 * `once` names the work being paid for (a background task's unit): the charge and a marker of it
 * are written in one transaction, so a retried task that was charged before is not charged again.
 */
export async function consumeQuota(
  store: DocStore,
  limits: Record<string, number>,
  businessId: string,
  name: string,
  amount: number,
  now: number,
  opts: { once?: string } = {},
): Promise<void> {
  const limit = limits[name];
  if (limit === undefined) return;
  // The business's day: it resets at midnight in Israel.
  const day = jerusalemDay(now);
  const path = `businesses/${businessId}/quotas/${name}_${day}`;
  // Beside the counters, so the quotas' TTL policy removes old markers too.
  const marker = opts.once ? `businesses/${businessId}/quotas/once_${name}_${opts.once}` : null;
  await store.runTransaction(async (tx) => {
    if (marker && (await tx.get(marker))) return;
    const doc = await tx.get(path);
    const used = Number(doc?.data.used ?? 0);
    if (used + amount > limit) {
      throw new QuotaExhausted(`daily ${name} quota of ${limit} is used up for ${day}; it resets at midnight in Israel`, Math.ceil(msToJerusalemMidnight(now) / 1000));
    }
    // Kept two days past its day (TTL), so yesterday's use can still be looked at.
    const expireAtMs = Date.parse(`${day}T00:00:00Z`) + 3 * 86_400_000;
    tx.set(path, { name, day, used: used + amount, limit, expireAt: new Date(expireAtMs).toISOString(), expireAtMs });
    if (marker) tx.set(marker, { name, once: opts.once, amount, day, expireAt: new Date(expireAtMs).toISOString(), expireAtMs });
  });
}
