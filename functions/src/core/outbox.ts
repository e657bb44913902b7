import { DELETE_FIELD, type DocStore, type Transaction } from '../ports/store.ts';
import { seal, unseal } from './secrets.ts';
import type { OutboundMessage, Sender } from '../ports/outbox.ts';
import type { TaskQueue } from '../ports/tasks.ts';
import type { Logger } from './logger.ts';
import { DEFAULT_OUTBOX_RETRY_DELAYS_S } from '../config.ts';
import { OUTBOX_QUEUE, OUTBOX_WHATSAPP_QUEUE } from './queueLimits.ts';

export { OUTBOX_QUEUE, OUTBOX_WHATSAPP_QUEUE };
/** Email and WhatsApp are delivered from queues of their own, so a hanging channel never takes the other's slots. */
export const outboxQueue = (channel: OutboundMessage['channel']) => (channel === 'whatsapp' ? OUTBOX_WHATSAPP_QUEUE : OUTBOX_QUEUE);


/**
 * pending → delivered | undelivered (not sent: the channel is not configured, or it still failed after the whole retry
 * schedule; sending again may work) | failed (the provider refused it for good, e.g. an SMTP 5xx to RCPT TO).
 */
export type OutboxStatus = 'pending' | 'delivered' | 'undelivered' | 'failed';
const FINAL_KEPT_MS = 90 * 86_400_000;
export const FINAL_STATUSES: readonly OutboxStatus[] = ['delivered', 'undelivered', 'failed'];

export interface OutboxRecord {
  id: string;
  businessId: string;
  channel: OutboundMessage['channel'];
  to: string;
  message: OutboundMessage;
  reason: string;
  /** The record the message is about (e.g. a payment id), so its view can list its messages. */
  ref: string | null;
  status: OutboxStatus;
  attempts: number;
  /** Bumped by each re-queue of the sweep: a task id is never reused, so the queue never swallows it. */
  generation: number;
  createdAt: string;
  /** Unix ms, for the sweeper's range query. */
  createdAtMs: number;
  /** Unix ms of the last delivery attempt (the creation before any). */
  lastAttemptAtMs: number;
  /** Unix ms the next attempt is due (the creation for the first); the sweep re-queues a record long past it. */
  nextAttemptAtMs?: number;
  deliveredAt: string | null;
  failedAt?: string | null;
  lastError: string | null;
  providerId: string | null;
  /** Set once capability links were removed from the stored message (after a final status). */
  redacted?: boolean;
  /** The message's capability links, sealed with the credentials key; `message` holds placeholders for them until delivery. */
  sealedSecrets?: string;
}

export const outboxPath = (businessId: string, id: string) => `businesses/${businessId}/outbox/${id}`;

/**
 * Writes the message inside the caller's transaction; delivery happens later, by task. With `sealKey` (the credentials
 * key), its capability links are sealed apart and the stored message holds placeholders: the store never holds a
 * working link in clear, not even in SQLite's WAL or free pages after the record is redacted (docs/decisions.md).
 */
export function stageMessage(tx: Transaction, businessId: string, id: string, message: OutboundMessage, reason: string, now: number, ref: string | null, sealKey: string): string {
  const sealed = sealKey ? sealSecrets(message, sealKey) : { message };
  const record: OutboxRecord = {
    id,
    businessId,
    channel: message.channel,
    to: message.to,
    message: sealed.message,
    ...(sealed.sealedSecrets ? { sealedSecrets: sealed.sealedSecrets } : {}),
    reason,
    ref,
    status: 'pending',
    attempts: 0,
    generation: 0,
    createdAt: new Date(now).toISOString(),
    createdAtMs: now,
    lastAttemptAtMs: now,
    nextAttemptAtMs: now,
    deliveredAt: null,
    lastError: null,
    providerId: null,
  };
  const path = outboxPath(businessId, id);
  tx.set(path, { ...record });
  return path;
}

/** The task id of one delivery generation: a re-queue after a dead task gets a fresh one. */
export const deliveryTaskId = (path: string, generation = 0) => `${path.replaceAll('/', '_')}_g${generation}`;

