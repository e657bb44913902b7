import { z } from 'zod';
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
  type Tool,
} from '@modelcontextprotocol/server';
import type { App } from '../../app.ts';
import type { Registry } from '../../operations/index.ts';
import type { AnyOperation } from '../../core/defineOperation.ts';
import type { Caller } from '../../core/context.ts';
import type { DocStore, Meter } from '../../ports/store.ts';
import { MAX_BODY_BYTES, type HttpHandler, type HttpRequest, type HttpResponse } from '../http/types.ts';
import { ApiError, isApiError, type ErrorCode } from '../../core/errors.ts';
import { authenticate } from '../../core/auth.ts';
import { execute } from '../../core/execute.ts';
import { checkIdempotencyKey, errorOutcome, withIdempotency } from '../../core/idempotency.ts';
import { newId } from '../../core/ids.ts';

const SERVER_INFO = { name: 'business-finance-ops', version: '1.0.0' };
/** Hop-by-hop headers, and the key, which the SDK has no use for. */
const DROPPED_HEADERS = new Set(['authorization', 'host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'upgrade']);

/** One HTTP exchange: who calls, under which request id, and the document reads/writes it costs. */
interface Exchange {
  caller: Caller;
  /** The tools this connection offers (`?toolsets=`, `?readonly=1`). */
  tools: McpTools;
  requestId: string;
  meter: Meter;
  /** The request's metered store: authentication and the tool call share it. */
  store: DocStore;
}

interface ToolEntry {
  op: AnyOperation;
  /** The op declares an object output, so the result also goes out as structuredContent. */
  structured: boolean;
}

export interface McpTools {
  /** The whole tools/list answer, served as is to every request. */
  list: ListToolsResult;
  byName: ReadonlyMap<string, ToolEntry>;
}

/** `removeMember` → `Remove member`. */
function titleOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const IDEMPOTENCY_ARG = {
  type: 'string',
  maxLength: 255,
  description: 'Optional. The same key repeated within 24 hours returns the first call\'s result without running it again (safe retries); another request with the same key is refused.',
};

function inputSchemaOf(op: AnyOperation): Tool['inputSchema'] {
  const { $schema: _drop, ...schema } = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  // Mutating tools also take idempotencyKey (stripped before the operation sees its input).
  if (!op.flags.readOnly) schema.properties = { ...(schema.properties as object), idempotencyKey: IDEMPOTENCY_ARG };
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

function outputSchemaOf(op: AnyOperation): Tool['outputSchema'] {
  const { $schema: _drop, ...schema } = z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, type: 'object' } as Tool['outputSchema'];
}

/** What the model reads first: how to start, the units, and how to ask for fewer tools. */
export const MCP_INSTRUCTIONS =
  'Business finance operations for one small business (Israel). Call whoami first: it says which business and user this key acts as, and the role. ' +
  'Amounts are integers in minor units: agorot for ILS (1 ILS = 100), cents for USD and EUR; folder-rule amounts are the exception (major units). ' +
  'Dates are YYYY-MM-DD, months YYYY-MM, times in unix milliseconds where a field says so. ' +
  'Destructive tools say so: confirm with the user before calling them. ' +
  'Toolsets: connect to /mcp?toolsets=<groups> (comma-separated: account, activity, payments, suppliers, invoices, folders, software, team, mailboxes, statements, employees, signupDocs, accountant, reports) for fewer tools, and /mcp?readonly=1 for read-only tools only.';

/** The tools of some groups, or only the read-only ones: a smaller list costs the model fewer tokens. */
export function filterTools(all: McpTools, groups: ReadonlySet<string> | null, readOnly: boolean): McpTools {
  const keep = (e: ToolEntry) => (!groups || groups.has(e.op.group)) && (!readOnly || Boolean(e.op.flags.readOnly));
  const byName = new Map([...all.byName].filter(([, e]) => keep(e)));
  return { list: { tools: all.list.tools.filter((t) => byName.has(t.name)) }, byName };
}

function descriptionOf(op: AnyOperation): string {
  let text = op.description ? `${op.summary} ${op.description}` : op.summary;
  if (op.flags.adminOnly && !/admin/i.test(text)) text += ' Requires the admin role.';
  if (op.flags.dangerous) text += ' Destructive: confirm with the user before calling it.';
  return text;
}

/** Every tool definition, derived from the registry's zod schemas. Runs once per surface. */
export function buildMcpTools(registry: Registry): McpTools {
  const tools: Tool[] = [];
  const byName = new Map<string, ToolEntry>();
  for (const op of registry.values()) {
    const readOnly = Boolean(op.flags.readOnly);
    const title = titleOf(op.name);
    const structured = op.output instanceof z.ZodObject;
    tools.push({
      name: op.name,
      title,
      description: descriptionOf(op),
      inputSchema: inputSchemaOf(op),
      // Object results also travel as structuredContent, described by the operation's own output schema.
      ...(structured ? { outputSchema: outputSchemaOf(op) } : {}),
      // All four hints are explicit: the spec's defaults assume destructive and open-world.
      annotations: {
        title,
        readOnlyHint: readOnly,
        destructiveHint: !readOnly && Boolean(op.flags.dangerous),
        idempotentHint: readOnly || Boolean(op.flags.idempotent),
        openWorldHint: Boolean(op.flags.openWorld),
      },
    });
    byName.set(op.name, { op, structured });
  }
  return { list: { tools }, byName };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toolError(code: ErrorCode, message: string): CallToolResult {
  const error = { code, message };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }], structuredContent: error };
}

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
});

