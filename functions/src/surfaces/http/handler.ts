import type { App } from '../../app.ts';
import { registrySource, type OperationSource, type Registry } from '../../operations/loader.ts';
import type { Meter } from '../../ports/store.ts';
import { MAX_BODY_BYTES, type HttpHandler, type HttpRequest, type HttpResponse } from './types.ts';
import { ApiError, isApiError } from '../../core/errors.ts';
import { authenticate } from '../../core/auth.ts';
import { execute } from '../../core/execute.ts';
import { newId } from '../../core/ids.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { queryToInput } from './query.ts';
import { corsFor } from './cors.ts';
import { KeyRateLimiter, keyRateLimiter, requestLimits } from '../../core/rateLimit.ts';
import { QuotaExhausted } from '../../core/quota.ts';
import { checkIdempotencyKey, errorOutcome, withIdempotency } from '../../core/idempotency.ts';
import { buildCatalogue } from '../openapi/catalogue.ts';
import { buildOpenApi } from '../openapi/openapi.ts';

export { MAX_BODY_BYTES };

const API_BASES = ['/v1', '/api/v1'];

/** The API base a path is under, or undefined. */
function apiBase(path: string): string | undefined {
  for (const b of API_BASES) if (path.startsWith(b) && (path.length === b.length || path.charCodeAt(b.length) === 47)) return b;
  return undefined;
}

