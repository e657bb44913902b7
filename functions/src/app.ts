import { firebaseAppOptions, skipMetadataServerOnEmulators } from './core/firebaseApp.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';
import type { Services } from './core/context.ts';
import type { DocStore } from './ports/store.ts';
import type { FileStore } from './ports/files.ts';
import type { TaskHandler, TaskQueue } from './ports/tasks.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { randomIds, type IdSource } from './core/ids.ts';
import { createLogger, type Logger } from './core/logger.ts';
import { PRIVATE_FILE_MODE, privateDir, privateFile } from './core/privateFs.ts';
import { createFiles } from './core/files.ts';
import { deliverOutboxRecord, OUTBOX_QUEUE, OUTBOX_WHATSAPP_QUEUE, type Senders } from './core/outbox.ts';
import { appendActivity } from './core/activity.ts';
import { runStatementSync, STATEMENT_SYNC_QUEUE } from './domain/statements/statements.ts';
import './adapters/providers.ts';
import { smtpSender } from './adapters/smtp/smtpSender.ts';
import { whatsappSender } from './adapters/whatsapp/whatsappSender.ts';
import { localFiles } from './adapters/local-files/localFiles.ts';
import { localQueue, type LocalQueue } from './adapters/local-queue/localQueue.ts';
import { loadIndexes, type IndexesFile } from './adapters/indexCoverage.ts';
import { geminiAi } from './adapters/gemini/geminiAi.ts';
import type { Ai } from './ports/ai.ts';

export interface App {
  services: Services;
  senders: Senders;
  taskHandlers: Record<string, TaskHandler>;
  /** The local queue when tasks run in-process (null on Cloud Tasks). */
  queue: LocalQueue | null;
  close(): Promise<void>;
}

export interface AppOverrides {
  ai?: Ai;
  clock?: Clock;
  ids?: IdSource;
  logger?: Logger;
  senders?: Partial<Senders>;
}

const INDEXES_FILE = fileURLToPath(new URL('../../firestore.indexes.json', import.meta.url));

function readIndexes(): IndexesFile | undefined {
  return existsSync(INDEXES_FILE) ? loadIndexes(INDEXES_FILE) : undefined;
}

async function openStore(config: Config): Promise<DocStore> {
  skipMetadataServerOnEmulators();
  if (config.store === 'firestore') {
    const [{ firestoreStore }, { getFirestore }, { initializeApp, getApps }] = await Promise.all([
      import('./adapters/firestore/firestoreStore.ts'),
      import('firebase-admin/firestore'),
      import('firebase-admin/app'),
    ]);
    if (!getApps().length) initializeApp(firebaseAppOptions());
    return firestoreStore(getFirestore() as never, { strictIndexes: config.strictIndexes, indexes: readIndexes() });
  }
  const { openSqliteStore } = await import('./adapters/sqlite/sqliteStore.ts');
  privateDir(config.dataDir);
  return openSqliteStore({ file: join(config.dataDir, 'store.sqlite'), indexes: readIndexes(), strictIndexes: config.strictIndexes });
}

async function openFiles(config: Config): Promise<FileStore> {
  if (config.files === 'gcs') {
    const { cloudStorageFiles } = await import('./adapters/cloud-storage/cloudStorageFiles.ts');
    return cloudStorageFiles(config.filesBucket);
  }
  privateDir(config.dataDir);
  return localFiles(join(config.dataDir, 'files'));
}

/** Locally the credentials key lives beside the data; in production it must come from a secret. */
export function credentialsKey(config: Config): string {
  if (config.credentialsKey) return config.credentialsKey;
  if (config.store === 'firestore') throw new Error('CREDENTIALS_KEY is not set');
  const file = join(config.dataDir, 'credentials.key');
  if (!existsSync(file)) {
    privateDir(config.dataDir);
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } else privateFile(file);
  return readFileSync(file, 'utf8').trim();
}

