import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { connectMcp } from './client.ts';

/**
 * Issue 20 item 3: MCP tool calls count against the per-key limit, shared with the HTTP API.
 * The clock stands still at the start of a window, so the minute never rolls over mid-test.
 */
describe('MCP under the per-key rate limit (limit 30 a minute)', () => {
  let h: Harness;
  let origin: string;
  const WINDOW_START = 1_800_000_000_000;

  before(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_MIN: '30' }, overrides: { clock: { now: () => WINDOW_START } } });
    origin = await h.listen();
  });
  after(() => h.close());

  it("the audit's repro: 40 HTTP calls (10 refused), then 60 MCP calls with the same key: all 60 refused, saying the limit and when to retry", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await post(origin, '/v1/whoami', {}, h.owner.apiKey)).status);
    assert.equal(statuses.filter((s) => s === 200).length, 30);
    assert.equal(statuses.filter((s) => s === 429).length, 10);

    const { client } = await connectMcp(origin, h.owner.apiKey, 'rate-limit-test');
    const results: CallToolResult[] = [];
    for (let i = 0; i < 60; i++) results.push((await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult);
    await client.close();
    assert.equal(results.filter((r) => !r.isError).length, 0, 'a key used up on HTTP is used up on MCP');
    const refusal = JSON.parse((results[0].content[0] as { text: string }).text);
    assert.equal(refusal.code, 'resource-exhausted');
    assert.match(refusal.message, /30 requests a minute per API key/);
    assert.match(refusal.message, /retry in 60 s/);
    assert.equal(refusal.retryAfterSec, 60);
    assert.equal(results[0].structuredContent, undefined);
  });

  it('MCP calls use up the allowance for HTTP too', async () => {
    const user = await h.addMember('user');
    const { client, call } = await connectMcp(origin, user.apiKey, 'rate-limit-test');
    for (let i = 0; i < 30; i++) assert.equal((await call('whoami')).isError, false, `call ${i + 1}`);
    assert.equal((await call('whoami')).isError, true);
    await client.close();
    const res = await post(origin, '/v1/whoami', {}, user.apiKey);
    assert.equal(res.status, 429);
  });

  it('one batched JSON-RPC request of 100 tool calls gets 30 through, and the response says what is left', async () => {
    const user = await h.addMember('user');
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }));
    const res = await fetch(`${origin}/mcp?toolsets=all`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26', authorization: `Bearer ${user.apiKey}` },
      body: JSON.stringify(batch),
    });
    assert.equal(res.status, 200);
    const answers = (await res.json()) as { id: number; result: CallToolResult }[];
    assert.equal(answers.length, 100);
    const ok = answers.filter((a) => !a.result.isError);
    assert.equal(ok.length, 30);
    for (const a of answers.filter((x) => x.result.isError)) assert.equal(JSON.parse((a.result.content[0] as { text: string }).text).code, 'resource-exhausted');
    assert.match(res.headers.get('ratelimit') ?? '', /^"per-key";r=0;t=60, "per-user";r=\d+;t=60, "per-business";r=\d+;t=60$/);
    assert.equal(res.headers.get('ratelimit-policy'), '"per-key";q=30;w=60, "per-user";q=1200;w=60, "per-business";q=3000;w=60');
  });
});
