import type { Services } from './context.ts';
import { enqueueDelivery, type OutboxRecord } from './outbox.ts';

/** A pending record with no delivery attempt for this long lost its task (never enqueued, or the task died). */
export const SWEEP_QUIET_MS = 15 * 60_000;
const PAGE = 200;

/**
 * Re-queues pending outbox records whose last attempt is older than `quietMs`, oldest first, page by
 * page until none is left (no fixed cap, so old stuck records never starve new ones). Each re-queue
 * bumps the record's generation, so the task id is new and the queue cannot swallow it as a duplicate.
 */
export async function sweepOutbox(services: Services, quietMs = SWEEP_QUIET_MS): Promise<number> {
  const { store, tasks, clock } = services;
  const cutoff = clock.now() - quietMs;
  let n = 0;
  // Each re-queued record leaves the result (its lastAttemptAtMs moves past the cutoff), so the same query pages on.
  for (;;) {
    const page = await store.query({
      collection: 'outbox',
      group: true,
      where: [['status', '==', 'pending'], ['lastAttemptAtMs', '<=', cutoff]],
      orderBy: [['lastAttemptAtMs', 'asc']],
      limit: PAGE,
    });
    for (const doc of page) {
      const generation = await store.runTransaction(async (tx) => {
        const fresh = await tx.get(doc.path);
        const r = fresh?.data as unknown as OutboxRecord | undefined;
        if (!r || r.status !== 'pending' || (r.lastAttemptAtMs ?? r.createdAtMs) > cutoff) return null;
        const next = (r.generation ?? 0) + 1;
        // Marks the re-queue as an attempt, so the next sweep waits for this task's own retries.
        tx.update(doc.path, { generation: next, lastAttemptAtMs: clock.now() });
        return next;
      });
      if (generation === null) continue;
      await enqueueDelivery(tasks, doc.path, generation);
      n++;
    }
    if (page.length < PAGE) return n;
  }
}
