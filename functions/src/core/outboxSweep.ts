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
  const { store, tasks, clock } = services;
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
      const generation = await store.runTransaction(async (tx) => {
        const fresh = await tx.get(doc.path);
        const r = fresh?.data as unknown as OutboxRecord | undefined;
        if (!r || r.status !== 'pending' || (r.nextAttemptAtMs ?? r.createdAtMs) > cutoff) return null;
        const next = (r.generation ?? 0) + 1;
        // Due now: the next sweep waits for this task (and its own retries) before looking again.
        tx.update(doc.path, { generation: next, nextAttemptAtMs: clock.now() });
        return { next, channel: r.channel };
      });
      if (generation === null) continue;
      await enqueueDelivery(tasks, doc.path, generation.channel, generation.next);
      n++;
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
  const { store, tasks, clock } = services;
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
      const taken = await store.runTransaction(async (tx) => {
        const r = (await tx.get(doc.path))?.data as unknown as OutboxRecord | undefined;
        if (!r || r.status !== 'pending' || r.nextAttemptAtMs !== undefined) return null;
        const next = (r.generation ?? 0) + 1;
        tx.update(doc.path, { generation: next, nextAttemptAtMs: clock.now() });
        return { next, channel: r.channel };
      });
      if (!taken) continue;
      await enqueueDelivery(tasks, doc.path, taken.channel, taken.next);
      n++;
    }
    if (page.length < PAGE) return n;
    after = [(page[page.length - 1].data as unknown as OutboxRecord).lastAttemptAtMs];
  }
}
