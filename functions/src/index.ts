/**
 * Cloud Functions entry: `api` (every HTTP surface) and one task-queue function per queue.
 * Kept cheap to load: the app, zod and firebase-admin load on the first request or task, and each operation module when a
 * request first names it (operations/loader.ts).
 */
import { randomUUID } from 'node:crypto';
import { onRequest, type Request } from 'firebase-functions/https';
import { onTaskDispatched } from 'firebase-functions/tasks';
import { onSchedule } from 'firebase-functions/scheduler';
import { defineSecret } from 'firebase-functions/params';
import type { App } from './app.ts';
import type { HttpHandler, HttpRequest, HttpResponse } from './surfaces/http/types.ts';
import { CLOUD_QUEUE_LIMITS, OUTBOX_QUEUE, OUTBOX_WHATSAPP_QUEUE, TASK_TIMEOUT_S } from './core/queueLimits.ts';

// Read at load time, so the deploy sees it too: set it in functions/.env, not only in the shell.
const region = process.env.FUNCTIONS_REGION || 'us-central1';

// The emulator would look secrets up in Secret Manager (online) when functions/.secret.local lacks them;
// emulated, they stay plain environment variables instead.
const emulated = process.env.FUNCTIONS_EMULATOR === 'true';
const secret = (name: string) => (emulated ? [] : [defineSecret(name)]);
const CREDENTIALS_KEY = secret('CREDENTIALS_KEY');
const SMTP_URL = secret('SMTP_URL');
const WHATSAPP_TOKEN = secret('WHATSAPP_TOKEN');
const GEMINI_API_KEY = secret('GEMINI_API_KEY');
const ITA_CLIENT_SECRET = secret('ITA_CLIENT_SECRET');
const CHAT_CLIENT_SECRET = secret('CHAT_CLIENT_SECRET');
const MAILBOX_CLIENT_SECRET = secret('MAILBOX_CLIENT_SECRET');
const MARKET_CLIENT_SECRET = secret('MARKET_CLIENT_SECRET');

let app: Promise<App> | undefined;
let http: Promise<HttpHandler> | undefined;

/**
 * The environment the config reads, with base addresses defaulting to where clients reach the functions:
 * the project's Hosting site and the function's own URL (in the emulator, as the emulator hub reports them).
 * PORT is dropped: here it is the runtime's listening port (a socket path in the emulator), not a public address.
 */
async function functionsEnv(env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const project = env.GCLOUD_PROJECT || (JSON.parse(env.FIREBASE_CONFIG || '{}') as { projectId?: string }).projectId || '';
  let origin = `https://${project}.web.app`;
  let direct = `https://${region}-${project}.cloudfunctions.net/api`;
  if (emulated && env.FIREBASE_EMULATOR_HUB && !(env.PUBLIC_ORIGIN && env.DIRECT_URL)) {
    type Listing = Record<string, { host: string; port: number } | undefined>;
    const at = (e: { host: string; port: number }) => `http://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
    try {
      const emulators = (await (await fetch(`http://${env.FIREBASE_EMULATOR_HUB}/emulators`)).json()) as Listing;
      if (emulators.hosting) origin = at(emulators.hosting);
      if (emulators.functions) direct = `${at(emulators.functions)}/${project}/${region}/api`;
    } catch {
      // Without the hub the defaults stay; links are then wrong but the API still answers.
    }
  }
  const { PORT: _port, ...rest } = env;
  return { ...rest, PUBLIC_ORIGIN: env.PUBLIC_ORIGIN || origin, DIRECT_URL: env.DIRECT_URL || `${direct}/v1` };
}

/** One App per instance, built on first use; a failed build is retried by the next call. */
function getApp(): Promise<App> {
  app ??= (async () => {
    const [{ loadConfig }, { createApp }, { emulatorTokensRefusal }, env] = await Promise.all([import('./config.ts'), import('./app.ts'), import('./core/idToken.ts'), functionsEnv(process.env)]);
    // The Auth emulator's unsigned tokens are never trusted here: the service does not start (503) until it is unset.
    const refused = emulatorTokensRefusal(undefined);
    if (refused) throw new Error(refused);
    return createApp(loadConfig(env));
  })();
  app.catch(() => (app = undefined));
  return app;
}

function getHttp(): Promise<HttpHandler> {
  http ??= (async () => {
    // Operation modules load as requests name them (operations/loader.ts): a cold start loads the one it serves.
    const [built, { lazyOperations }, { createHttpHandler }] = await Promise.all([
      getApp(),
      import('./operations/loader.ts'),
      import('./surfaces/http/handler.ts'),
    ]);
    return createHttpHandler(built, lazyOperations());
  })();
  http.catch(() => (http = undefined));
  return http;
}

/**
 * The body as sent. A request with neither Content-Length nor Transfer-Encoding carried none at all.
 * The framework's parsers keep the bytes in rawBody, but skip a request without Content-Type and leave
 * its bytes in the stream (the platform caps a request at 32 MiB, so reading it whole is bounded).
 */
