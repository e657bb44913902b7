import type { Config } from '../config.ts';
import type { DocStore, Meter, Transaction } from '../ports/store.ts';
import type { TaskQueue } from '../ports/tasks.ts';
import type { OutboundMessage } from '../ports/outbox.ts';
import type { Clock } from './clock.ts';
import type { IdSource } from './ids.ts';
import type { Logger } from './logger.ts';
import type { Files } from './files.ts';
import type { Ai } from '../ports/ai.ts';

export type Role = 'admin' | 'user';

/** Who a request acts as: the key's creator, with that user's current role. */
export interface Caller {
  businessId: string;
  userId: string;
  email: string;
  role: Role;
  keyName: string;
  /** The key's hash (its record id), when a key made the call. */
  keyId?: string;
  /** The Firebase Auth uid, when a dashboard ID token made the call. */
  firebaseUid?: string;
}

/** Process-wide services, built once (app.ts). */
export interface Services {
  config: Config;
  store: DocStore;
  files: Files;
  tasks: TaskQueue;
  ai: Ai;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
}

/** What an operation handler receives. Handlers never see HTTP or MCP objects. */
export interface Ctx extends Services {
  caller: Caller;
  requestId: string;
  meter: Meter;
  /** Stage an outbound message inside `tx`; it is delivered by a task after the operation succeeds. A fixed `id` lets a retry find it staged. */
  outbox(tx: Transaction, message: OutboundMessage, meta?: { reason?: string; ref?: string; id?: string }): string;
  /** Charge a daily per-business quota; throws `resource-exhausted` when used up. */
  consumeQuota(name: string, amount?: number): Promise<void>;
}
