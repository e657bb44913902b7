import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { registry } from '../../../functions/src/operations/index.ts';

/**
 * Issue 34 C15: the MCP spec's defaults for omitted hints are destructive and open-world
 * (ToolAnnotations), so every tool says all four hints, as both official clients read them.
 */
let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
});
after(() => h.close());

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
type Hints = Record<(typeof HINTS)[number], boolean>;

async function listWith(sdk: 1 | 2, query: string): Promise<Map<string, Hints>> {
  const url = new URL(`/mcp${query}`, origin);
  const requestInit = { headers: { authorization: `Bearer ${h.owner.apiKey}` } };
  const client = sdk === 1 ? new Client1({ name: 'hints-sdk1', version: '1.0.0' }) : new Client2({ name: 'hints-sdk2', version: '1.0.0' });
  await client.connect(sdk === 1 ? new Transport1(url, { requestInit }) : new Transport2(url, { requestInit }));
  const { tools } = await client.listTools();
  await client.close();
  return new Map(tools.map((t) => [t.name, (t.annotations ?? {}) as Hints]));
}

for (const sdk of [1, 2] as const) {
  test(`SDK ${sdk}.x: every tool of ?toolsets=all and the default list states all four hints`, async () => {
    for (const query of ['?toolsets=all', '']) {
      const tools = await listWith(sdk, query);
      assert.ok(tools.size > (query ? 100 : 10), query);
      for (const [name, a] of tools) {
        for (const hint of HINTS) assert.equal(typeof a[hint], 'boolean', `${name}${query}: ${hint}`);
        // A read changes nothing, so it destroys nothing and repeats safely.
        if (a.readOnlyHint) assert.deepEqual([a.destructiveHint, a.idempotentHint], [false, true], name);
      }
    }
  });

  test(`SDK ${sdk}.x: the hints a user relies on`, async () => {
    const tools = await listWith(sdk, '?toolsets=all');
    assert.deepEqual(tools.get('whoami'), { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(tools.get('paymentsList'), { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(tools.get('cancelPayment'), { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    assert.deepEqual(tools.get('createPayment'), { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    assert.equal(tools.get('analyzeInvoice')!.openWorldHint, true, 'AI reading');
    assert.equal(tools.get('chatListUsers')!.openWorldHint, true, 'a provider read');
    // Starting a consent only builds the provider's link; the user goes there, not the tool.
    for (const name of ['marketConnectStart', 'mailboxConnectStart', 'chatConnectStart', 'itaConnectStart']) assert.equal(tools.get(name)!.openWorldHint, false, name);
    // Each tool says exactly what the registry knows of its operation.
    for (const op of registry.values()) {
      const readOnly = Boolean(op.flags.readOnly);
      assert.deepEqual(
        tools.get(op.name),
        { readOnlyHint: readOnly, destructiveHint: !readOnly && Boolean(op.flags.dangerous), idempotentHint: readOnly || Boolean(op.flags.idempotent), openWorldHint: Boolean(op.flags.openWorld) },
        op.name,
      );
    }
  });
}
