import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOUD_QUEUE_LIMITS } from '../../functions/src/core/queueLimits.ts';
import { OUTBOX_QUEUE } from '../../functions/src/core/outbox.ts';

/** What `firebase deploy` reads from the functions entry: each task queue with its own dispatch limit (issue 20). */
test('every task-queue function deploys with its own maxConcurrentDispatches; deliveries never share a queue with provider calls', async () => {
  const entry = (await import('../../functions/src/index.ts')) as Record<string, { __endpoint?: { taskQueueTrigger?: { rateLimits?: { maxConcurrentDispatches?: number } } } }>;
  const queues = Object.keys(entry).filter((k) => entry[k]?.__endpoint?.taskQueueTrigger);
  assert.deepEqual(queues.sort(), Object.keys(CLOUD_QUEUE_LIMITS).sort(), 'every queue has its limits');
  for (const q of queues) {
    assert.equal(entry[q].__endpoint!.taskQueueTrigger!.rateLimits?.maxConcurrentDispatches, CLOUD_QUEUE_LIMITS[q].maxConcurrentDispatches, q);
  }
  assert.equal(CLOUD_QUEUE_LIMITS[OUTBOX_QUEUE].maxConcurrentDispatches, 50);
  for (const q of ['statementSync', 'mailboxImportBatch', 'automationMailboxPoll']) {
    const l = CLOUD_QUEUE_LIMITS[q];
    assert.ok(l.perBusiness > 0 && l.perBusiness < l.maxConcurrentDispatches, `${q}: one business holds only part of the queue`);
  }
});
