import { describe, it, before, after } from 'node:test';
import { expandOutput } from './outputNotation.ts';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2, type Tool } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { registry } from '../../../functions/src/operations/index.ts';
import { CORE_TOOLS } from '../../../functions/src/surfaces/mcp/toolsets.ts';

/** Issue 18 C7–C8: a small default list, toolsets added at run time, and schemas every client can take. */
let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness({ env: { RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_USER_PER_MIN: '0', RATE_LIMIT_BUSINESS_PER_MIN: '0' } });
  origin = await h.listen();
});
after(() => h.close());

const MODERN = '2026-07-28';
const groups = [...new Set([...registry.values()].map((op) => op.group))].sort();

async function client2(key: string, query = '', opts: { modern?: boolean; onToolsChanged?: (tools: Tool[]) => void } = {}) {
  const client = new Client2(
    { name: 'toolsets-test', version: '1.0.0' },
    {
      ...(opts.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
      ...(opts.onToolsChanged ? { listChanged: { tools: { onChanged: (_e: unknown, tools: Tool[] | null) => opts.onToolsChanged!(tools ?? []) } } } : {}),
    },
  );
  await client.connect(new Transport2(new URL(`/mcp${query}`, origin), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** tools/list as sent on the wire, and its size in characters. */
async function rawList(key: string, query = '') {
  const res = await fetch(`${origin}/mcp${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const body = await res.text();
  const tools = JSON.parse(body).result.tools as Tool[];
  return { tools, chars: JSON.stringify(JSON.parse(body).result).length };
}

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  return check();
};

describe('the default list: the core toolset and enableToolsets', () => {
  it('serves at most 25 tools by default: whoami, payments and invoices basics with search, and enableToolsets', async () => {
    const user = await h.addMember('user');
    const { tools, chars } = await rawList(user.apiKey);
    const names = tools.map((t) => t.name);
    assert.ok(names.length <= 25, `${names.length} tools`);
    for (const n of ['whoami', 'createPayment', 'paymentsList', 'markPaid', 'uploadInvoiceDoc', 'invoicesList', 'createUploadUrl', 'enableToolsets']) assert.ok(names.includes(n), n);
    assert.ok(tools.find((t) => t.name === 'invoicesList')!.inputSchema.properties!.q, 'invoicesList searches (q)');
    assert.deepEqual(names.filter((n) => n !== 'enableToolsets').sort(), CORE_TOOLS.filter((n) => registry.has(n)).sort());
    const enable = tools.find((t) => t.name === 'enableToolsets')!;
    assert.deepEqual((enable.inputSchema.properties!.toolsets as any).items.enum, groups);
    console.log(`# tools/list characters: default ${chars}`);
  });

  it('a tool outside the core is refused until its toolset is enabled, saying how to enable it', async () => {
    const user = await h.addMember('user');
    const client = await client2(user.apiKey);
    await assert.rejects(client.callTool({ name: 'statementsList', arguments: {} }), /statements toolset, not enabled: call enableToolsets/);
    await client.close();
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`SDK 2.x (${era} era): enableToolsets adds the group, the client hears list_changed and lists again; the key keeps it on the next connection`, async () => {
      const user = await h.addMember('user');
      let heard: Tool[] | null = null;
      const client = await client2(user.apiKey, '', { modern: era === 'modern', onToolsChanged: (tools) => (heard = tools) });
      const before = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!before.includes('statementsZip'));
      const r = await client.callTool({ name: 'enableToolsets', arguments: { toolsets: ['statements'] } });
      assert.notEqual(r.isError, true, JSON.stringify(r));
      const out = r.structuredContent as { enabled: string[]; added: string[]; toolCount: number };
      assert.deepEqual(out.enabled, ['statements']);
      assert.ok(out.added.includes('statementsZip') && !out.added.includes('whoami'));
      if (era === 'legacy') {
        assert.ok(await waitFor(() => heard !== null), 'the client heard notifications/tools/list_changed');
        assert.ok(heard!.some((t) => t.name === 'statementsZip'));
      }
      const after = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(after.includes('statementsZip') && after.includes('whoami'));
      assert.equal(after.length, out.toolCount);
      assert.equal((await client.callTool({ name: 'statementsList', arguments: {} })).isError, undefined);
      await client.close();
      // Enabled toolsets belong to the key (the transport keeps no session): a new connection has them.
      const again = await client2(user.apiKey, '', { modern: era === 'modern' });
      assert.ok((await again.listTools()).tools.some((t) => t.name === 'statementsZip'));
      const reset = await again.callTool({ name: 'enableToolsets', arguments: { toolsets: [], reset: true } });
      assert.deepEqual((reset.structuredContent as { enabled: string[] }).enabled, []);
      assert.ok(!(await again.listTools()).tools.some((t) => t.name === 'statementsZip'));
      await again.close();
      // Another key is not affected.
      const other = await h.addMember('user');
      assert.ok(!(await rawList(other.apiKey)).tools.some((t) => t.name === 'statementsZip'));
    });
  }

  it('SDK 1.x: the list_changed notification arrives with the enableToolsets result, and the new tools are listed', async () => {
    const user = await h.addMember('user');
    let heard: { name: string }[] | null = null;
    const client = new Client1({ name: 'toolsets-sdk1', version: '1.0.0' }, { listChanged: { tools: { onChanged: (_e, tools) => void (heard = tools ?? []) } } });
    await client.connect(new Transport1(new URL('/mcp', origin), { requestInit: { headers: { authorization: `Bearer ${user.apiKey}` } } }));
    const r = await client.callTool({ name: 'enableToolsets', arguments: { toolsets: ['team', 'folders'] } });
    assert.notEqual(r.isError, true);
    assert.ok(await waitFor(() => heard !== null), 'notifications/tools/list_changed reached the 1.x client');
    assert.ok(heard!.some((t) => t.name === 'listTeam') && heard!.some((t) => t.name === 'foldersList'));
    await client.close();
  });

  it('refuses unknown toolsets and fields, naming them', async () => {
    const user = await h.addMember('user');
    const client = await client2(user.apiKey);
    const bad = await client.callTool({ name: 'enableToolsets', arguments: { toolsets: ['nope'] } });
    assert.equal(bad.isError, true);
    assert.match((bad.content[0] as { text: string }).text, /toolsets: unknown nope; known: .*statements/);
    const stray = await client.callTool({ name: 'enableToolsets', arguments: { toolsets: [], extra: 1 } });
    assert.match((stray.content[0] as { text: string }).text, /extra: unknown field/);
    await client.close();
  });
});

describe('the full list and the pinned toolsets', () => {
  it('?toolsets=all lists every operation in at most 100,000 characters', async () => {
    const { tools, chars } = await rawList(h.owner.apiKey, '?toolsets=all');
    assert.deepEqual(tools.map((t) => t.name).sort(), [...registry.keys()].sort());
    console.log(`# tools/list characters: all (${tools.length} tools) ${chars}`);
    assert.ok(chars <= 100_000, `${chars} characters`);
  });

  it('every field of every operation is in the full list: inputs, and outputs directly or through a "Same fields as" pointer', async () => {
    const { tools } = await rawList(h.owner.apiKey, '?toolsets=all');
    const byName = new Map(tools.map((t) => [t.name, t]));
    const { jsonSchemaOf } = await import('../../../functions/src/surfaces/openapi/jsonSchema.ts');
    const fieldsOf = (s: any, prefix = ''): string[] => {
      if (!s || typeof s !== 'object') return [];
      const here = s.properties ? Object.entries(s.properties).flatMap(([k, v]) => [prefix + k, ...fieldsOf(v, `${prefix}${k}.`)]) : [];
      const nested = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.items ? [s.items] : [])].flatMap((x: any) => fieldsOf(x, prefix));
      return [...new Set([...here, ...nested])];
    };
    for (const op of registry.values()) {
      const tool = byName.get(op.name)!;
      for (const f of fieldsOf(jsonSchemaOf(op.input, 'input'))) assert.ok(fieldsOf(tool.inputSchema).includes(f), `${op.name} input ${f}`);
    }
    // Output fields: collected over the whole list, pointers included.
    const listed = new Set(tools.flatMap((t) => fieldsOf(expandOutput(t.outputSchema)).map((f) => f.split('.').pop())));
    for (const op of registry.values()) for (const f of fieldsOf(jsonSchemaOf(op.output, 'output'))) assert.ok(listed.has(f.split('.').pop()), `${op.name} output ${f}`);
  });

  it('each toolset alone serves whoami (the instructions send the model there first)', async () => {
    const sizes: string[] = [];
    for (const g of groups) {
      const { tools, chars } = await rawList(h.owner.apiKey, `?toolsets=${g}`);
      const names = tools.map((t) => t.name);
      assert.ok(names.includes('whoami'), g);
      assert.ok(names.every((n) => n === 'whoami' || n === 'createUploadUrl' || registry.get(n)!.group === g), g);
      sizes.push(`${g} ${chars}`);
    }
    console.log(`# tools/list characters per toolset: ${sizes.join(', ')}`);
  });

  it('no schema uses a type list: nullable fields are anyOf with a null branch', async () => {
    const { tools } = await rawList(h.owner.apiKey, '?toolsets=all');
    const text = JSON.stringify(tools);
    assert.equal(text.match(/"type":\[/g)?.length ?? 0, 0);
    assert.ok((text.match(/"anyOf":\[/g)?.length ?? 0) > 10);
  });
});

describe('the README', () => {
  it("lists exactly the registry's open-world tools, and their number", async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const m = /carry `openWorldHint: true` \((\d+),[^)]*\): ([^.]+)\./.exec(readme);
    assert.ok(m, 'the README names the open-world tools');
    const listed = m[2].split(',').map((s) => s.trim());
    const flagged = [...registry.values()].filter((op) => op.flags.openWorld).map((op) => op.name);
    assert.deepEqual([...listed].sort(), [...flagged].sort());
    assert.equal(Number(m[1]), flagged.length);
  });
});

