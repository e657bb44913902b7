import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { DocStore } from '../../ports/store.ts';
import { taskTenant, type TaskHandler, type TaskQueue } from '../../ports/tasks.ts';
import type { Logger } from '../../core/logger.ts';
import { newId } from '../../core/ids.ts';

/**
 * A durable queue kept in the embedded store (`_tasks/{id}`): tasks survive a restart,
 * are leased while running and retried with exponential backoff.
 *
 * Fairness (issue 20): every kind of task (queue name) has its own `concurrency` slots, and one business holds at
 * most `perBusiness` of them, so a provider that hangs for one business never holds up messages (the outbox has
 * its own slots) nor another business's work of the same kind.
 *
 * Leases: a claim writes who holds it (host, pid, instance) and keeps it LEASE_MS ahead while the task runs. A task
 * whose holder is known to be gone (a process of this host that no longer exists, or an earlier incarnation with
 * this process's pid) is due again at once; otherwise it is due when the lease lapses.
 */
export interface LocalQueue extends TaskQueue {
  start(): void;
  stop(): Promise<void>;
  /** Runs every due task (within the limits) until none is left and none runs; returns how many it started. */
  drain(): Promise<number>;
}

interface Lease {
  owner: string;
  host: string;
  pid: number;
}

interface TaskDoc {
  queue: string;
  payload: Record<string, unknown>;
  state: 'queued' | 'done' | 'dead';
  runAt: number;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  /** The business the task works for ('' for none): the per-business cap counts it. */
  tenant?: string;
  lease?: Lease | null;
}

export interface LocalQueueLimits {
  /** Tasks of one queue running at once. */
  concurrency: number;
  /** Tasks of one queue running at once for one business. */
  perBusiness: number;
}

const MAX_ATTEMPTS = 8;
export const LEASE_MS = 60_000;
const RENEW_MS = 20_000;
/** How often a running queue looks for tasks whose holder is gone (besides at start). */
const RECLAIM_EVERY_MS = 30_000;
const PAGE = 50;
const MAX_SCAN = 1000;
const backoffMs = (attempt: number) => Math.min(60 * 60_000, 1000 * 2 ** attempt);

/** The queues of this process that are alive: an owner with this pid that is not among them is an earlier incarnation. */
const liveOwners = new Set<string>();