async function readBody(req: Request): Promise<Buffer | undefined> {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return undefined;
  if (req.rawBody) return req.rawBody;
  if (req.readableEnded) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The pre-parsed Express request as the framework-free shape. */
async function toHttpRequest(req: Request): Promise<HttpRequest> {
  const url = req.url || '/';
  const q = url.indexOf('?');
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const path = q === -1 ? url : url.slice(0, q);
  // Loaded with the app (the bundle holds none of it); already in memory by the time a request comes.
  const { isKeyedPath, MAX_BODY_BYTES } = await import('./surfaces/http/types.ts');
  // A body the platform left in the stream is read on the API and MCP only once the key is good (the handler parses
  // a buffered one only then too).
  const later = isKeyedPath(path) && !req.rawBody && !req.readableEnded && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);
  return {
    method: req.method,
    path,
    query: q === -1 ? '' : url.slice(q + 1),
    headers,
    body: later ? undefined : await readBody(req),
    readBody: later
      ? async () => {
          const body = (await readBody(req)) ?? Buffer.alloc(0);
          return body.length > MAX_BODY_BYTES ? 'too-large' : body;
        }
      : undefined,
    remoteAddress: req.socket?.remoteAddress,
  };
}

/** The parts of Express's response used here. */
interface RawResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string | Buffer): unknown;
}

function send(res: RawResponse, out: HttpResponse): void {
  // writeHead/end rather than res.send: no ETag or content-type guessing on top of the handler's answer.
  res.writeHead(out.status, out.headers);
  if (typeof out.body === 'string' || Buffer.isBuffer(out.body)) res.end(out.body);
  else out.body.on('error', () => res.end()).pipe(res as unknown as NodeJS.WritableStream);
}

function unavailable(res: RawResponse, e: unknown): void {
  const requestId = randomUUID();
  console.error(JSON.stringify({ severity: 'ERROR', message: 'api failed to start', requestId, error: e instanceof Error ? e.stack : String(e) }));
  send(res, {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId },
    body: JSON.stringify({ ok: false, error: { code: 'unavailable', message: `service is starting or misconfigured; request id ${requestId}`, details: { reason: 'unavailable' } } }),
  });
}

export const api = onRequest(
  { region, memory: '512MiB', cpu: 1, concurrency: 80, timeoutSeconds: 540, secrets: [...CREDENTIALS_KEY, ...GEMINI_API_KEY, ...ITA_CLIENT_SECRET, ...CHAT_CLIENT_SECRET, ...MAILBOX_CLIENT_SECRET, ...MARKET_CLIENT_SECRET] },
  async (req, res) => {
    let handler: HttpHandler;
    try {
      handler = await getHttp();
    } catch (e) {
      return unavailable(res, e);
    }
    let request: HttpRequest;
    try {
      request = await toHttpRequest(req);
    } catch {
      return void res.end(); // the client went away mid-body
    }
    send(res, await handler(request)); // the handler answers its own errors
  },
);

/**
 * A task-queue function named after its queue; throwing makes Cloud Tasks retry with backoff. Each queue has its own
 * dispatch limit, and the provider-calling ones a cap per business (core/queueLimits.ts, core/tenantSlots.ts).
 */
function taskQueue(queue: string, secrets: ReturnType<typeof defineSecret>[], retryConfig = { maxAttempts: 8, minBackoffSeconds: 10, maxBackoffSeconds: 3600 }) {
  const limits = CLOUD_QUEUE_LIMITS[queue] ?? { maxConcurrentDispatches: 10, perBusiness: 0 };
  return onTaskDispatched(
    {
      region,
      memory: '512MiB',
      timeoutSeconds: TASK_TIMEOUT_S,
      secrets,
      retryConfig,
      rateLimits: { maxConcurrentDispatches: limits.maxConcurrentDispatches },
    },
    async (req) => {
      const [{ taskHandlers, services }, { withTenantSlot }] = await Promise.all([getApp(), import('./core/tenantSlots.ts')]);
      const handler = taskHandlers[queue];
      if (!handler) throw new Error(`no task handler for queue ${queue}`);
      const payload = (req.data ?? {}) as Record<string, unknown>;
      await withTenantSlot(services, { queue, taskId: req.id, payload, cap: limits.perBusiness, leaseMs: (TASK_TIMEOUT_S + 10) * 1000 }, () => handler(payload));
    },
  );
}