describe("Gemini's tool converter (@google/genai)", () => {
  let server: Server;
  let seen: any[] = [];
  before(async () => {
    // Stands in for generativelanguage.googleapis.com: records the request the SDK built, answers a minimal candidate.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('converts every tool, input and output, to Gemini schemas: one type per schema, null as nullable', async () => {
    const { tools } = await rawList(h.owner.apiKey, '?toolsets=all');
    const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } });
    seen = [];
    // The SDK's own conversion (processJsonSchema) runs on `parameters` and `response` given as JSON Schema.
    await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'hi',
      config: { tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema as any, ...(t.outputSchema ? { response: t.outputSchema as any } : {}) })) }] },
    });
    const declarations = seen[0].tools[0].functionDeclarations as any[];
    assert.equal(declarations.length, tools.length);
    const TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT']);
    const problems: string[] = [];
    const walk = (s: any, where: string) => {
      if (!s || typeof s !== 'object') return;
      if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${where}[${i}]`));
      if ('type' in s && !TYPES.has(s.type)) problems.push(`${where}: type ${JSON.stringify(s.type)}`);
      for (const [k, v] of Object.entries(s)) {
        if (k === 'properties') for (const [p, x] of Object.entries(v as object)) walk(x, `${where}.${p}`);
        else if (k === 'items' || k === 'anyOf') walk(v, `${where}.${k}`);
        else if (k === 'oneOf' || k === 'allOf' || k === '$ref') problems.push(`${where}: ${k} is not in Gemini's Schema`);
      }
    };
    for (const d of declarations) {
      walk(d.parameters, `${d.name}.parameters`);
      walk(d.response, `${d.name}.response`);
    }
    assert.deepEqual(problems, []);
    const payment = declarations.find((d) => d.name === 'paymentGet');
    // Outputs travel as an object described by its fields' notation.
    assert.equal(payment.response.type, 'OBJECT');
    assert.match(payment.response.description, /proof\{fileId, /);
    const list = declarations.find((d) => d.name === 'invoicesList');
    assert.equal(list.parameters.properties.limit.type, 'INTEGER');
  });
});