export async function enqueueDelivery(tasks: TaskQueue, path: string, channel: OutboundMessage['channel'], generation = 0, delaySeconds = 0): Promise<void> {
  // The id is the record path and generation: a second enqueue of the same generation is a no-op.
  await tasks.enqueue(outboxQueue(channel), { path, generation }, { id: deliveryTaskId(path, generation), ...(delaySeconds > 0 ? { delaySeconds } : {}) });
}

export type Senders = { [C in OutboundMessage['channel']]: Sender<Extract<OutboundMessage, { channel: C }>> };

/**
 * Capability secrets (invite tokens, supplier links, file links: 43 base64url characters) are removed
 * from a message once it is final: the store keeps what was sent, not a working link.
 */
const SECRET = /[A-Za-z0-9_-]{43}/g;
/** Where a sealed secret was taken out of a staged message. */
const PLACEHOLDER = /\{\{sealed:(\d{1,3})\}\}/g;

/** The text fields of a message that may carry a capability link, each through `f`. */
function mapLinkFields(m: OutboundMessage, f: (s: string, field: 'text' | 'button') => string): OutboundMessage {
  if (m.channel === 'email') return { ...m, text: f(m.text, 'text'), ...(m.html !== undefined ? { html: f(m.html, 'text') } : {}) };
  return m.urlButtonParam === undefined ? m : { ...m, urlButtonParam: f(m.urlButtonParam, 'button') };
}

export function redactMessage(m: OutboundMessage): OutboundMessage {
  return mapLinkFields(m, (s, field) => {
    const removed = field === 'text' ? '[link removed after delivery]' : '[removed]';
    return s.replace(PLACEHOLDER, removed).replace(SECRET, removed);
  });
}

/** Takes the capability secrets out of a message: placeholders in their place, the secrets sealed together. */
export function sealSecrets(m: OutboundMessage, key: string): { message: OutboundMessage; sealedSecrets?: string } {
  const secrets: string[] = [];
  const message = mapLinkFields(m, (s) =>
    s.replace(SECRET, (tok) => {
      const i = secrets.indexOf(tok) >= 0 ? secrets.indexOf(tok) : secrets.push(tok) - 1;
      return `{{sealed:${i}}}`;
    }),
  );
  if (!secrets.length) return { message: m };
  return { message, sealedSecrets: seal(Object.fromEntries(secrets.map((t, i) => [String(i), t])), key) };
}

/** The message as it is sent: the sealed secrets put back. */
export function unsealMessage(r: Pick<OutboxRecord, 'message' | 'sealedSecrets'>, key: string): OutboundMessage {
  if (!r.sealedSecrets) return r.message;
  const secrets = unseal(r.sealedSecrets, key);
  return mapLinkFields(r.message, (s) =>
    // A placeholder-looking text the message itself carried (a description) has no secret: it stays as written.
    s.replace(PLACEHOLDER, (ph, i: string) => (Object.hasOwn(secrets, i) ? secrets[i] : ph)),
  );
}

export interface DeliveryOptions {
  /** Attempts before a message that keeps failing ends `undelivered` (default: one more than the delays). */
  maxAttempts?: number;
  /** Seconds before each retry; the last one repeats. */
  retryDelaysS?: number[];
  /** Where the next attempt is queued (the sweep finds it when absent or when the enqueue fails). */
  tasks?: TaskQueue;
  /** The generation of the task that runs this delivery: a task the record has moved past does nothing. */
  generation?: number;
  /** Told when a message ends refused (`failed`) or still failing after the schedule (`undelivered`), so the business sees it. */
  onFailed?: (record: OutboxRecord, reason: string, status: 'failed' | 'undelivered') => Promise<void>;
  /** Told once a message is final (delivered, undelivered or failed), so what it was sent for can show the outcome. */
  onSettled?: (record: OutboxRecord, status: Exclude<OutboxStatus, 'pending'>, reason: string | null) => Promise<void>;
  /** The credentials key that sealed the message's links (stageMessage). */
  sealKey?: string;
}

