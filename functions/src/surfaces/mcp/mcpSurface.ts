import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type CallToolRequestParams,
  type CallToolResult,
  type ListToolsResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { App } from '../../app.ts';
import type { Registry } from '../../operations/index.ts';
import type { Caller } from '../../core/context.ts';
import type { DocStore, Meter } from '../../ports/store.ts';
import { MAX_BODY_BYTES, type HttpHandler, type HttpRequest, type HttpResponse } from '../http/types.ts';
import { ApiError, isApiError, type ErrorCode } from '../../core/errors.ts';
import type { ErrorDetails, Why } from '../../core/errorReasons.ts';
import { authenticate } from '../../core/auth.ts';
import { execute } from '../../core/execute.ts';
import { checkIdempotencyKey, errorOutcome, withIdempotency } from '../../core/idempotency.ts';
import { newId } from '../../core/ids.ts';
import { KeyRateLimiter, keyRateLimiter, requestLimits, type RateVerdict } from '../../core/rateLimit.ts';
import {
  ALWAYS_SERVED,
  CORE_TOOLS,
  ENABLE_TOOLSETS,
  enableToolsetsTool,
  readEnabled,
  toolOf,
  toolsOf,
  writeEnabled,
  type McpTools,
  type ToolEntry,
} from './toolsets.ts';

const SERVER_INFO = { name: 'business-finance-ops', version: '1.0.0' };
/** Hop-by-hop headers, and the key, which the SDK has no use for. */
const DROPPED_HEADERS = new Set(['authorization', 'host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'upgrade']);

/** One HTTP exchange: who calls, under which request id, and the document reads/writes it costs. */
interface Exchange {
  caller: Caller;
  /** The tools this connection offers: pinned (`?toolsets=`, `?readonly=1`), or the core plus the key's enabled toolsets. */
  tools: McpTools | 'dynamic';
  requestId: string;
  meter: Meter;
  /** The request's metered store: authentication and the tool call share it. */
  store: DocStore;
  /** The request limits as the last tool call of the exchange left them (RateLimit headers). */
  rate?: RateVerdict;
}

export type { McpTools, ToolEntry };

/** What the model reads first: how to start, the units, retries, and how tools come and go. */
export const MCP_INSTRUCTIONS =
  'Business finance operations for one small business (Israel). Call whoami first: it says which business and user this key acts as, and the role. ' +
  'Amounts are integers in minor units: agorot for ILS (1 ILS = 100), cents for USD and EUR; folder-rule amounts are the exception (major units). ' +
  'Dates are YYYY-MM-DD, months YYYY-MM, times in unix milliseconds where a field says so. ' +
  'Files: createUploadUrl gives a URL to PUT the file to, then pass its fileId instead of dataBase64. ' +
  'Tools with destructiveHint true delete or undo: confirm with the user before calling them. Every mutating tool takes an optional idempotencyKey (a string) for safe retries; only those whose repeat could reach outside twice (a message, a provider) list it. ' +
  'Toolsets: this connection starts with the core tools; enableToolsets adds groups (account, activity, payments, suppliers, invoices, folders, software, team, mailboxes, statements, employees, signupDocs, accountant, reports, payruns, recurring). ' +
  'Clients can also connect to /mcp?toolsets=<groups> or ?toolsets=all, and /mcp?readonly=1 for read-only tools only.';

/** Every tool of the registry (the `?toolsets=all` list), derived from the operations' zod schemas. */
export function buildMcpTools(registry: Registry): McpTools {
  return toolsOf([...registry.values()].map(toolOf));
}

/** The tools of some groups (whoami and createUploadUrl always), or only the read-only ones. */
export function filterTools(all: McpTools, groups: ReadonlySet<string> | null, readOnly: boolean): McpTools {
  const keep = (e: ToolEntry) => (!groups || groups.has(e.op.group) || ALWAYS_SERVED.includes(e.op.name)) && (!readOnly || Boolean(e.op.flags.readOnly));
  return toolsOf([...all.byName.values()].filter(keep));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A failed call: isError with the error as text, and no structuredContent, which would have to match
 * the tool's outputSchema (SDK 1.x clients and the Inspector check it and would hide the message).
 * The details (field, reason, params) ride in `_meta`, which every client passes through untouched.
 */
function toolError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}, details?: ErrorDetails): CallToolResult {
  const result: CallToolResult = { isError: true, content: [{ type: 'text', text: JSON.stringify({ code, message, ...extra }) }] };
  if (details) result._meta = { [ERROR_DETAILS_META]: details };
  return result;
}

/** The `_meta` key of an error's details (a prefixed name, as the MCP spec asks of implementation keys). */
export const ERROR_DETAILS_META = 'bfo/errorDetails';

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
});

