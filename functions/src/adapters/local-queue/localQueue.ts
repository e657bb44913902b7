import type { DocStore } from '../../ports/store.ts';
import type { TaskHandler, TaskQueue } from '../../ports/tasks.ts';
import type { Logger } from '../../core/logger.ts';
import { newId } from '../../core/ids.ts';

/**
 * A durable queue kept in the embedded store (`_tasks/{id}`): tasks survive a restart,
 * are leased while running and retried with exponential backoff.
 */
export interface LocalQueue extends TaskQueue {
  start(): void;
  stop(): Promise<void>;
  /** Runs every due task now; returns how many ran (tests and the admin CLI use it). */
  drain(): Promise<number>;
}

interface TaskDoc {
  queue: string;
  payload: Record<string, unknown>;
  state: 'queued' | 'done' | 'dead';
  runAt: number;
  attempts: number;
  lastError: string | null;
  createdAt: number;
}

const MAX_ATTEMPTS = 8;
const LEASE_MS = 5 * 60_000;
const backoffMs = (attempt: number) => Math.min(60 * 60_000, 1000 * 2 ** attempt);

export function localQueue(store: DocStore, handlers: Record<string, TaskHandler>, logger: Logger, now = () => Date.now(), pollMs = 500, concurrency = 4): LocalQueue {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function claimOne(path: string): Promise<{ path: string; task: TaskDoc } | null> {
    return store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) return null;
      const task = doc.data as unknown as TaskDoc;
      if (task.state !== 'queued' || task.runAt > now()) return null;
      // The lease: another worker (another process on the same store) will not see it as due until it expires.
      tx.update(path, { runAt: now() + LEASE_MS, attempts: task.attempts + 1 });
      return { path, task: { ...task, attempts: task.attempts + 1 } };
    });
  }

  /** The oldest due task this worker wins; a task another worker took first is skipped, not the end of the drain. */
  async function claim(): Promise<{ path: string; task: TaskDoc } | null> {
    for (;;) {
      const due = await store.query({ collection: '_tasks', where: [['state', '==', 'queued'], ['runAt', '<=', now()]], orderBy: [['runAt', 'asc']], limit: concurrency + 1 });
      if (!due.length) return null;
      for (const d of due) {
        const claimed = await claimOne(d.path);
        if (claimed) return claimed;
      }
    }
  }

  async function runOne(): Promise<boolean> {
    const claimed = await claim();
    if (!claimed) return false;
    const { path, task } = claimed;
    const handler = handlers[task.queue];
    try {
      if (!handler) throw new Error(`no handler for queue ${task.queue}`);
      await handler(task.payload);
      await store.update(path, { state: 'done', lastError: null, expireAtMs: now() + 7 * 86_400_000 });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const dead = task.attempts >= MAX_ATTEMPTS;
      await store.update(path, { state: dead ? 'dead' : 'queued', runAt: now() + backoffMs(task.attempts), lastError: message.slice(0, 500) });
      logger[dead ? 'error' : 'warn'](dead ? 'task gave up' : 'task failed; will retry', { queue: task.queue, path, attempt: task.attempts, error: message });
    }
    return true;
  }

  /** `concurrency` workers claim due tasks until none is left (a claim is a transaction, so no task runs twice). */
  async function drainLoop(): Promise<number> {
    let n = 0;
    const worker = async () => {
      while (await runOne()) n++;
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
    return n;
  }

  const drain = () => {
    // One drain at a time per process; callers share the running one.
    running ??= drainLoop().finally(() => (running = undefined));
    return running;
  };

  return {
    async enqueue(queue, payload, opts = {}) {
      const id = opts.id ? opts.id.replace(/[^A-Za-z0-9_-]/g, '_') : newId();
      const doc: TaskDoc = { queue, payload, state: 'queued', runAt: now() + (opts.delaySeconds ?? 0) * 1000, attempts: 0, lastError: null, createdAt: now() };
      if (opts.id) {
        try {
          await store.create(`_tasks/${id}`, { ...doc });
        } catch (e) {
          if ((e as { code?: string }).code !== 'already-exists') throw e;
        }
      } else {
        await store.set(`_tasks/${id}`, { ...doc });
      }
      if (timer) setImmediate(() => void drain().catch((e) => logger.error('local queue failed', { error: String(e) })));
    },
    start() {
      if (timer) return;
      timer = setInterval(() => void drain().catch((e) => logger.error('local queue failed', { error: String(e) })), pollMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
    drain,
  };
}