/**
 * Delivers one outbox record. Idempotent: a record in a final status is left alone.
 * A passing failure (no connection, a timeout, an SMTP 4xx, a WhatsApp 5xx) queues the next attempt itself after the schedule's
 * delay, with a new generation, and returns `pending`: neither the queue's backoff nor its attempt cap decides how long a
 * message is tried. Past the schedule it ends `undelivered`; a permanent refusal ends `failed` at once.
 */
export async function deliverOutboxRecord(
  store: DocStore,
  senders: Senders,
  logger: Logger,
  path: string,
  now: () => number,
  opts: DeliveryOptions = {},
): Promise<OutboxStatus | 'missing'> {
  const doc = await store.get(path);
  if (!doc) return 'missing';
  const record = doc.data as unknown as OutboxRecord;
  if (record.status !== 'pending') return record.status;
  // A task of an older generation (the sweep or a retry queued a newer one) leaves the record to that one.
  if (opts.generation !== undefined && opts.generation !== (record.generation ?? 0)) return 'pending';
  // A final record stays 90 days (the payment lists it), then TTL deletes it.
  const final = async (status: Exclude<OutboxStatus, 'pending'>, fields: Record<string, unknown> & { lastError: string | null }) => {
    await store.update(path, {
      ...fields,
      status,
      message: redactMessage(record.message),
      redacted: true,
      sealedSecrets: DELETE_FIELD,
      lastAttemptAtMs: now(),
      expireAt: new Date(now() + FINAL_KEPT_MS).toISOString(),
      expireAtMs: now() + FINAL_KEPT_MS,
    } as never);
    await opts.onSettled?.(record, status, fields.lastError).catch((err) => logger.error('could not record a message outcome', { path, error: String(err) }));
  };
  const sender = senders[record.channel] as Sender;
  if (!sender.configured) {
    const reason = `${record.channel} channel is not configured`;
    await final('undelivered', { lastError: reason });
    logger.warn('outbox message left undelivered', { path, channel: record.channel, reason });
    return 'undelivered';
  }
  const attempts = (record.attempts ?? 0) + 1;
  const notSent = async (status: 'failed' | 'undelivered', message: string) => {
    await final(status, { attempts, lastError: message, failedAt: new Date(now()).toISOString() });
    logger.error(status === 'failed' ? 'outbox message refused by the provider' : 'outbox message not sent after its retries', { path, channel: record.channel, attempts, error: message });
    await opts.onFailed?.({ ...record, attempts }, message, status).catch((err) => logger.error('could not record a failed message', { path, error: String(err) }));
    return status;
  };
  let result;
  try {
    result = await sender.send(unsealMessage(record, opts.sealKey ?? ''), record.id);
  } catch (e) {
    const message = (e instanceof Error ? e.message : String(e)).slice(0, 500);
    const delays = opts.retryDelaysS?.length ? opts.retryDelaysS : DEFAULT_OUTBOX_RETRY_DELAYS_S;
    if (attempts >= (opts.maxAttempts ?? delays.length + 1)) return notSent('undelivered', message);
    const delayS = delays[Math.min(attempts - 1, delays.length - 1)];
    const generation = (record.generation ?? 0) + 1;
    await store.update(path, { attempts, generation, lastError: message, lastAttemptAtMs: now(), nextAttemptAtMs: now() + delayS * 1000 });
    logger.warn('outbox delivery failed; will retry', { path, channel: record.channel, attempts, retryInS: delayS, error: message });
    if (opts.tasks) {
      await enqueueDelivery(opts.tasks, path, record.channel, generation, delayS).catch((err) =>
        logger.error('could not queue the next delivery attempt; the outbox sweep re-queues it', { path, error: String(err) }),
      );
    }
    return 'pending';
  }
  if (result.delivered) {
    await final('delivered', { attempts, deliveredAt: new Date(now()).toISOString(), providerId: result.providerId ?? null, lastError: null });
    return 'delivered';
  }
  return notSent('failed', result.reason);
}