const envelope = (e: ApiError, headers: Record<string, string> = {}): HttpResponse => ({
  status: e.status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify({ ok: false, error: { code: e.code, message: e.message } }),
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

  async function callTool(params: CallToolRequestParams, exchange: Exchange, server: Server): Promise<CallToolResult> {
    const entry = exchange.tools.byName.get(params.name);
    if (!entry) {
      const hint = tools.byName.has(params.name) ? ` (not in this connection's toolsets; connect to ${services.config.mcpUrl} without ?toolsets or ?readonly for every tool)` : '';
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name}${hint}`);
    }
    let result: CallToolResult;
    try {
      const { idempotencyKey, ...args } = (params.arguments ?? {}) as Record<string, unknown>;
      const run = async () => (await execute(entry.op, args, exchange.caller, services, exchange.requestId, exchange.meter, exchange.store)).result;
      let out: unknown;
      if (idempotencyKey === undefined || entry.op.flags.readOnly) out = await run();
      else {
        if (typeof idempotencyKey !== 'string') throw new ApiError('invalid-argument', 'idempotencyKey: expected a string');
        checkIdempotencyKey(idempotencyKey, 'idempotencyKey');
        const o = await withIdempotency(exchange.store, exchange.caller, entry.op.name, idempotencyKey, args, () => services.clock.now(), async () => {
          try {
            return { status: 200, body: { ok: true as const, result: await run() } };
          } catch (e) {
            const outcome = errorOutcome(e);
            if (!outcome) throw e;
            return outcome;
          }
        });
        if (!o.body.ok) return toolError(o.body.error.code as ErrorCode, o.body.error.message);
        out = o.body.result;
      }
      result = { content: [{ type: 'text', text: JSON.stringify(out ?? null) }] };
      if (entry.structured && isPlainObject(out)) result.structuredContent = out;
    } catch (e) {
      if (isApiError(e)) return toolError(e.code, e.message);
      services.logger.error('unexpected error', {
        requestId: exchange.requestId,
        surface: 'mcp',
        operation: entry.op.name,
        error: e instanceof Error ? e.stack : String(e),
      });
      return toolError('internal', `internal error; quote request id ${exchange.requestId}`);
    }
    return server.projectCallToolResult(result, undefined);
  }

  // The SDK wants a fresh server per exchange; this one only wires two handlers to the prebuilt
  // tools. The low-level Server (not McpServer) keeps argument validation in execute, so a bad
  // argument is an isError result with our invalid-argument message, not a JSON-RPC error.
  function serverFor(exchange: Exchange): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS });
    server.setRequestHandler('tools/list', () => exchange.tools.list);
    server.setRequestHandler('tools/call', (request) => callTool(request.params, exchange, server));
    return server;
  }

  const modern = createMcpHandler(
    (ctx) => {
      const exchange = ctx.authInfo?.extra?.exchange as Exchange | undefined;
      if (!exchange) throw new Error('MCP exchange without an authenticated caller');
      return serverFor(exchange);
    },
    {
      legacy: 'reject',
      responseMode: 'json',
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (e) => services.logger.debug('mcp request refused', { error: e.message }),
    },
  );

  async function serveLegacy(request: Request, parsedBody: unknown, exchange: Exchange): Promise<Response> {
    const server = serverFor(exchange);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { authInfo: authInfoOf(exchange), parsedBody });
      // Buffer before closing: the transport owns the body until then.
      return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
    } finally {
      await server.close().catch(() => {});
    }
  }

  const groups = new Set([...tools.byName.values()].map((e) => e.op.group));
  const variants = new Map<string, McpTools>();
  /** The tool list a query asks for (built once per variant), or the problem with the query. */
  function toolsFor(query: string): McpTools | string {
    const q = new URLSearchParams(query);
    const sets = (q.get('toolsets') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = sets.filter((s) => !groups.has(s));
    if (unknown.length) return `toolsets: unknown ${unknown.join(', ')}; known: ${[...groups].sort().join(', ')}`;
    const ro = q.get('readonly');
    if (ro !== null && ro !== '1' && ro !== 'true' && ro !== '0' && ro !== 'false') return 'readonly: expected 1 or 0';
    const readOnly = ro === '1' || ro === 'true';
    const key = `${[...sets].sort().join(',')}|${readOnly}`;
    let v = variants.get(key);
    if (!v) variants.set(key, (v = sets.length || readOnly ? filterTools(tools, sets.length ? new Set(sets) : null, readOnly) : tools));
    return v;
  }

  // DNS rebinding (MCP transport spec): a browser page on another origin must not reach the server.
  const allowedOrigins = new Set(services.config.mcpAllowedOrigins);

  async function serve(req: HttpRequest, requestId: string, meter: Meter): Promise<HttpResponse> {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.replace(/\/+$/, ''))) {
      return envelope(new ApiError('permission-denied', `Origin ${origin.slice(0, 200)} may not use this MCP server; allowed: ${[...allowedOrigins].join(', ')} (MCP_ALLOWED_ORIGINS)`));
    }
    const chosen = toolsFor(req.query);
    if (typeof chosen === 'string') return envelope(new ApiError('invalid-argument', chosen));
    const store = services.store.metered(meter);
    let caller: Caller;
    try {
      caller = await authenticate(store, req.headers.authorization, services.clock.now(), { businessId: req.headers['x-business-id'] });
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
    const bytes = req.body ?? Buffer.alloc(0);
    if (bytes.length > MAX_BODY_BYTES) return jsonRpcError(413, -32000, `Request body over the ${MAX_BODY_BYTES} byte limit`);

    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(bytes.toString('utf8'));
    } catch {
      return jsonRpcError(400, -32700, 'Parse error: the request body is not valid JSON');
    }
    // A listen stream never ends, and a buffered response would hang with it.
    if (isPlainObject(parsedBody) && parsedBody.method === 'subscriptions/listen') {
      return jsonRpcError(200, -32601, 'subscriptions/listen is not offered: the tool list only changes with a deploy');
    }

    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED_HEADERS.has(name)) headers.set(name, value);
    // We only ever answer JSON, so a client that accepts only JSON is served too (the 2025 transport insists on both).
    if (!headers.get('accept')?.includes('text/event-stream')) headers.set('accept', 'application/json, text/event-stream');
    // The SDK needs no real origin: it does no host checks, and the key already guards the endpoint.
    const request = new Request(new URL(req.path, 'http://localhost'), { method: 'POST', headers, body: new Uint8Array(bytes) });
    const exchange: Exchange = { caller, requestId, meter, store, tools: chosen };
    const response = (await isLegacyRequest(request, parsedBody))
      ? await serveLegacy(request, parsedBody, exchange)
      : await modern.fetch(request, { authInfo: authInfoOf(exchange), parsedBody });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
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
      res = envelope(new ApiError('internal', `internal error; quote request id ${requestId}`));
    }
    res.headers['x-request-id'] = requestId;
    res.headers['x-doc-reads'] = String(meter.reads);
    res.headers['x-doc-writes'] = String(meter.writes);
    return res;
  };
}