/** Whether the lease's holder is known to be gone (not merely silent): only a process of this host can be checked. */
function holderGone(lease: Lease): boolean {
  if (liveOwners.has(lease.owner)) return false;
  if (lease.host !== hostname()) return false;
  if (lease.pid === process.pid) return true; // this pid, not a live queue of it: a process that ran before this one
  try {
    process.kill(lease.pid, 0); // signal 0 only checks that the process exists
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export function localQueue(
  store: DocStore,
  handlers: Record<string, TaskHandler>,
  logger: Logger,
  now = () => Date.now(),
  pollMs = 500,
  limits: number | LocalQueueLimits = 4,
): LocalQueue {
  const { concurrency, perBusiness } = typeof limits === 'number' ? { concurrency: limits, perBusiness: Math.max(1, Math.ceil(limits / 2)) } : limits;
  const me: Lease = { owner: `${hostname()}:${process.pid}:${randomUUID()}`, host: hostname(), pid: process.pid };
  liveOwners.add(me.owner);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastReclaim = 0;
  const inFlight = new Map<string, Promise<void>>();
  const byQueue = new Map<string, number>();
  const byTenant = new Map<string, number>();
  const tenantKey = (queue: string, tenant: string) => `${queue}\u0000${tenant}`;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    wake?.();
    wake = null;
  };

  const hasRoom = (queue: string, tenant: string) => (byQueue.get(queue) ?? 0) < concurrency && (!tenant || (byTenant.get(tenantKey(queue, tenant)) ?? 0) < perBusiness);
  const take = (queue: string, tenant: string, d: 1 | -1) => {
    byQueue.set(queue, (byQueue.get(queue) ?? 0) + d);
    if (tenant) byTenant.set(tenantKey(queue, tenant), (byTenant.get(tenantKey(queue, tenant)) ?? 0) + d);
  };

  async function claimOne(path: string): Promise<TaskDoc | null> {
    return store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) return null;
      const task = doc.data as unknown as TaskDoc;
      if (task.state !== 'queued' || task.runAt > now()) return null;
      // The lease: another worker (another process on the same store) will not see it as due until it lapses.
      tx.update(path, { runAt: now() + LEASE_MS, attempts: task.attempts + 1, lease: { ...me } });
      return { ...task, attempts: task.attempts + 1 };
    });
  }

  /** The oldest due task whose queue and business have room, claimed; tasks without room are skipped, not waited on. */
  async function claimNext(): Promise<{ path: string; task: TaskDoc; tenant: string } | null> {
    for (let offset = 0; offset < MAX_SCAN; offset += PAGE) {
      const due = await store.query({ collection: '_tasks', where: [['state', '==', 'queued'], ['runAt', '<=', now()]], orderBy: [['runAt', 'asc']], limit: PAGE, offset });
      for (const d of due) {
        const t = d.data as unknown as TaskDoc;
        const tenant = t.tenant ?? taskTenant(t.payload ?? {});
        if (inFlight.has(d.path) || !hasRoom(t.queue, tenant)) continue;
        // Reserved before the claim's await, so two claims of this process never overfill a slot.
        take(t.queue, tenant, 1);
        let task: TaskDoc | null = null;
        try {
          task = await claimOne(d.path);
        } finally {
          if (!task) take(t.queue, tenant, -1);
        }
        if (task) return { path: d.path, task, tenant };
      }
      if (due.length < PAGE) return null;
    }
    return null;
  }

  function run(path: string, task: TaskDoc, tenant: string): void {
    const handler = handlers[task.queue];
    // The lease is kept ahead while the handler works, so only a stopped worker lets it lapse.
    const renew = setInterval(() => void store.update(path, { runAt: now() + LEASE_MS }).catch(() => undefined), RENEW_MS);
    renew.unref();
    const p = (async () => {
      try {
        if (!handler) throw new Error(`no handler for queue ${task.queue}`);
        await handler(task.payload);
        clearInterval(renew);
        await store.update(path, { state: 'done', lastError: null, lease: null, expireAtMs: now() + 7 * 86_400_000 });
      } catch (e) {
        clearInterval(renew);
        const message = e instanceof Error ? e.message : String(e);
        const dead = task.attempts >= MAX_ATTEMPTS;
        await store.update(path, { state: dead ? 'dead' : 'queued', runAt: now() + backoffMs(task.attempts), lastError: message.slice(0, 500), lease: null }).catch(() => undefined);
        logger[dead ? 'error' : 'warn'](dead ? 'task gave up' : 'task failed; will retry', { queue: task.queue, path, attempt: task.attempts, error: message });
      }
    })().finally(() => {
      inFlight.delete(path);
      take(task.queue, tenant, -1);
      wakeUp();
      if (timer) void fill().catch((e) => logger.error('local queue failed', { error: String(e) }));
    });
    inFlight.set(path, p);
  }

  /** Tasks leased by a holder known to be gone are due again now (their attempt still counts). */
  async function reclaim(): Promise<number> {
    lastReclaim = Date.now();
    const leased = await store.query({ collection: '_tasks', where: [['state', '==', 'queued'], ['runAt', '>', now()]], orderBy: [['runAt', 'asc']], limit: 200 });
    let n = 0;
    for (const d of leased) {
      const lease = (d.data as unknown as TaskDoc).lease;
      if (!lease || inFlight.has(d.path) || !holderGone(lease)) continue;
      const taken = await store.runTransaction(async (tx) => {
        const cur = (await tx.get(d.path))?.data as unknown as TaskDoc | undefined;
        if (!cur || cur.state !== 'queued' || cur.lease?.owner !== lease.owner) return false;
        tx.update(d.path, { runAt: now(), lease: null });
        return true;
      });
      if (taken) {
        n++;
        logger.warn('task taken over from a worker that is gone', { path: d.path, holder: lease.owner });
      }
    }
    return n;
  }

  let filling: Promise<number> | null = null;
  let again = false;
  /** Starts due tasks while slots are free; one fill at a time (a call meanwhile makes it look once more). */
  function fill(): Promise<number> {
    if (filling) {
      again = true;
      return filling;
    }
    filling = (async () => {
      let n = 0;
      if (Date.now() - lastReclaim >= RECLAIM_EVERY_MS) await reclaim();
      do {
        again = false;
        while (!stopped) {
          const c = await claimNext();
          if (!c) break;
          run(c.path, c.task, c.tenant);
          n++;
        }
      } while (again && !stopped);
      return n;
    })().finally(() => (filling = null));
    return filling;
  }

  async function drain(): Promise<number> {
    let n = 0;
    lastReclaim = 0; // a drain looks for tasks of gone workers first
    for (;;) {
      // A fill begun with nothing running saw every slot free: when it starts nothing, nothing is left to run.
      const idle = !inFlight.size;
      const started = await fill();
      n += started;
      if (idle && !started && !inFlight.size) return n;
      if (!inFlight.size) continue;
      // Whatever comes first: a task ends (its slot frees) or a task is enqueued.
      await Promise.race([...inFlight.values(), new Promise<void>((resolve) => (wake = resolve))]);
    }
  }

  return {
    redeliveryMs: LEASE_MS + RECLAIM_EVERY_MS,
    async enqueue(queue, payload, opts = {}) {
      const id = opts.id ? opts.id.replace(/[^A-Za-z0-9_-]/g, '_') : newId();
      const doc: TaskDoc = { queue, payload, state: 'queued', runAt: now() + (opts.delaySeconds ?? 0) * 1000, attempts: 0, lastError: null, createdAt: now(), tenant: taskTenant(payload), lease: null };
      if (opts.id) {
        try {
          await store.create(`_tasks/${id}`, { ...doc });
        } catch (e) {
          if ((e as { code?: string }).code !== 'already-exists') throw e;
        }
      } else {
        await store.set(`_tasks/${id}`, { ...doc });
      }
      wakeUp();
      if (timer) setImmediate(() => void fill().catch((e) => logger.error('local queue failed', { error: String(e) })));
    },
    start() {
      if (timer) return;
      stopped = false;
      lastReclaim = 0; // a start after a crash takes over at once
      timer = setInterval(() => void fill().catch((e) => logger.error('local queue failed', { error: String(e) })), pollMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      stopped = true;
      await filling;
      await Promise.allSettled([...inFlight.values()]);
      liveOwners.delete(me.owner);
    },
    drain,
  };
}
