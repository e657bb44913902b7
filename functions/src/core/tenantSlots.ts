import type { Services } from './context.ts';
import { taskTenant } from '../ports/tasks.ts';

/**
 * The per-business cap on Cloud Tasks (core/queueLimits.ts): a task holds a slot in `_taskSlots/{queue}_{business}`
 * while it runs. One that finds its business's slots taken is put back with a delay, as a new task whose id derives
 * from the first one's, and its own dispatch ends (no retry attempt is spent). A slot whose holder died lapses after
 * `leaseMs`.
 */
export const slotPath = (queue: string, tenant: string) => `_taskSlots/${queue}_${tenant}`;
/** How long a deferred task waits before it asks again. */
export const DEFER_S = 20;

/** The tasks holding a slot, each with when its hold lapses (unix ms). One small record per queue and business. */
interface SlotDoc {
  holders: Record<string, number>;
}

export async function withTenantSlot(
  s: Pick<Services, 'store' | 'tasks' | 'clock'>,
  t: { queue: string; taskId: string; payload: Record<string, unknown>; cap: number; leaseMs: number },
  run: () => Promise<void>,
): Promise<'ran' | 'deferred'> {
  const tenant = taskTenant(t.payload);
  if (!t.cap || !tenant) {
    await run();
    return 'ran';
  }
  const path = slotPath(t.queue, tenant);
  const held = await s.store.runTransaction(async (tx) => {
    const now = s.clock.now();
    const cur = (await tx.get(path))?.data as unknown as SlotDoc | undefined;
    const holders = Object.fromEntries(Object.entries(cur?.holders ?? {}).filter(([id, until]) => until > now && id !== t.taskId));
    if (Object.keys(holders).length >= t.cap) return false;
    holders[t.taskId] = now + t.leaseMs;
    tx.set(path, { holders });
    return true;
  });
  if (!held) {
    const root = typeof t.payload._deferredFrom === 'string' ? t.payload._deferredFrom : t.taskId;
    const n = (Number(t.payload._deferrals) || 0) + 1;
    await s.tasks.enqueue(t.queue, { ...t.payload, _deferredFrom: root, _deferrals: n }, { id: `${root}-wait${n}`, delaySeconds: DEFER_S });
    return 'deferred';
  }
  try {
    await run();
  } finally {
    await s.store.runTransaction(async (tx) => {
      const cur = (await tx.get(path))?.data as unknown as SlotDoc | undefined;
      if (!cur?.holders?.[t.taskId]) return;
      const { [t.taskId]: _mine, ...rest } = cur.holders;
      tx.set(path, { holders: rest });
    });
  }
  return 'ran';
}
