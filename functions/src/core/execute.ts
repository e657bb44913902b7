import { ApiError } from './errors.ts';
import { parseInput } from './validate.ts';
import { appendActivity } from './activity.ts';
import { chargeQuota, consumeQuota, messagesExhausted, quotaUsed } from './quota.ts';
import { enqueueDelivery, stageMessage } from './outbox.ts';
import type { OutboundMessage } from '../ports/outbox.ts';
import type { AnyOperation } from './defineOperation.ts';
import type { Caller, Ctx, Services } from './context.ts';
import type { DocStore, Meter, Transaction } from '../ports/store.ts';

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
    // A dashboard sign-in has no key: say who the person is here, not what a key does.
    const who = caller.firebaseUid ? `you are signed in as a ${caller.role} of this business` : `this key acts as a ${caller.role}`;
    throw new ApiError('permission-denied', `${op.name} requires the admin role; ${who}. Ask an admin of the business`, { reason: 'adminOnly' });
  }
  const input = parseInput(op.input, rawInput ?? {});
  const store = meteredStore ?? services.store.metered(meter);
  const staged: { path: string; channel: OutboundMessage['channel'] }[] = [];
  // The daily cap on outgoing messages: the operations that send (every one is openWorld) read the day's count first,
  // so staging one past the cap throws inside their transaction and nothing commits.
  const messageCap = services.config.quotas.messages;
  const sentToday = messageCap !== undefined && op.flags.openWorld && !op.flags.readOnly ? await quotaUsed(store, caller.businessId, 'messages', services.clock.now()) : 0;
  const stagedInTx = new WeakMap<Transaction, number>();
  const ctx: Ctx = {
    ...services,
    store,
    caller,
    requestId,
    meter,
    outbox(tx, message, meta) {
      if (messageCap !== undefined) {
        const n = (stagedInTx.get(tx) ?? 0) + 1;
        if (sentToday + n > messageCap) throw messagesExhausted(messageCap, services.clock.now());
        stagedInTx.set(tx, n);
      }
      const path = stageMessage(tx, caller.businessId, meta?.id ?? services.ids(), message, meta?.reason ?? op.name, services.clock.now(), meta?.ref ?? null, services.config.credentialsKey);
      staged.push({ path, channel: message.channel });
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
  for (const { path, channel } of staged) {
    try {
      await enqueueDelivery(services.tasks, path, channel);
    } catch (e) {
      services.logger.error('could not enqueue outbox delivery; the outbox sweep re-queues it', { path, error: String(e) });
    }
  }
  if (staged.length) {
    // Counted after the commit (a transaction retried under contention counts its messages twice: the cap errs safe).
    await chargeQuota(store, services.config.quotas, caller.businessId, 'messages', staged.length, services.clock.now()).catch((e) =>
      services.logger.error('could not count the messages sent', { operation: op.name, error: String(e) }),
    );
  }
  if (!op.flags.readOnly) {
    try {
      const note = op.activity?.(input, result) ?? { targetIds: [], summary: op.name };
      await appendActivity(store, services.ids, caller, services.clock.now(), { operation: op.name, kind: op.group, ...note });
    } catch (e) {
      services.logger.error('could not write the activity row of a committed operation', { operation: op.name, requestId, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return { result, meter };
}