/** `path` without leading and trailing slashes. */
function trimSlashes(path: string): string {
  let a = 0;
  let b = path.length;
  while (a < b && path.charCodeAt(a) === 47) a++;
  while (b > a && path.charCodeAt(b - 1) === 47) b--;
  return a === 0 && b === path.length ? path : path.slice(a, b);
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpResponse => ({
  status,
  // A fresh object either way (the handler adds to it); without a spread when there is nothing to add (every API call).
  headers: headers ? { 'content-type': 'application/json; charset=utf-8', ...headers } : { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(body),
});

export const errorResponse = (e: ApiError, headers: Record<string, string> = {}, status = e.status) =>
  json(status, { ok: false, error: e.toJSON() }, headers);

/** 405 and 413 keep their HTTP statuses; the envelope's code is invalid-argument, the nearest in the family. */
const methodNotAllowed = (path: string, allow: string, method: string) =>
  errorResponse(new ApiError('invalid-argument', `${path} accepts ${allow}, not ${method}`, { reason: 'methodNotAllowed', params: { allow } }), { allow }, 405);
/** No Content-Length and no chunked body: 411 as HTTP says, in the envelope like every other answer of ours. */
export const lengthRequired = () =>
  errorResponse(new ApiError('invalid-argument', 'body: a POST needs a body with Content-Length (or chunked); send {} when the operation takes no fields', { reason: 'bodyRequired' }), {}, 411);
export const tooLarge = () => errorResponse(new ApiError('invalid-argument', `body: over the ${MAX_BODY_BYTES} byte limit`, { reason: 'bodyTooLarge', params: { max: MAX_BODY_BYTES } }), {}, 413);

const NO_OAUTH = 'this server offers no OAuth (no protected-resource, authorization-server or OpenID metadata): send an API key as Authorization: Bearer bfo_…';

/** A generated file's link after its lifetime: 410 with a page (a person follows these links from an email). */
async function expiredLinkPage(gone: { fileName: string; expiredAt: string }): Promise<HttpResponse> {
  const [{ page }, { html }] = await Promise.all([import('../pages/layout.ts'), import('../pages/html.ts')]);
  const day = jerusalemDay(Date.parse(gone.expiredAt));
  return page(
    410,
    'he',
    'תוקף הקישור פג · This link has expired',
    null,
    html`<section class="card"><h1>תוקף הקישור פג</h1><p class="muted">הקובץ <bdi>${gone.fileName}</bdi> נמחק ב-${day}, שבעה ימים אחרי שנוצר. אפשר לבקש מהעסק חבילה חדשה.</p></section><section class="card" lang="en" dir="ltr"><h2>This link has expired</h2><p class="muted">The file <bdi>${gone.fileName}</bdi> was deleted on ${day}, seven days after it was made. Ask the business for a new package.</p></section>`,
  );
}

/** An unexpected failure: logged with its stack, answered with only a request id. */
export function internalError(app: App, requestId: string, e: unknown, where: Record<string, unknown>): HttpResponse {
  app.services.logger.error('unexpected error', { requestId, ...where, error: e instanceof Error ? e.stack : String(e) });
  return errorResponse(new ApiError('internal', `internal error; quote request id ${requestId}`, { reason: 'internal' }));
}

function parseBody(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError('invalid-argument', 'body: not valid JSON; send a JSON object such as {}', { reason: 'badJson' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid-argument', 'body: must be a JSON object such as {}', { reason: 'badJson' });
  }
  return value as Record<string, unknown>;
}

/**
 * The one HTTP handler: the API under /v1 and /api/v1, MCP at /mcp, file links under /files, upload URLs under /uploads.
 * node:http (local) and the `api` Cloud Function both adapt to it.
 */
export function createHttpHandler(app: App, registry: Registry | OperationSource): HttpHandler {
  const { services } = app;
  // A source loads operation modules as requests name them (a cold start); a registry has them all.
  const ops: OperationSource = 'load' in registry && typeof registry.load === 'function' ? (registry as OperationSource) : registrySource(registry as Registry);
  let catalogue: string | undefined;
  let openapi: string | undefined;
  let mcp: Promise<HttpHandler> | undefined;
  let pages: Promise<HttpHandler> | undefined;
  let oauth: Promise<HttpHandler> | undefined;
  const mcpSurface = () =>
    (mcp ??= Promise.all([import('../mcp/mcpSurface.ts'), ops.all()]).then(([m, all]) => m.createMcpSurface(all, app)));

  // The public pages live under the path of PUBLIC_LINK_BASE (`/p` locally, the root of a host of their own).
  const pagesPrefix = new URL(services.config.publicLinkBase).pathname.replace(/\/+$/, '');
  const dashboardPrefix = URL.canParse(services.config.dashboardUrl) ? new URL(services.config.dashboardUrl).pathname.replace(/\/+$/, '') : '';
  const pagesSurface = () => (pages ??= import('../pages/pages.ts').then((m) => m.createPagesHandler(app)));

  const oauthSurface = () => (oauth ??= import('../oauth/oauth.ts').then((m) => m.createOAuthHandler(app)));

  async function apiCall(req: HttpRequest, name: string, requestId: string, meter: Meter, rateHeaders: Record<string, string>): Promise<HttpResponse> {
    const op = ops.get(name) ?? (await ops.load(name));
    if (!op) throw new ApiError('not-found', `unknown operation ${name}; GET ${services.config.baseUrl} lists them`, { reason: 'unknownOperation', params: { name } });
    if (req.method === 'POST') {
      // A POST with no body at all is refused before auth, as the production front end does.
      if (req.body === undefined && req.readBody === undefined) return lengthRequired();
      if (req.body !== undefined && req.body.length > MAX_BODY_BYTES) return tooLarge();
    } else if (req.method !== 'GET' || !op.flags.readOnly) {
      return methodNotAllowed(name, op.flags.readOnly ? 'GET, POST' : 'POST', req.method);
    }
    const store = services.store.metered(meter);
    const caller = await authenticate(store, req.headers.authorization, services.clock.now(), { businessId: req.headers['x-business-id'], operation: name, host: services.config.host });
    if (limiter.enabled) {
      const r = limiter.take(caller);
      if (r.policies.length) Object.assign(rateHeaders, KeyRateLimiter.headers(r));
      if (!r.allowed) {
        rateHeaders['retry-after'] = String(r.resetSec);
        throw new ApiError('resource-exhausted', KeyRateLimiter.refusal(r), { reason: 'rateLimited', params: KeyRateLimiter.refusalParams(r) });
      }
    }
    // Only a known caller's body is read and parsed.
    let input: Record<string, unknown>;
    if (req.method === 'POST') {
      const body = req.body ?? (await req.readBody!());
      if (body === 'too-large') return tooLarge();
      input = parseBody(body);
    } else {
      input = queryToInput(op, req.query);
    }
    const key = req.headers['idempotency-key'];
    // A signed-in user joining their first business has no business to keep the key under (acceptInvite).
    if (key === undefined || op.flags.readOnly || !caller.businessId) {
      const { result } = await execute(op, input, caller, services, requestId, meter, store);
      return json(200, { ok: true, result });
    }
    checkIdempotencyKey(key, 'Idempotency-Key');
    const out = await withIdempotency(store, caller, op.name, key, input, () => services.clock.now(), async () => {
      try {
        const { result } = await execute(op, input, caller, services, requestId, meter, store);
        return { status: 200, body: { ok: true as const, result } };
      } catch (e) {
        const outcome = errorOutcome(e);
        if (!outcome) throw e;
        return outcome;
      }
    }, services.config.credentialsKey);
    return json(out.status, out.body, out.replayed ? { 'idempotent-replayed': 'true' } : {});
  }

  async function files(req: HttpRequest): Promise<HttpResponse> {
    const token = req.path.split('/')[2] ?? '';
    // Streamed: a ZIP can be large, and the process never holds a whole file.
    const file = req.method === 'GET' || req.method === 'HEAD' ? await services.files.openStream(token) : null;
    if (!file) {
      const gone = req.method === 'GET' || req.method === 'HEAD' ? await services.files.expiredLink(token) : null;
      if (gone) return expiredLinkPage(gone);
      return errorResponse(new ApiError('not-found', 'file not found', { reason: 'notFoundWhat', params: { what: 'file' } }));
    }
    const name = encodeURIComponent(file.fileName);
    const headers = {
      'content-type': file.contentType,
      'content-disposition': `inline; filename*=UTF-8''${name}`,
      'cache-control': 'private, max-age=300',
      'x-content-type-options': 'nosniff',
      'content-length': String(file.size),
    };
    if (req.method === 'HEAD') {
      file.stream.destroy();
      return { status: 200, headers, body: '' };
    }
    return { status: 200, headers, body: file.stream };
  }

  /** `PUT /uploads/{fileId}/{token}`: the one request an upload URL takes (core/uploads.ts). */
  async function upload(req: HttpRequest): Promise<HttpResponse> {
    const [, , uploadId = '', token = '', extra] = req.path.split('/');
    if (extra !== undefined) throw new ApiError('not-found', 'upload URL not found', { reason: 'notFoundWhat', params: { what: 'upload' } });
    if (req.method !== 'PUT') return methodNotAllowed('upload URLs', 'PUT', req.method);
    if (req.body === undefined) return { status: 411, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Length Required' };
    const { receiveUpload } = await import('../../core/uploads.ts');
    const result = await receiveUpload(services, uploadId, token, req.body, req.headers['content-type']);
    return json(200, { ok: true, result });
  }

  async function route(req: HttpRequest, requestId: string, meter: Meter, rateHeaders: Record<string, string>): Promise<HttpResponse> {
    // OAuth and OpenID discovery (RFC 9728, RFC 8414, OIDC, with the MCP path appended or prefixed): none offered.
    if (req.path.startsWith('/.well-known/') || req.path.startsWith('/mcp/.well-known/')) throw new ApiError('not-found', NO_OAUTH, { reason: 'unknownPath' });
    // Finding no metadata, the MCP SDK registers a client at /register, with the request's headers: a wrong key is told so there (401).
    if (req.path === '/register' && req.method === 'POST') {
      await authenticate(services.store.metered(meter), req.headers.authorization, services.clock.now(), { host: services.config.host });
      throw new ApiError('not-found', NO_OAUTH, { reason: 'unknownPath' });
    }
    if (req.path === '/mcp' || req.path.startsWith('/mcp/')) return (await mcpSurface())(req);
    if (req.path.startsWith('/files/')) return files(req);
    if (req.path.startsWith('/uploads/')) return upload(req);
    if (req.path.startsWith('/oauth/')) return (await oauthSurface())(req);
    if (req.path === '/favicon.ico') return { status: 204, headers: { 'cache-control': 'public, max-age=86400' }, body: '' };
    // Everything under the pages' path is a page (a not-found one too), never JSON.
    if (pagesPrefix && (req.path === pagesPrefix || req.path.startsWith(pagesPrefix + '/'))) return (await pagesSurface())(req);
    if (req.path.startsWith(pagesPrefix + '/pay/') || req.path.startsWith(pagesPrefix + '/link/')) return (await pagesSurface())(req);
    const base = apiBase(req.path);
    if (base) {
      const rest = trimSlashes(req.path.slice(base.length));
      if (rest === '' || rest === 'openapi.json') {
        if (req.method !== 'GET') return methodNotAllowed(req.path, 'GET', req.method);
        if (rest === '') return { ...json(200, { ok: true, result: null }), body: (catalogue ??= JSON.stringify({ ok: true, result: buildCatalogue(await ops.all(), services.config.baseUrl) })) };
        return { ...json(200, null), body: (openapi ??= JSON.stringify(buildOpenApi(await ops.all(), services.config))) };
      }
      if (rest.includes('/')) throw new ApiError('not-found', `unknown path ${req.path}`, { reason: 'unknownPath' });
      // Awaited here: an async function returning a promise costs two more microtask turns (every API call).
      return await apiCall(req, rest, requestId, meter, rateHeaders);
    }
    // An owner's link (payment, invoice, invite) opens an HTML page even while no dashboard answers here.
    if ((req.method === 'GET' || req.method === 'HEAD') && req.path.startsWith(dashboardPrefix + '/')) {
      const owner = (await import('../pages/ownerPages.ts')).ownerPage(req.path.slice(dashboardPrefix.length));
      if (owner) return req.method === 'HEAD' ? { ...owner, body: '' } : owner;
    }
    throw new ApiError('not-found', `unknown path ${req.path}`, { reason: 'unknownPath' });
  }

  const cors = corsFor(new Set(services.config.allowedOrigins), API_BASES);
  const limiter = keyRateLimiter(services.store, requestLimits(services.config), () => services.clock.now());

  return async (req) => {
    const preflight = cors.preflight(req);
    if (preflight) return preflight;
    const requestId = 'req_' + newId(16);
    // Document reads and writes of this request, reported on every API response so cost can be measured.
    const meter: Meter = { reads: 0, writes: 0 };
    // RateLimit headers (and Retry-After on a 429) the call earned, on success and error alike.
    const rateHeaders: Record<string, string> = {};
    let res: HttpResponse;
    try {
      res = await route(req, requestId, meter, rateHeaders);
    } catch (e) {
      if (e instanceof QuotaExhausted) rateHeaders['retry-after'] = String(e.retryAfterSec);
      res = isApiError(e) ? errorResponse(e) : internalError(app, requestId, e, { method: req.method, path: req.path });
    }
    Object.assign(res.headers, rateHeaders);
    // The MCP surface mints its own id (its errors quote it); keep that one.
    res.headers['x-request-id'] ??= requestId;
    res.headers['x-doc-reads'] = String(meter.reads);
    res.headers['x-doc-writes'] = String(meter.writes);
    if (req.headers.origin !== undefined) cors.decorate(req, res);
    return res;
  };
}
