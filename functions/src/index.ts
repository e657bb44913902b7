/**
 * Cloud Functions entry: `api` (every HTTP surface) and one task-queue function per queue.
 * Kept cheap to load: the app, the registry, zod and firebase-admin load on the first request or task.
 */
import { randomUUID } from 'node:crypto';
import { onRequest, type Request } from 'firebase-functions/https';
import { onTaskDispatched } from 'firebase-functions/tasks';
import { defineSecret } from 'firebase-functions/params';
import type { App } from './app.ts';
import type { HttpHandler, HttpRequest, HttpResponse } from './surfaces/http/types.ts';
import { OUTBOX_QUEUE } from './core/outbox.ts';

// Read at load time, so the deploy sees it too: set it in functions/.env, not only in the shell.
const region = process.env.FUNCTIONS_REGION || 'us-central1';

// The emulator would look secrets up in Secret Manager (online) when functions/.secret.local lacks them;
// emulated, they stay plain environment variables instead.
const emulated = process.env.FUNCTIONS_EMULATOR === 'true';
const secret = (name: string) => (emulated ? [] : [defineSecret(name)]);
const CREDENTIALS_KEY = secret('CREDENTIALS_KEY');
const SMTP_URL = secret('SMTP_URL');
const WHATSAPP_TOKEN = secret('WHATSAPP_TOKEN');

let app: Promise<App> | undefined;
let http: Promise<HttpHandler> | undefined;

/** One App per instance, built on first use; a failed build is retried by the next call. */
function getApp(): Promise<App> {
  app ??= (async () => {
    const [{ loadConfig }, { createApp }] = await Promise.all([import('./config.ts'), import('./app.ts')]);
    return createApp(loadConfig());
  })();
  app.catch(() => (app = undefined));
  return app;
}

function getHttp(): Promise<HttpHandler> {
  http ??= (async () => {
    const [built, { registry }, { createHttpHandler }] = await Promise.all([
      getApp(),
      import('./operations/index.ts'),
      import('./surfaces/http/handler.ts'),
    ]);
    return createHttpHandler(built, registry);
  })();
  http.catch(() => (http = undefined));
  return http;
}

/** The pre-parsed Express request as the framework-free shape. */
function toHttpRequest(req: Request): HttpRequest {
  const url = req.url || '/';
  const q = url.indexOf('?');
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  // The framework leaves rawBody unset for a bodiless request; the headers say whether a body was sent at all.
  const sent = headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
  return {
    method: req.method,
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? '' : url.slice(q + 1),
    headers,
    body: sent ? (req.rawBody ?? Buffer.alloc(0)) : undefined,
  };
}

/** The parts of Express's response used here. */
interface RawResponse {
  headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string | Buffer): unknown;
}

function send(res: RawResponse, out: HttpResponse): void {
  // writeHead/end rather than res.send: no ETag or content-type guessing on top of the handler's answer.
  res.writeHead(out.status, out.headers);
  res.end(out.body);
}

export const api = onRequest(
  { region, memory: '512MiB', cpu: 1, concurrency: 80, timeoutSeconds: 540, secrets: [...CREDENTIALS_KEY] },
  async (req, res) => {
    try {
      const handler = await getHttp();
      send(res, await handler(toHttpRequest(req)));
    } catch (e) {
      // Only a failed start-up gets here; the handler answers its own errors.
      const requestId = randomUUID();
      console.error(JSON.stringify({ severity: 'ERROR', message: 'api failed to start', requestId, error: e instanceof Error ? e.stack : String(e) }));
      if (res.headersSent) return void res.end();
      send(res, {
        status: 503,
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId },
        body: JSON.stringify({ ok: false, error: { code: 'unavailable', message: `service is starting or misconfigured; request id ${requestId}` } }),
      });
    }
  },
);

/** A task-queue function named after its queue; throwing makes Cloud Tasks retry with backoff. */
function taskQueue(queue: string, secrets: ReturnType<typeof defineSecret>[]) {
  return onTaskDispatched(
    {
      region,
      memory: '512MiB',
      timeoutSeconds: 540,
      secrets,
      retryConfig: { maxAttempts: 8, minBackoffSeconds: 10, maxBackoffSeconds: 3600 },
      rateLimits: { maxConcurrentDispatches: 20 },
    },
    async (req) => {
      const { taskHandlers } = await getApp();
      const handler = taskHandlers[queue];
      if (!handler) throw new Error(`no task handler for queue ${queue}`);
      await handler((req.data ?? {}) as Record<string, unknown>);
    },
  );
}

// Export names must equal the queue names: firebase-admin enqueues by function name. A test checks they match App.taskHandlers.
export const outboxDeliver = taskQueue(OUTBOX_QUEUE, [...SMTP_URL, ...WHATSAPP_TOKEN]);
