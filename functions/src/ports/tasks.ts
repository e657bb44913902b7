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
  /**
   * At most how long after its worker stopped (a crash, a kill -9) a task that was running is delivered again.
   * Progress views use it to say when stalled work resumes.
   */
  readonly redeliveryMs: number;
}

/** A queue's handler; throwing makes the queue retry later with backoff. */
export type TaskHandler = (payload: Record<string, unknown>) => Promise<void>;

/** The business a task works for (its payload's businessId, or the business of the record path it names); '' for none. */
export function taskTenant(payload: Record<string, unknown>): string {
  if (typeof payload.businessId === 'string') return payload.businessId;
  const m = typeof payload.path === 'string' ? /^businesses\/([^/]+)\//.exec(payload.path) : null;
  return m ? m[1] : '';
}