// Export names must equal the queue names: firebase-admin enqueues by function name. A test checks they match App.taskHandlers.
// A delivery schedules its own next attempt (core/outbox.ts, about a day); Cloud Tasks retries only a handler that crashed,
// a few times quickly, and the outboxSweep takes up a record whose task gave up.
const OUTBOX_RETRY = { maxAttempts: 5, minBackoffSeconds: 10, maxBackoffSeconds: 300 };
// Both take both secrets: a task queued before the split may carry either channel.
export const outboxDeliver = taskQueue(OUTBOX_QUEUE, [...SMTP_URL, ...WHATSAPP_TOKEN], OUTBOX_RETRY);
export const outboxDeliverWhatsapp = taskQueue(OUTBOX_WHATSAPP_QUEUE, [...SMTP_URL, ...WHATSAPP_TOKEN], OUTBOX_RETRY);
// Statement syncs unseal provider credentials (domain/statements/statements.ts STATEMENT_SYNC_QUEUE); market refreshes its OAuth token.
export const statementSync = taskQueue('statementSync', [...CREDENTIALS_KEY, ...MARKET_CLIENT_SECRET]);
// Mailbox import batches unseal the mailbox token, refresh it and read attachments with AI (domain/mail/mailImport.ts).
export const mailboxImportBatch = taskQueue('mailboxImportBatch', [...CREDENTIALS_KEY, ...MAILBOX_CLIENT_SECRET, ...GEMINI_API_KEY]);
// Automations (domain/automations/automations.ts): the statements run of one business requests syncs (no credentials read),
// its completion step builds the ZIP and stages the email; a mailbox poll refreshes the mailbox token.
export const automationStatementsRun = taskQueue('automationStatementsRun', []);
export const automationStatementsCheck = taskQueue('automationStatementsCheck', []);
export const automationMailboxPoll = taskQueue('automationMailboxPoll', [...CREDENTIALS_KEY, ...MAILBOX_CLIENT_SECRET]);
// Supplier invoices attached on the link page, read with AI on arrival (domain/invoices/supplierInvoices.ts).
export const supplierInvoiceRead = taskQueue('supplierInvoiceRead', [...GEMINI_API_KEY]);

/**
 * Re-queues outbox messages whose delivery task was lost (never enqueued, or dead after its retries
 * while the record still said pending), with a fresh task id per generation. Locally, server.ts runs it.
 */
export const outboxSweep = onSchedule({ region, schedule: 'every 5 minutes', timeoutSeconds: 300, memory: '256MiB' }, async () => {
  const [{ services }, { sweepOutbox }] = await Promise.all([getApp(), import('./core/outboxSweep.ts')]);
  const n = await sweepOutbox(services);
  if (n) services.logger.warn('outbox sweep re-queued lost deliveries', { count: n });
});

/** Generated ZIPs past their lifetime (core/files.ts ZIP_LIFETIME_MS): bytes and record deleted, the link kept answering 410. Locally, server.ts. */
export const filesExpire = onSchedule({ region, schedule: 'every 60 minutes', timeoutSeconds: 300, memory: '256MiB' }, async () => {
  const { services } = await getApp();
  const n = await services.files.purgeExpired();
  if (n) services.logger.info('expired files deleted', { count: n });
});

/** The monthly statements automation: on the 2nd, Israel time, one run per business for the month just closed. Locally, server.ts. */
export const automationsMonthly = onSchedule({ region, schedule: '0 6 2 * *', timeZone: 'Asia/Jerusalem', timeoutSeconds: 300, memory: '256MiB' }, async () => {
  const [{ services }, { scheduleMonthlyStatements }] = await Promise.all([getApp(), import('./domain/automations/statementsRun.ts')]);
  const n = await scheduleMonthlyStatements(services);
  services.logger.info('monthly statements runs queued', { businesses: n });
});

/** Recurring payment requests (domain/recurring/recurring.ts): each schedule's due occurrences, once each. Locally, server.ts. */
export const recurringRun = onSchedule({ region, schedule: 'every 60 minutes', timeoutSeconds: 540, memory: '256MiB' }, async () => {
  const [{ services }, { runRecurring }] = await Promise.all([getApp(), import('./domain/recurring/recurring.ts')]);
  const r = await runRecurring(services);
  if (r.created.length || r.paused.length) services.logger.info('recurring requests made', { created: r.created.length, paused: r.paused.length });
});

/** Reminders (issue 39 §2, domain/reminders/reminders.ts): supplier reminders, the 07:00 digest, run pay-date emails; each acts once when due. Locally, server.ts. */
export const remindersHourly = onSchedule({ region, schedule: '5 * * * *', timeZone: 'Asia/Jerusalem', timeoutSeconds: 540, memory: '256MiB' }, async () => {
  const [{ services }, { runReminders }] = await Promise.all([getApp(), import('./domain/reminders/reminders.ts')]);
  const out = await runReminders(services);
  services.logger.info('reminders run', { ...out });
});

/** Mailbox automations: one poll task per enabled automation (domain/automations/automations.ts POLL_EVERY_MINUTES). Locally, server.ts. */
export const automationsMailboxPoll = onSchedule({ region, schedule: 'every 10 minutes', timeoutSeconds: 300, memory: '256MiB' }, async () => {
  const [{ services }, { scheduleMailboxPolls }] = await Promise.all([getApp(), import('./domain/automations/mailboxPoll.ts')]);
  await scheduleMailboxPolls(services);
});
