import { ApiError } from './errors.ts';
import { utcDay } from './clock.ts';
import type { DocStore } from '../ports/store.ts';

/**
 * Per-business daily quotas, one counter document per quota and UTC day.
 * Limits come from configuration (`QUOTA_<NAME>`); a quota without a limit is unlimited.
 */
export async function consumeQuota(
  store: DocStore,
  limits: Record<string, number>,
  businessId: string,
  name: string,
  amount: number,
  now: number,
): Promise<void> {
  const limit = limits[name];
  if (limit === undefined) return;
  const day = utcDay(now);
  const path = `businesses/${businessId}/quotas/${name}_${day}`;
  await store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    const used = Number(doc?.data.used ?? 0);
    if (used + amount > limit) {
      throw new ApiError('resource-exhausted', `daily ${name} quota of ${limit} is used up for ${day} (UTC); it resets at midnight UTC`);
    }
    // Kept two days past its day (TTL), so yesterday's use can still be looked at.
    const expireAtMs = Date.parse(`${day}T00:00:00Z`) + 3 * 86_400_000;
    tx.set(path, { name, day, used: used + amount, limit, expireAt: new Date(expireAtMs).toISOString(), expireAtMs });
  });
}
