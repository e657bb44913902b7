import { ApiError } from './errors.ts';
import { parseInput } from './validate.ts';
import { appendActivity } from './activity.ts';
import { consumeQuota } from './quota.ts';
import { enqueueDelivery, stageMessage } from './outbox.ts';
import type { AnyOperation } from './defineOperation.ts';
import type { Caller, Ctx, Services } from './context.ts';
import type { DocStore, Meter } from '../ports/store.ts';

export interface Execution {
  result: unknown;
  meter: Meter;
}

/**
 * Runs one operation for one caller: the role check, input validation, the handler,
 * then the activity row and the delivery of staged messages. Shared by every surface.
 */
export async function execute(
  op: AnyOperation,
  rawInput: unknown,
  caller: Caller,
  services: Services,
  requestId: string,
  meter: Meter = { reads: 0, writes: 0 },
  /** The request's metered store when the surface already made one (it authenticated with it). */
  meteredStore?: DocStore,
): Promise<Execution> {
  if (op.flags.adminOnly && caller.role !== 'admin') {
    throw new ApiError('permission-denied', `${op.name} requires the admin role; this key acts as a ${caller.role}`);
  }
  const input = parseInput(op.input, rawInput ?? {});
  const store = meteredStore ?? services.store.metered(meter);
  const staged: string[] = [];
  const ctx: Ctx = {
    ...services,
    store,
    caller,
    requestId,
    meter,
    outbox(tx, message, meta) {
      const path = stageMessage(tx, caller.businessId, services.ids(), message, meta?.reason ?? op.name, services.clock.now(), meta?.ref ?? null, services.config.credentialsKey);
      staged.push(path);
      return path;
    },
    consumeQuota(name, amount = 1) {
      return consumeQuota(store, services.config.quotas, caller.businessId, name, amount, services.clock.now());
    },
  };
  const result = await op.run(input, ctx);
  if (services.config.validateOutput) {
    const checked = op.output.safeParse(result);
    if (!checked.success) throw new Error(`${op.name} returned a result outside its output schema: ${checked.error.message}`);
  }
  // The operation has committed: from here on nothing may turn it into an error for the caller.
  // Messages go first (a staged record whose transaction was retried away is simply not found by the task).
  for (const path of staged) {
    try {
      await enqueueDelivery(services.tasks, path);
    } catch (e) {
      services.logger.error('could not enqueue outbox delivery; the outbox sweep re-queues it', { path, error: String(e) });
    }
  }
  if (!op.flags.readOnly) {
    try {
      const note = op.activity?.(input, result) ?? { targetIds: [], summary: op.name };
      await appendActivity(store, services.ids, caller, services.clock.now(), { operation: op.name, ...note });
    } catch (e) {
      services.logger.error('could not write the activity row of a committed operation', { operation: op.name, requestId, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return { result, meter };
}