/** Builds the process-wide services from configuration: the one place adapters are chosen. */
export async function createApp(config: Config, overrides: AppOverrides = {}): Promise<App> {
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? randomIds;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = await openStore(config);
  const fileStore = await openFiles(config);
  const files = createFiles(store, fileStore, config.filesUrl, ids, () => clock.now());
  const senders: Senders = {
    email: smtpSender(config.smtpUrl, config.mailFrom, undefined, config.smtpTimeoutMs, (businessId, fileId) => files.readStream(businessId, fileId), config.productName),
    whatsapp: whatsappSender({ baseUrl: config.whatsappBaseUrl, apiVersion: config.whatsappApiVersion, token: config.whatsappToken, phoneNumberId: config.whatsappPhoneNumberId, timeoutMs: config.providerTimeoutMs.whatsapp }),
    ...overrides.senders,
  } as Senders;
  // Email and WhatsApp are delivered by the same handler from two queues, each with its own slots.
  const deliver: TaskHandler = async (payload) => {
    await deliverOutboxRecord(store, senders, logger, String(payload.path), () => clock.now(), {
      maxAttempts: config.outboxMaxAttempts,
      retryDelaysS: config.outboxRetryDelaysS,
      tasks,
      ...(typeof payload.generation === 'number' ? { generation: payload.generation } : {}),
      sealKey: services.config.credentialsKey,
      // The business sees a message that never went out: an activity row naming the recipient and the reason
      // (targetIds: what it was about, then the message itself, so the home screen can offer to send it again).
      onFailed: (r, reason, status) =>
        appendActivity(store, ids, { businessId: r.businessId, userId: 'system', email: '', role: 'user', keyName: 'outbox' }, clock.now(), {
          operation: 'messageFailed',
          kind: 'messages',
          params: { channel: r.channel, to: r.to, refused: status === 'failed' },
          targetIds: r.ref ? [r.ref, r.id] : [r.id],
          summary:
            status === 'failed'
              ? `${r.channel === 'email' ? 'an email' : 'a WhatsApp'} message to ${r.to} (${r.reason}) was refused: ${reason}`
              : `${r.channel === 'email' ? 'an email' : 'a WhatsApp'} message to ${r.to} (${r.reason}) was not sent after ${r.attempts} attempts: ${reason}`,
        }),
      // A month package shows its send as sent or failed where statementsList shows it.
      onSettled: async (r, status, reason) => {
        if (r.reason !== 'statementsSend' && r.reason !== 'automationStatements') return;
        const { settlePackageMessage } = await import('./domain/accountant/monthPackage.ts');
        await settlePackageMessage(store, r, status, reason);
      },
    });
  };
  const taskHandlers: Record<string, TaskHandler> = {
    // Mailbox imports: one batch of message ids (domain/mail/mailImport.ts); loaded on first use.
    mailboxImportBatch: async (payload) => (await import('./domain/mail/mailImport.ts')).runImportBatch(services, payload),
    [OUTBOX_QUEUE]: deliver,
    [OUTBOX_WHATSAPP_QUEUE]: deliver,
    [STATEMENT_SYNC_QUEUE]: (payload) => runStatementSync(services, payload),
    // Automations (domain/automations/automations.ts; loaded on first use): the monthly statements run per business,
    // its completion step, and the mailbox polls.
    automationStatementsRun: async (payload) => (await import('./domain/automations/statementsRun.ts')).runScheduledStatements(services, payload),
    automationStatementsCheck: async (payload) => (await import('./domain/automations/statementsRun.ts')).checkStatementsRun(services, payload),
    automationMailboxPoll: async (payload) => (await import('./domain/automations/mailboxPoll.ts')).runMailboxPoll(services, payload),
    // A supplier's attached invoice, read with AI once on arrival (domain/invoices/supplierInvoices.ts).
    supplierInvoiceRead: async (payload) => (await import('./domain/invoices/supplierInvoices.ts')).readSupplierInvoice(services, payload),
  };
  let tasks: TaskQueue;
  let queue: LocalQueue | null = null;
  if (config.tasks === 'cloud') {
    const { cloudTasks } = await import('./adapters/cloud-tasks/cloudTasks.ts');
    tasks = cloudTasks();
  } else {
    queue = localQueue(store, taskHandlers, logger, () => clock.now(), 500, { concurrency: config.localQueueConcurrency, perBusiness: Math.min(config.localQueuePerBusiness, config.localQueueConcurrency) });
    tasks = queue;
  }
  const resolved = { ...config, credentialsKey: config.store === 'sqlite' ? credentialsKey(config) : config.credentialsKey };
  const ai = overrides.ai ?? geminiAi({ apiKey: config.geminiApiKey, model: config.geminiModel, baseUrl: config.geminiBaseUrl });
  const services: Services = { config: resolved, store, files, tasks, ai, clock, ids, logger };
  return {
    services,
    senders,
    taskHandlers,
    queue,
    async close() {
      await queue?.stop();
      await store.close();
      fileStore.close?.();
    },
  };
}
