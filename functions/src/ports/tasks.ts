/**
 * Task-queue port. Delivery is at least once, so every handler is idempotent.
 * `id` de-duplicates: enqueueing an id that is already queued does nothing.
 */
export interface TaskOptions {
  id?: string;
  delaySeconds?: number;
}

export interface TaskQueue {
  enqueue(queue: string, payload: Record<string, unknown>, opts?: TaskOptions): Promise<void>;
}

/** A queue's handler; throwing makes the queue retry later with backoff. */
export type TaskHandler = (payload: Record<string, unknown>) => Promise<void>;
