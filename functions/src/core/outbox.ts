import type { DocStore, Transaction } from '../ports/store.ts';
import type { OutboundMessage, Sender } from '../ports/outbox.ts';
import type { TaskQueue } from '../ports/tasks.ts';
import type { Logger } from './logger.ts';

export const OUTBOX_QUEUE = 'outboxDeliver';

export type OutboxStatus = 'pending' | 'delivered' | 'undelivered';

export interface OutboxRecord {
  id: string;
  businessId: string;
  channel: OutboundMessage['channel'];
  to: string;
  message: OutboundMessage;
  reason: string;
  status: OutboxStatus;
  attempts: number;
  createdAt: string;
  /** Unix ms, for the sweeper's range query. */
  createdAtMs: number;
  deliveredAt: string | null;
  lastError: string | null;
  providerId: string | null;
}

export const outboxPath = (businessId: string, id: string) => `businesses/${businessId}/outbox/${id}`;

/** Writes the message inside the caller's transaction; delivery happens later, by task. */
export function stageMessage(tx: Transaction, businessId: string, id: string, message: OutboundMessage, reason: string, now: number): string {
  const record: OutboxRecord = {
    id,
    businessId,
    channel: message.channel,
    to: message.to,
    message,
    reason,
    status: 'pending',
    attempts: 0,
    createdAt: new Date(now).toISOString(),
    createdAtMs: now,
    deliveredAt: null,
    lastError: null,
    providerId: null,
  };
  const path = outboxPath(businessId, id);
  tx.set(path, { ...record });
  return path;
}

export async function enqueueDelivery(tasks: TaskQueue, path: string): Promise<void> {
  // The task id is the record path: a second enqueue of the same record is a no-op.
  await tasks.enqueue(OUTBOX_QUEUE, { path }, { id: path.replaceAll('/', '_') });
}

export type Senders = { [C in OutboundMessage['channel']]: Sender<Extract<OutboundMessage, { channel: C }>> };

/**
 * Delivers one outbox record. Idempotent: a delivered or undelivered record is left alone.
 * A send failure throws, so the queue retries with backoff.
 */
export async function deliverOutboxRecord(store: DocStore, senders: Senders, logger: Logger, path: string, now: () => number): Promise<OutboxStatus | 'missing'> {
  const doc = await store.get(path);
  if (!doc) return 'missing';
  const record = doc.data as unknown as OutboxRecord;
  if (record.status !== 'pending') return record.status;
  const sender = senders[record.channel] as Sender;
  if (!sender.configured) {
    const reason = `${record.channel} channel is not configured`;
    await store.update(path, { status: 'undelivered', lastError: reason });
    logger.warn('outbox message left undelivered', { path, channel: record.channel, reason });
    return 'undelivered';
  }
  let result;
  try {
    result = await sender.send(record.message, record.id);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    await store.update(path, { attempts: record.attempts + 1, lastError: message.slice(0, 500) });
    logger.warn('outbox delivery failed; will retry', { path, channel: record.channel, error: message });
    throw e;
  }
  if (result.delivered) {
    await store.update(path, { status: 'delivered', attempts: record.attempts + 1, deliveredAt: new Date(now()).toISOString(), providerId: result.providerId ?? null, lastError: null });
    return 'delivered';
  }
  await store.update(path, { status: 'undelivered', attempts: record.attempts + 1, lastError: result.reason });
  logger.warn('outbox message refused by provider', { path, channel: record.channel, reason: result.reason });
  return 'undelivered';
}
