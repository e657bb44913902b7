import type { Services } from './context.ts';
import { enqueueDelivery } from './outbox.ts';

/** Re-enqueues pending outbox records older than `minAgeMs` (lost between commit and enqueue). */
export async function sweepOutbox(services: Services, minAgeMs = 60_000): Promise<number> {
  const pending = await services.store.query({
    collection: 'outbox',
    group: true,
    where: [['status', '==', 'pending'], ['createdAtMs', '<=', services.clock.now() - minAgeMs]],
    orderBy: [['createdAtMs', 'asc']],
    limit: 200,
  });
  for (const doc of pending) await enqueueDelivery(services.tasks, doc.path);
  return pending.length;
}
