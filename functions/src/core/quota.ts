import { ApiError } from './errors.ts';
import { jerusalemDay, msToJerusalemMidnight } from './clock.ts';
import type { DocStore, Reader } from '../ports/store.ts';

/** A used-up quota, with the seconds until it resets (the HTTP surface sends them as Retry-After). */
export class QuotaExhausted extends ApiError {
  readonly retryAfterSec: number;
  constructor(message: string, retryAfterSec: number, quota: string) {
    super('resource-exhausted', message, { reason: 'quotaExhausted', params: { quota } });
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
  const path = counterPath(businessId, name, day);
  // Beside the counters, so the quotas' TTL policy removes old markers too.
  const marker = opts.once ? `businesses/${businessId}/quotas/once_${name}_${opts.once}` : null;
  await store.runTransaction(async (tx) => {
    if (marker && (await tx.get(marker))) return;
    const doc = await tx.get(path);
    const used = Number(doc?.data.used ?? 0);
    if (used + amount > limit) throw exhausted(name, limit, day, now);
    const counter = counterDoc(name, day, used + amount, limit);
    tx.set(path, counter);
    if (marker) tx.set(marker, { name, once: opts.once, amount, day, expireAt: counter.expireAt, expireAtMs: counter.expireAtMs });
  });
}

const counterPath = (businessId: string, name: string, day: string) => `businesses/${businessId}/quotas/${name}_${day}`;

const counterDoc = (name: string, day: string, used: number, limit: number) => {
  // Kept two days past its day (TTL), so yesterday's use can still be looked at.
  const expireAtMs = Date.parse(`${day}T00:00:00Z`) + 3 * 86_400_000;
  return { name, day, used, limit, expireAt: new Date(expireAtMs).toISOString(), expireAtMs };
};

const exhausted = (name: string, limit: number, day: string, now: number) =>
  new QuotaExhausted(`daily ${name} quota of ${limit} is used up for ${day}; it resets at midnight in Israel`, Math.ceil(msToJerusalemMidnight(now) / 1000), name);

/** The daily cap on outgoing messages (QUOTA_MESSAGES): refused before the transaction that would pass it commits. */
export const messagesExhausted = (limit: number, now: number) =>
  new QuotaExhausted(
    `the daily cap of ${limit} outgoing messages (QUOTA_MESSAGES) is reached for ${jerusalemDay(now)}; nothing was sent or changed, and it resets at midnight in Israel`,
    Math.ceil(msToJerusalemMidnight(now) / 1000),
    'messages',
  );

/** Units of a quota the business used today (0 without a counter). */
export async function quotaUsed(reader: Reader, businessId: string, name: string, now: number): Promise<number> {
  return Number((await reader.get(counterPath(businessId, name, jerusalemDay(now))))?.data.used ?? 0);
}

/** Adds units already spent (messages an operation committed): never refuses, so the caller checks first. */
export async function chargeQuota(store: DocStore, limits: Record<string, number>, businessId: string, name: string, amount: number, now: number): Promise<void> {
  const limit = limits[name];
  if (limit === undefined || amount <= 0) return;
  const day = jerusalemDay(now);
  const path = counterPath(businessId, name, day);
  await store.runTransaction(async (tx) => {
    const used = Number((await tx.get(path))?.data.used ?? 0);
    tx.set(path, counterDoc(name, day, used + amount, limit));
  });
}

/**
 * Units of a quota taken ahead for a known run of work (a mail import's batch): one commit reserves the units the run
 * still plans to use, each use then takes one without a write, and `release` gives back what is left. A mail cost a
 * commit of its own on the hot counter before (issue 23). Reserved units count as used until released: near the limit,
 * another run may be refused a unit that this one gives back later, and a run that dies before releasing leaves its
 * unused units charged (at most one batch's worth, for that day).
 */
export class QuotaReservation {
  private left = 0;
  private used = 0;
  private day = '';
  /** When the reserved units' day ends (midnight in Israel): checked on each take without formatting a date. */
  private dayEndsAt = 0;
  private pending: Promise<void> | null = null;
  private readonly store: DocStore;
  private readonly limit: number | undefined;
  private readonly businessId: string;
  private readonly name: string;
  /** Units the run expects to use in all: a reservation asks for what is still planned, at least one. */
  private readonly planned: number;
  private readonly now: () => number;

  constructor(o: { store: DocStore; limits: Record<string, number>; businessId: string; name: string; planned: number; now: () => number }) {
    this.store = o.store;
    this.limit = o.limits[o.name];
    this.businessId = o.businessId;
    this.name = o.name;
    this.planned = o.planned;
    this.now = o.now;
  }

  /** One unit, or QuotaExhausted when the day's quota has none left. */
  async take(): Promise<void> {
    if (this.limit === undefined) return;
    for (;;) {
      if (this.left > 0 && this.now() < this.dayEndsAt) {
        this.left--;
        this.used++;
        return;
      }
      // One reservation at a time; the others wait for it and take from it.
      if (this.pending) {
        await this.pending;
        continue;
      }
      this.pending = (async () => {
        // Units reserved on a day that has ended go back to that day's counter.
        if (this.left > 0) await this.release();
        await this.reserve(Math.max(1, this.planned - this.used));
      })().finally(() => (this.pending = null));
      await this.pending;
    }
  }

  /** Gives back the units reserved and not taken. */
  async release(): Promise<void> {
    const n = this.left;
    if (n <= 0) return;
    this.left = 0;
    const path = counterPath(this.businessId, this.name, this.day);
    await this.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) return;
      tx.update(path, { used: Math.max(0, Number(doc.data.used ?? 0) - n) });
    });
  }

  private async reserve(want: number): Promise<void> {
    const limit = this.limit!;
    const now = this.now();
    const day = jerusalemDay(now);
    const path = counterPath(this.businessId, this.name, day);
    const granted = await this.store.runTransaction(async (tx) => {
      const used = Number((await tx.get(path))?.data.used ?? 0);
      const n = Math.min(want, limit - used);
      if (n <= 0) throw exhausted(this.name, limit, day, now);
      tx.set(path, counterDoc(this.name, day, used + n, limit));
      return n;
    });
    this.left = granted;
    this.day = day;
    this.dayEndsAt = now + msToJerusalemMidnight(now);
  }
}
