import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { operations } from '../../../functions/src/operations/index.ts';
import { defineOperation, type AnyOperation } from '../../../functions/src/core/defineOperation.ts';
import { id, text } from '../../../functions/src/core/schema.ts';
import { revokeApiKey } from '../../../functions/src/core/auth.ts';
import type { Logger } from '../../../functions/src/core/logger.ts';
import { createMcpSurface } from '../../../functions/src/surfaces/mcp/mcpSurface.ts';
import { nodeListener } from '../../../functions/src/surfaces/http/node.ts';
import { loadConfig } from '../../../functions/src/config.ts';

// Test operations covering the flag combinations the real registry may not have yet.
let dangerRuns = 0;
const testRemoveThing = defineOperation({
  name: 'testRemoveThing',
  group: 'test',
  summary: 'Removes a thing for good.',
  flags: { dangerous: true, adminOnly: true },
  input: z.strictObject({ thingId: id(), reason: text().optional(), notify: z.boolean().default(true) }),
  output: z.object({ removed: z.string(), notify: z.boolean() }),
  async run(input) {
    dangerRuns++;
    return { removed: input.thingId, notify: input.notify };
  },
});
const testSyncProvider = defineOperation({
  name: 'testSyncProvider',
  group: 'test',
  summary: 'Pushes settings to a third party.',
  flags: { idempotent: true, openWorld: true },
  input: z.strictObject({ count: z.int().min(1) }),
  output: z.array(z.int()),
  async run(input) {
    return Array.from({ length: input.count }, (_, i) => i);
  },
});
const testExplode = defineOperation({
  name: 'testExplode',
  group: 'test',
  summary: 'Fails unexpectedly.',
  flags: { readOnly: true },
  input: z.strictObject({}),
  output: z.object({}),
  async run(): Promise<Record<string, never>> {
    throw new Error('secret detail from deep inside');
  },
});
const TEST_OPS: AnyOperation[] = [testRemoveThing, testSyncProvider, testExplode];

/** A registry that counts how often it is enumerated, to see when tool definitions are (re)built. */
class CountingRegistry extends Map<string, AnyOperation> {
  enumerations = 0;
  override values() {
    this.enumerations++;
    return super.values();
  }
  override entries() {
    this.enumerations++;
    return super.entries();
  }
  override keys() {
    this.enumerations++;
    return super.keys();
  }
  override forEach(...args: Parameters<Map<string, AnyOperation>['forEach']>) {
    this.enumerations++;
    super.forEach(...args);
  }
  override [Symbol.iterator]() {
    this.enumerations++;
    return super[Symbol.iterator]();
  }
}

type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];
const MODERN = '2026-07-28';

