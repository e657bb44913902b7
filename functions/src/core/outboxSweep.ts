import type { Services } from './context.ts';
import { enqueueDelivery, type OutboxRecord } from './outbox.ts';

/** A pending record whose next attempt is this long overdue lost its task (never enqueued, or the task died). */
export const SWEEP_QUIET_MS = 15 * 60_000;
const PAGE = 200;

/**
 * Re-queues pending outbox records whose next attempt is due for more than `quietMs` (a retry waiting out its delay is
 * left alone; one whose task was lost is taken up, whatever the queue's own attempt cap did), oldest first, page by
 * page until none is left (no fixed cap, so old stuck records never starve new ones). Each re-queue
 * bumps the record's generation, so the task id is new and the queue cannot swallow it as a duplicate.
 */
export async function sweepOutbox(services: Services, quietMs = SWEEP_QUIET_MS): Promise<number> {
  const { store, clock } = services;
  const cutoff = clock.now() - quietMs;
  let n = 0;
  // Each re-queued record leaves the result (its nextAttemptAtMs moves past the cutoff), so the same query pages on.
  for (;;) {
    const page = await store.query({
      collection: 'outbox',
      group: true,
      where: [['status', '==', 'pending'], ['nextAttemptAtMs', '<=', cutoff]],
      orderBy: [['nextAttemptAtMs', 'asc']],
      limit: PAGE,
    });
    for (const doc of page) {
      if (await requeue(services, doc.path, (r) => (r.nextAttemptAtMs ?? r.createdAtMs) <= cutoff)) n++;
    }
    if (page.length < PAGE) break;
  }
  return n + (await sweepLegacy(services, cutoff));
}

/**
 * Records staged before the retry schedule (issue 34) carry no `nextAttemptAtMs`, so the query above never finds them;
 * a dead task would strand them. They are found by their last attempt instead, paged by cursor (records of the new
 * schedule also match and are left alone), and re-queued under the schedule.
 */
async function sweepLegacy(services: Services, cutoff: number): Promise<number> {
  const { store } = services;
  let n = 0;
  let after: unknown[] | undefined;
  for (;;) {
    const page = await store.query({
      collection: 'outbox',
      group: true,
      where: [['status', '==', 'pending'], ['lastAttemptAtMs', '<=', cutoff]],
      orderBy: [['lastAttemptAtMs', 'asc']],
      ...(after ? { startAfter: after } : {}),
      limit: PAGE,
    });
    for (const doc of page) {
      if ((doc.data as unknown as OutboxRecord).nextAttemptAtMs !== undefined) continue;
      if (await requeue(services, doc.path, (r) => r.nextAttemptAtMs === undefined)) n++;
    }
    if (page.length < PAGE) return n;
    after = [(page[page.length - 1].data as unknown as OutboxRecord).lastAttemptAtMs];
  }
}

/**
 * Re-queues one pending record that `lost` its task (checked again inside the transaction) under a new generation, so
 * the task id is new. Due now: the next sweep waits for this task (and its own retries) before looking again.
 */
async function requeue({ store, tasks, clock }: Services, path: string, lost: (r: OutboxRecord) => boolean): Promise<boolean> {
  const taken = await store.runTransaction(async (tx) => {
    const r = (await tx.get(path))?.data as unknown as OutboxRecord | undefined;
    if (!r || r.status !== 'pending' || !lost(r)) return null;
    const next = (r.generation ?? 0) + 1;
    tx.update(path, { generation: next, nextAttemptAtMs: clock.now() });
    return { next, channel: r.channel };
  });
  if (!taken) return false;
  await enqueueDelivery(tasks, path, taken.channel, taken.next);
  return true;
}