const envelope = (e: ApiError, headers: Record<string, string> = {}): HttpResponse => ({
  status: e.status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify({ ok: false, error: e.toJSON() }),
});

/** The exchange rides the SDK's pass-through authInfo to the per-request server factory. */
function authInfoOf(exchange: Exchange): AuthInfo {
  // The key itself stays out of the SDK; only its resolved caller travels.
  return { token: '', clientId: exchange.caller.userId, scopes: [], extra: { exchange } };
}

/**
 * The MCP server at `/mcp`: Streamable HTTP, stateless, JSON responses only (Hosting buffers
 * streams). Both protocol eras are served: 2026-07-28 clients through the SDK's createMcpHandler,
 * 2025-era clients (the client SDK's default) through a one-shot stateless transport.
 */
export function createMcpSurface(registry: Registry, app: App): HttpHandler {
  const { services } = app;
  const tools = buildMcpTools(registry);
  const limiter = keyRateLimiter(services.store, requestLimits(services.config), () => services.clock.now());
  const groupSizes = new Map<string, number>();
  for (const e of tools.byName.values()) groupSizes.set(e.op.group, (groupSizes.get(e.op.group) ?? 0) + 1);
  const groups = new Set(groupSizes.keys());
  const enableTool = enableToolsetsTool(groupSizes);
  const core = new Set(CORE_TOOLS.filter((n) => tools.byName.has(n)));

  /** The dynamic connection's tools: the core, the enabled groups, and enableToolsets last (built once per combination). */
  const dynamicVariants = new Map<string, McpTools>();
  function dynamicTools(enabled: string[]): McpTools {
    const key = [...enabled].sort().join(',');
    let v = dynamicVariants.get(key);
    if (!v) {
      const on = new Set(enabled);
      const picked = toolsOf([...tools.byName.values()].filter((e) => core.has(e.op.name) || on.has(e.op.group)));
      v = { list: { tools: [...picked.list.tools, enableTool] }, byName: picked.byName };
      dynamicVariants.set(key, v);
    }
    return v;
  }

  async function enableToolsets(args: Record<string, unknown>, exchange: Exchange, ctx: ServerContext): Promise<CallToolResult> {
    const { toolsets, reset = false, ...unknown } = args;
    const stray = Object.keys(unknown).filter((k) => k !== 'idempotencyKey');
    if (stray.length) return toolError('invalid-argument', `${stray[0]}: unknown field; enableToolsets takes toolsets and reset`, {}, { field: stray[0], reason: 'unknownField' });
    if (!Array.isArray(toolsets) || toolsets.some((t) => typeof t !== 'string')) return toolError('invalid-argument', 'toolsets: expected an array of group names', {}, { field: 'toolsets', reason: 'wrongType', params: { expected: 'array' } });
    const bad = (toolsets as string[]).filter((t) => !groups.has(t));
    if (bad.length) return toolError('invalid-argument', `toolsets: unknown ${bad.join(', ')}; known: ${[...groups].sort().join(', ')}`, {}, { field: 'toolsets', reason: 'notOneOf', params: { options: [...groups].sort() } });
    if (typeof reset !== 'boolean') return toolError('invalid-argument', 'reset: expected a boolean', {}, { field: 'reset', reason: 'wrongType', params: { expected: 'boolean' } });
    const now = services.clock.now();
    const before = reset ? [] : await readEnabled(exchange.store, exchange.caller, now);
    const enabled = [...new Set([...before, ...(toolsets as string[])])].sort();
    await writeEnabled(exchange.store, exchange.caller, enabled, now);
    const previous = dynamicTools(before);
    const next = dynamicTools(enabled);
    const added = [...next.byName.keys()].filter((n) => !previous.byName.has(n));
    // Clients that listen re-fetch tools/list; the others read `added` and list again themselves.
    await ctx.mcpReq.notify({ method: 'notifications/tools/list_changed' }).catch(() => {});
    const out = { enabled, added, toolCount: next.list.tools.length };
    return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  }

  /** The tool of this name the exchange may call, or why not. */
  async function toolFor(name: string, exchange: Exchange): Promise<ToolEntry | string> {
    if (exchange.tools !== 'dynamic') {
      const entry = exchange.tools.byName.get(name);
      if (entry) return entry;
      return tools.byName.has(name) ? `Unknown tool: ${name} (not in this connection's toolsets; connect to ${services.config.mcpUrl}?toolsets=all for every tool)` : `Unknown tool: ${name}`;
    }
    const entry = tools.byName.get(name);
    if (!entry) return `Unknown tool: ${name}`;
    if (core.has(name)) return entry;
    const enabled = await readEnabled(exchange.store, exchange.caller, services.clock.now());
    if (enabled.includes(entry.op.group)) return entry;
    return `Unknown tool: ${name} (in the ${entry.op.group} toolset, not enabled: call enableToolsets with {"toolsets":["${entry.op.group}"]} first)`;
  }

  async function callTool(params: CallToolRequestParams, exchange: Exchange, server: Server, ctx: ServerContext): Promise<CallToolResult> {
    const isEnable = exchange.tools === 'dynamic' && params.name === ENABLE_TOOLSETS;
    const entry = isEnable ? null : await toolFor(params.name, exchange);
    if (typeof entry === 'string') throw new ProtocolError(ProtocolErrorCode.InvalidParams, entry);
    // Every tool call is one request against the per-minute limits (key, user, business), shared with the HTTP API
    // (each call of a batch too); a refused call runs nothing.
    if (limiter.enabled) {
      const r = limiter.take(exchange.caller);
      if (r.policies.length) exchange.rate = r;
      if (!r.allowed) return toolError('resource-exhausted', KeyRateLimiter.refusal(r), { retryAfterSec: r.resetSec }, { reason: 'rateLimited', params: KeyRateLimiter.refusalParams(r) });
    }
    if (!entry) return enableToolsets((params.arguments ?? {}) as Record<string, unknown>, exchange, ctx);
    let result: CallToolResult;
    try {
      const { idempotencyKey, ...args } = (params.arguments ?? {}) as Record<string, unknown>;
      const run = async () => (await execute(entry.op, args, exchange.caller, services, exchange.requestId, exchange.meter, exchange.store)).result;
      let out: unknown;
      if (idempotencyKey === undefined || entry.op.flags.readOnly) out = await run();
      else {
        if (typeof idempotencyKey !== 'string') throw new ApiError('invalid-argument', 'idempotencyKey: expected a string', { reason: 'wrongType', params: { expected: 'string' } });
        checkIdempotencyKey(idempotencyKey, 'idempotencyKey');
        const o = await withIdempotency(exchange.store, exchange.caller, entry.op.name, idempotencyKey, args, () => services.clock.now(), async () => {
          try {
            return { status: 200, body: { ok: true as const, result: await run() } };
          } catch (e) {
            const outcome = errorOutcome(e);
            if (!outcome) throw e;
            return outcome;
          }
        }, services.config.credentialsKey);
        if (!o.body.ok) return toolError(o.body.error.code as ErrorCode, o.body.error.message, {}, o.body.error.details as ErrorDetails | undefined);
        out = o.body.result;
      }
      result = { content: [{ type: 'text', text: JSON.stringify(out ?? null) }] };
      if (entry.structured && isPlainObject(out)) result.structuredContent = out;
    } catch (e) {
      if (isApiError(e)) return toolError(e.code, e.message, {}, e.details);
      services.logger.error('unexpected error', {
        requestId: exchange.requestId,
        surface: 'mcp',
        operation: entry.op.name,
        error: e instanceof Error ? e.stack : String(e),
      });
      return toolError('internal', `internal error; quote request id ${exchange.requestId}`, {}, { reason: 'internal' });
    }
    return server.projectCallToolResult(result, undefined);
  }

  async function listTools(exchange: Exchange): Promise<ListToolsResult> {
    if (exchange.tools !== 'dynamic') return exchange.tools.list;
    return dynamicTools(await readEnabled(exchange.store, exchange.caller, services.clock.now())).list;
  }

  // The SDK wants a fresh server per exchange; this one only wires two handlers to the prebuilt
  // tools. The low-level Server (not McpServer) keeps argument validation in execute, so a bad
  // argument is an isError result with our invalid-argument message, not a JSON-RPC error.
  function serverFor(exchange: Exchange): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: true } }, instructions: MCP_INSTRUCTIONS });
    server.setRequestHandler('tools/list', () => listTools(exchange));
    server.setRequestHandler('tools/call', (request, ctx) => callTool(request.params, exchange, server, ctx));
    return server;
  }

  const factory = (ctx: { authInfo?: AuthInfo }) => {
    const exchange = ctx.authInfo?.extra?.exchange as Exchange | undefined;
    if (!exchange) throw new Error('MCP exchange without an authenticated caller');
    return serverFor(exchange);
  };
  const handlerOptions = {
    legacy: 'reject' as const,
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (e: Error) => services.logger.debug('mcp request refused', { error: e.message }),
  };
  const modern = createMcpHandler(factory, { ...handlerOptions, responseMode: 'json' });
  // enableToolsets answers over a (buffered, finite) event stream, so the list_changed notification
  // travels ahead of the result; every other exchange is one JSON body.
  const modernStreaming = createMcpHandler(factory, { ...handlerOptions, responseMode: 'auto' });

  async function serveLegacy(request: Request, parsedBody: unknown, exchange: Exchange, stream: boolean): Promise<Response> {
    const server = serverFor(exchange);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !stream, maxRequestBodySize: MAX_BODY_BYTES });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { authInfo: authInfoOf(exchange), parsedBody });
      // Buffer before closing: the transport owns the body until then.
      return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
    } finally {
      await server.close().catch(() => {});
    }
  }

  const variants = new Map<string, McpTools>();
  /** The tool list a query pins (built once per variant), 'dynamic' without toolsets, or the problem with the query. */
  function toolsFor(query: string): McpTools | 'dynamic' | { problem: string; why: Why } {
    const q = new URLSearchParams(query);
    const sets = (q.get('toolsets') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = sets.filter((s) => !groups.has(s) && s !== 'all' && s !== 'core');
    if (unknown.length) return { problem: `toolsets: unknown ${unknown.join(', ')}; known: all, core, ${[...groups].sort().join(', ')}`, why: { reason: 'notOneOf', params: { options: ['all', 'core', ...[...groups].sort()] } } };
    const ro = q.get('readonly');
    if (ro !== null && ro !== '1' && ro !== 'true' && ro !== '0' && ro !== 'false') return { problem: 'readonly: expected 1 or 0', why: { reason: 'notOneOf', params: { options: ['1', '0'] } } };
    const readOnly = ro === '1' || ro === 'true';
    if (!sets.length && !readOnly) return 'dynamic';
    const all = sets.includes('all') || !sets.length;
    const key = `${all ? 'all' : [...sets].sort().join(',')}|${readOnly}`;
    let v = variants.get(key);
    if (!v) {
      if (all) v = readOnly ? filterTools(tools, null, true) : tools;
      else {
        const pinned = filterTools(tools, new Set(sets), readOnly);
        // `core` names tools, not a group.
        v = sets.includes('core') ? toolsOf([...tools.byName.values()].filter((e) => pinned.byName.has(e.op.name) || (core.has(e.op.name) && (!readOnly || e.op.flags.readOnly)))) : pinned;
      }
      variants.set(key, v);
    }
    return v;
  }

  // DNS rebinding (MCP transport spec): a browser page on another origin must not reach the server.
  const allowedOrigins = new Set(services.config.mcpAllowedOrigins);

  async function serve(req: HttpRequest, requestId: string, meter: Meter): Promise<HttpResponse> {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.replace(/\/+$/, ''))) {
      return envelope(new ApiError('permission-denied', `Origin ${origin.slice(0, 200)} may not use this MCP server; allowed: ${[...allowedOrigins].join(', ')} (MCP_ALLOWED_ORIGINS)`, { reason: 'originNotAllowed' }));
    }
    const chosen = toolsFor(req.query);
    if (chosen !== 'dynamic' && 'problem' in chosen) return envelope(new ApiError('invalid-argument', chosen.problem, chosen.why));
    const store = services.store.metered(meter);
    let caller: Caller;
    try {
      caller = await authenticate(store, req.headers.authorization, services.clock.now(), { businessId: req.headers['x-business-id'], host: services.config.host });
    } catch (e) {
      if (!isApiError(e)) throw e;
      // The error code and description name the key as the problem; SDK-based clients still probe
      // OAuth discovery after any 401, which this server does not offer (see docs/decisions.md).
      const challenge = `Bearer realm="mcp", error="invalid_token", error_description="${e.message.replace(/["\\]/g, "'")}; this server takes an API key (Authorization: Bearer bfo_...), not OAuth"`;
      return envelope(e, e.code === 'unauthenticated' ? { 'www-authenticate': challenge } : {});
    }
    // Stateless: no GET stream to resume and no session to DELETE.
    if (req.method !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages', { allow: 'POST' });
    if (!isJsonContentType(req.headers['content-type'] ?? null)) return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    // Read only now that the caller is known (node:http leaves a large body unread until then).
    const bytes = req.body ?? (req.readBody ? await req.readBody() : Buffer.alloc(0));
    if (bytes === 'too-large' || bytes.length > MAX_BODY_BYTES) return jsonRpcError(413, -32000, `Request body over the ${MAX_BODY_BYTES} byte limit`);

    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(bytes.toString('utf8'));
    } catch {
      return jsonRpcError(400, -32700, 'Parse error: the request body is not valid JSON');
    }
    // A listen stream never ends, and a buffered response would hang with it.
    if (isPlainObject(parsedBody) && parsedBody.method === 'subscriptions/listen') {
      return jsonRpcError(200, -32601, 'subscriptions/listen is not offered: the tool list changes only through enableToolsets, whose answer carries the notification');
    }

    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED_HEADERS.has(name)) headers.set(name, value);
    // We answer JSON (a finite event stream only to enableToolsets), so a client that accepts only JSON is served too (the 2025 transport insists on both).
    const acceptsStream = Boolean(headers.get('accept')?.includes('text/event-stream'));
    if (!acceptsStream) headers.set('accept', 'application/json, text/event-stream');
    // The SDK needs no real origin: it does no host checks, and the key already guards the endpoint.
    const request = new Request(new URL(req.path, 'http://localhost'), { method: 'POST', headers, body: new Uint8Array(bytes) });
    const exchange: Exchange = { caller, requestId, meter, store, tools: chosen };
    // Only enableToolsets sends a notification, and only a client that reads event streams gets one.
    const stream = chosen === 'dynamic' && acceptsStream && isPlainObject(parsedBody) && parsedBody.method === 'tools/call' && isPlainObject(parsedBody.params) && parsedBody.params.name === ENABLE_TOOLSETS;
    const response = (await isLegacyRequest(request, parsedBody))
      ? await serveLegacy(request, parsedBody, exchange, stream)
      : await (stream ? modernStreaming : modern).fetch(request, { authInfo: authInfoOf(exchange), parsedBody });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    if (exchange.rate) Object.assign(out, KeyRateLimiter.headers(exchange.rate));
    return { status: response.status, headers: out, body: Buffer.from(await response.arrayBuffer()) };
  }

  return async (req) => {
    const requestId = 'req_' + newId(16);
    const meter: Meter = { reads: 0, writes: 0 };
    let res: HttpResponse;
    try {
      res = await serve(req, requestId, meter);
    } catch (e) {
      services.logger.error('unexpected error', { requestId, surface: 'mcp', error: e instanceof Error ? e.stack : String(e) });
      res = envelope(new ApiError('internal', `internal error; quote request id ${requestId}`, { reason: 'internal' }));
    }
    res.headers['x-request-id'] = requestId;
    res.headers['x-doc-reads'] = String(meter.reads);
    res.headers['x-doc-writes'] = String(meter.writes);
    return res;
  };
}