async function connect(url: URL, apiKey: string, era: Era): Promise<Client> {
  // The client's default is the 2025 handshake; 'modern' pins the 2026-07-28 revision.
  const client = new Client({ name: 'mcp-surface-test', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  return client;
}

function textOf(result: CallToolResult): string {
  const block = result.content[0];
  assert.equal(block?.type, 'text');
  return (block as { text: string }).text;
}

function errorOf(result: CallToolResult): { code: string; message: string } {
  assert.equal(result.isError, true, `expected an isError result, got ${JSON.stringify(result)}`);
  // No structuredContent: it would have to match the tool's outputSchema (issue 18 C4).
  assert.equal(result.structuredContent, undefined);
  return JSON.parse(textOf(result));
}

/** The hints a tool carries, with the MCP spec's defaults filled in (ToolAnnotations: destructive and open-world unless said). */
function hintsOf(tool: Tool) {
  const a = tool.annotations ?? {};
  const readOnlyHint = a.readOnlyHint ?? false;
  return {
    readOnlyHint,
    destructiveHint: readOnlyHint ? false : (a.destructiveHint ?? true),
    idempotentHint: readOnlyHint ? true : (a.idempotentHint ?? false),
    openWorldHint: a.openWorldHint ?? true,
  };
}

/** What the zod schema itself says a caller may and must send. */
function zodFields(op: AnyOperation) {
  const shape = op.input.shape as Record<string, z.ZodType>;
  const properties = Object.keys(shape).sort();
  const required = properties.filter((k) => !shape[k].safeParse(undefined).success);
  return { properties, required };
}

/** The JSON body of a raw response, as a client would read it. */
const jsonOf = (res: Response): Promise<any> => res.json();
const rpc = (method: string, params: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const INITIALIZE = rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('MCP surface', () => {
  let h: Harness;
  /** Every operation under test; the counting copy below is handed to the surface alone. */
  const ops = new Map([...operations, ...TEST_OPS].map((op) => [op.name, op]));
  const registry = new CountingRegistry(ops);
  let surfaceServer: Server;
  let url: URL;
  let member: TestUser;
  let other: TestUser;
  const errors: { msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (msg, fields) => void errors.push({ msg, fields }) };
  let enumerationsAfterBuild = 0;

  before(async () => {
    h = await createHarness({ registry: ops, overrides: { logger } });
    member = await h.addMember('user');
    other = await h.newBusiness('Other Business');
    const surface = createMcpSurface(registry, h.app);
    enumerationsAfterBuild = registry.enumerations;
    surfaceServer = createServer(nodeListener(surface));
    await new Promise<void>((resolve) => surfaceServer.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(surfaceServer.address() as AddressInfo).port}/mcp`);
  });

  after(async () => {
    await new Promise<void>((resolve) => surfaceServer.close(() => resolve()));
    await h.close();
  });

  for (const era of ERAS) {
    describe(`${era} protocol era`, () => {
      let client: Client;
      before(async () => {
        client = await connect(new URL(`${url}?toolsets=all`), h.owner.apiKey, era);
      });
      after(() => client.close());

      it('negotiates the era under test', () => {
        const version = client.getNegotiatedProtocolVersion() ?? '';
        if (era === 'modern') assert.equal(version, MODERN);
        else assert.match(version, /^2025-/);
      });

      it('lists one tool per operation with ?toolsets=all, with the same name, and all four hints set', async () => {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), [...ops.keys()].sort());
        for (const tool of tools) {
          const op = ops.get(tool.name)!;
          const readOnly = Boolean(op.flags.readOnly);
          // All four are said: the spec's defaults for omitted ones are destructive and open-world.
          for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) assert.equal(typeof tool.annotations?.[hint], 'boolean', `${tool.name} ${hint}`);
          assert.deepEqual(
            hintsOf(tool),
            {
              readOnlyHint: readOnly,
              destructiveHint: !readOnly && Boolean(op.flags.dangerous),
              idempotentHint: readOnly || Boolean(op.flags.idempotent),
              openWorldHint: Boolean(op.flags.openWorld),
            },
            tool.name,
          );
          assert.ok(tool.description?.startsWith(op.summary.replace(/\.$/, '')), `${tool.name} is described by its summary`);
          assert.doesNotMatch(tool.description ?? '', /\.\./, tool.name);
        }
      });

      it('marks read-only, destructive and open-world tools as a client needs to know', async () => {
        const byName = new Map<string, Tool>((await client.listTools()).tools.map((t) => [t.name, t]));
        const hints = (name: string) => hintsOf(byName.get(name)!);
        assert.deepEqual(hints('whoami'), { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
        const danger = byName.get('testRemoveThing')!;
        assert.deepEqual(hints('testRemoveThing'), { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
        // The hint carries it, and the instructions say once what to do with it (not 20 descriptions).
        assert.doesNotMatch(danger.description ?? '', /Destructive/);
        assert.match(client.getInstructions() ?? '', /destructiveHint true delete or undo: confirm with the user/);
        assert.doesNotMatch(danger.description ?? '', /admin.*admin/i, 'the admin note is not doubled');
        assert.deepEqual(hints('testSyncProvider'), { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
        // Tools that message people outside the account are open-world.
        for (const name of ['createPayment', 'resendPayment', 'markPaid', 'inviteMember', 'resendInvite']) {
          assert.equal(byName.get(name)!.annotations?.openWorldHint, true, name);
        }
        // The real destructive operation, once the team operations are in the registry.
        if (byName.has('removeMember')) assert.equal(byName.get('removeMember')!.annotations?.destructiveHint, true);
      });

      it("derives every input schema from the operation's zod schema", async () => {
        const { tools } = await client.listTools();
        for (const tool of tools) {
          const expected = zodFields(ops.get(tool.name)!);
          assert.equal(tool.inputSchema.type, 'object');
          // Open-world mutating tools that are not idempotent also list the optional idempotencyKey (every mutating tool takes it).
          const { readOnly, idempotent, openWorld } = ops.get(tool.name)!.flags;
          const want = readOnly || idempotent || !openWorld ? expected.properties : [...expected.properties, 'idempotencyKey'].sort();
          assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), want, tool.name);
          assert.deepEqual([...(tool.inputSchema.required ?? [])].sort(), expected.required, tool.name);
        }
        const danger = tools.find((t) => t.name === 'testRemoveThing')!;
        assert.deepEqual(danger.inputSchema.required, ['thingId']);
      });

      it("whoami returns the owner's business and the admin role", async () => {
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        assert.notEqual(result.isError, true);
        const me = JSON.parse(textOf(result));
        assert.equal(me.businessId, h.owner.businessId);
        assert.equal(me.userId, h.owner.userId);
        assert.equal(me.role, 'admin');
        assert.deepEqual(result.structuredContent, me);
      });

      it('runs a tool with defaults applied by the same schema', async () => {
        const result = await client.callTool({ name: 'testRemoveThing', arguments: { thingId: 't1' } });
        assert.deepEqual(JSON.parse(textOf(result)), { removed: 't1', notify: true });
        const list = await client.callTool({ name: 'testSyncProvider', arguments: { count: 3 } });
        assert.deepEqual(JSON.parse(textOf(list)), [0, 1, 2]);
        assert.equal(list.structuredContent, undefined, 'an array output has no structuredContent');
      });

      it('answers an unknown field with an isError result: invalid-argument naming the field', async () => {
        const error = errorOf(await client.callTool({ name: 'whoami', arguments: { bogus: 1 } }));
        assert.equal(error.code, 'invalid-argument');
        assert.match(error.message, /bogus/);
      });

      it('answers a missing or mistyped argument the same way, without running the operation', async () => {
        const runs = dangerRuns;
        const missing = errorOf(await client.callTool({ name: 'testRemoveThing', arguments: {} }));
        assert.equal(missing.code, 'invalid-argument');
        assert.match(missing.message, /thingId/);
        const mistyped = errorOf(await client.callTool({ name: 'testSyncProvider', arguments: { count: 'three' } }));
        assert.equal(mistyped.code, 'invalid-argument');
        assert.match(mistyped.message, /count/);
        assert.equal(dangerRuns, runs);
      });

      it("refuses an admin-only tool to a user's key with permission-denied", async () => {
        const userClient = await connect(new URL(`${url}?toolsets=all`), member.apiKey, era);
        try {
          const runs = dangerRuns;
          const error = errorOf(await userClient.callTool({ name: 'testRemoveThing', arguments: { thingId: 't1' } }));
          assert.equal(error.code, 'permission-denied');
          assert.equal(dangerRuns, runs);
        } finally {
          await userClient.close();
        }
      });

      it('reports an unexpected failure as internal with a request id, logged, without the details', async () => {
        errors.length = 0;
        const error = errorOf(await client.callTool({ name: 'testExplode', arguments: {} }));
        assert.equal(error.code, 'internal');
        const requestId = /req_[A-Za-z0-9]+/.exec(error.message)?.[0];
        assert.ok(requestId, error.message);
        assert.doesNotMatch(error.message, /secret detail|\bat /);
        const logged = errors.find((e) => e.fields?.requestId === requestId);
        assert.ok(logged, 'logged under the quoted request id');
        assert.match(String(logged.fields?.error), /secret detail/);
      });

      it('keeps concurrent callers apart', async () => {
        const otherClient = await connect(url, other.apiKey, era);
        try {
          const calls = Array.from({ length: 10 }, (_, i) => (i % 2 ? otherClient : client).callTool({ name: 'whoami', arguments: {} }));
          const results = await Promise.all(calls);
          results.forEach((r, i) => assert.equal(JSON.parse(textOf(r)).businessId, i % 2 ? other.businessId : h.owner.businessId));
        } finally {
          await otherClient.close();
        }
      });
    });
  }

  it('builds the tool definitions once, not per request', async () => {
    assert.ok(enumerationsAfterBuild > 0, 'built when the surface is created');
    const lists: unknown[] = [];
    for (const era of ERAS) {
      const client = await connect(url, h.owner.apiKey, era);
      for (let i = 0; i < 5; i++) {
        lists.push((await client.listTools()).tools);
        await client.callTool({ name: 'whoami', arguments: {} });
      }
      await client.close();
    }
    assert.equal(registry.enumerations, enumerationsAfterBuild);
    for (const list of lists) assert.deepEqual(list, lists[0]);
  });

  describe('toolsets, read-only connections, instructions and output schemas', () => {
    it('?toolsets= serves only those groups, ?readonly=1 only read-only tools; a tool outside them is refused', async () => {
      const payments = await connect(new URL(`${url}?toolsets=payments,account`), h.owner.apiKey, 'legacy');
      const names = (await payments.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('createPayment') && names.includes('whoami'));
      assert.ok(!names.includes('invoicesList') && !names.includes('inviteMember'));
      await assert.rejects(payments.callTool({ name: 'invoicesList', arguments: {} }), /not in this connection's toolsets/);
      await payments.close();
      const ro = await connect(new URL(`${url}?readonly=1`), h.owner.apiKey, 'legacy');
      const roTools = (await ro.listTools()).tools;
      assert.ok(roTools.length > 10);
      assert.ok(roTools.every((t) => t.annotations?.readOnlyHint === true));
      await ro.close();
      const bad = await fetch(`${url}?toolsets=nope`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${h.owner.apiKey}` }, body: INITIALIZE });
      assert.equal(bad.status, 400);
      assert.match((await jsonOf(bad)).error.message, /^toolsets: unknown nope; known: .*payments/);
    });
    it('a mutating tool called twice with one idempotencyKey runs once; another input with that key is refused', async () => {
      const client = await connect(new URL(`${url}?toolsets=all`), h.owner.apiKey, 'legacy');
      const before = dangerRuns;
      const a = (await client.callTool({ name: 'testRemoveThing', arguments: { thingId: 't-idem', idempotencyKey: 'mcp-1' } })) as CallToolResult;
      const b = (await client.callTool({ name: 'testRemoveThing', arguments: { thingId: 't-idem', idempotencyKey: 'mcp-1' } })) as CallToolResult;
      assert.equal(dangerRuns, before + 1);
      assert.deepEqual(b.structuredContent, a.structuredContent);
      const c = (await client.callTool({ name: 'testRemoveThing', arguments: { thingId: 'other', idempotencyKey: 'mcp-1' } })) as CallToolResult;
      assert.equal(c.isError, true);
      assert.match(textOf(c), /Idempotency-Key reused with a different request/);
      await client.close();
    });

    it('gives instructions (whoami first, amounts in agorot) and an output schema for object results, which the client checks', async () => {
      const client = await connect(url, h.owner.apiKey, 'legacy');
      assert.match(client.getInstructions() ?? '', /whoami first.*agorot/s);
      const whoami = (await client.listTools()).tools.find((t) => t.name === 'whoami')!;
      assert.equal(whoami.outputSchema?.type, 'object');
      assert.match((whoami.outputSchema as any).description, /^\{businessId, /);
      const r = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
      assert.equal((r.structuredContent as any).businessId, h.owner.businessId);
      await client.close();
    });
  });

  describe('Origin (DNS rebinding)', () => {
    const post = (origin?: string) =>
      fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${h.owner.apiKey}`, 'mcp-protocol-version': '2025-11-25', ...(origin ? { origin } : {}) }, body: INITIALIZE });
    it('refuses a browser request from a foreign origin with 403, before the key is even looked at', async () => {
      const res = await post('http://evil.example');
      assert.equal(res.status, 403);
      const body = await jsonOf(res);
      assert.equal(body.error.code, 'permission-denied');
      assert.match(body.error.message, /Origin http:\/\/evil\.example may not use this MCP server/);
    });
    it('serves the configured origins, and requests without Origin (not browsers)', async () => {
      assert.equal((await post(h.config.mcpAllowedOrigins[0])).status, 200);
      assert.equal((await post()).status, 200);
    });
    it('allows by default the origin of every address the service and its dashboard are reached at, and MCP_ALLOWED_ORIGINS replaces them', () => {
      const defaults = loadConfig({
        PUBLIC_ORIGIN: 'https://books.example',
        DIRECT_URL: 'https://api-abc.a.run.app/v1',
        DASHBOARD_URL: 'https://app.example/dashboard/',
      }).mcpAllowedOrigins;
      assert.deepEqual(defaults.sort(), ['https://api-abc.a.run.app', 'https://app.example', 'https://books.example']);
      assert.deepEqual(loadConfig({ PUBLIC_ORIGIN: 'https://books.example', MCP_ALLOWED_ORIGINS: 'https://a.example/, https://b.example' }).mcpAllowedOrigins, [
        'https://a.example',
        'https://b.example',
      ]);
    });
  });

  describe('authentication', () => {
    it('answers a request without a key with 401, the error envelope and a Bearer challenge saying invalid_token', async () => {
      const res = await fetch(url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="mcp", error="invalid_token", error_description="[^"]+API key/);
      const body = await jsonOf(res);
      assert.equal(body.ok, false);
      assert.equal(body.error.code, 'unauthenticated');
      assert.equal(typeof body.error.message, 'string');
      await assert.rejects(connect(url, '', 'legacy'));
    });

    it('answers an invalid key with 401, and a tool call never reaches the operation', async () => {
      const runs = dangerRuns;
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, authorization: 'Bearer bfo_' + 'x'.repeat(43), 'mcp-protocol-version': '2025-11-25' },
        body: rpc('tools/call', { name: 'testRemoveThing', arguments: { thingId: 't1' } }),
      });
      assert.equal(res.status, 401);
      assert.equal((await jsonOf(res)).error.code, 'unauthenticated');
      assert.equal(dangerRuns, runs);
      await assert.rejects(connect(url, 'not-a-key', 'modern'));
    });

    it('answers a revoked key with 401', async () => {
      const user = await h.addMember('admin');
      const client = await connect(url, user.apiKey, 'legacy');
      await revokeApiKey(h.app.services.store, user.apiKey, h.app.services.clock.now());
      await assert.rejects(client.callTool({ name: 'whoami', arguments: {} }));
      await client.close();
      const res = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${user.apiKey}` }, body: INITIALIZE });
      assert.equal(res.status, 401);
      assert.match((await jsonOf(res)).error.message, /revoked/);
    });
  });

  describe('HTTP shape', () => {
    const auth = () => ({ ...MCP_HEADERS, authorization: `Bearer ${h.owner.apiKey}` });

    it('answers with a single JSON body, never an event stream', async () => {
      const init = await fetch(url, { method: 'POST', headers: auth(), body: INITIALIZE });
      assert.equal(init.status, 200);
      assert.match(init.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(init.headers.get('mcp-session-id'), null, 'stateless: no session');
      const list = await fetch(url, { method: 'POST', headers: { ...auth(), 'mcp-protocol-version': '2025-11-25' }, body: rpc('tools/list') });
      assert.match(list.headers.get('content-type') ?? '', /^application\/json/);
      assert.ok((await jsonOf(list)).result.tools.some((t: Tool) => t.name === 'whoami'));
    });

    it('serves a plain JSON client that does not accept event streams', async () => {
      const res = await fetch(url, { method: 'POST', headers: { ...auth(), accept: 'application/json' }, body: INITIALIZE });
      assert.equal(res.status, 200);
      assert.ok((await jsonOf(res)).result.capabilities.tools, 'offers tools');
    });

    it('has no GET stream: 405', async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${h.owner.apiKey}`, accept: 'text/event-stream' } });
      assert.equal(res.status, 405);
      await res.body?.cancel();
    });

    it('refuses subscriptions/listen at once rather than holding a stream open', async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...auth(), 'mcp-protocol-version': MODERN },
        body: rpc('subscriptions/listen', { notifications: { toolsListChanged: true } }),
        signal: AbortSignal.timeout(5000),
      });
      const body = await jsonOf(res);
      assert.equal(body.error.code, -32601);
    });
  });

  it('is served at /mcp by the HTTP handler', async () => {
    const origin = await h.listen();
    const client = await connect(new URL('/mcp', origin), h.owner.apiKey, 'legacy');
    try {
      const me = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      assert.equal(me.businessId, h.owner.businessId);
    } finally {
      await client.close();
    }
  });
});
