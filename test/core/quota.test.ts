import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createHarness, type Harness } from '../harness.ts';
import { post } from '../http.ts';
import { createRegistry, operations } from '../../functions/src/operations/index.ts';
import { defineOperation } from '../../functions/src/core/defineOperation.ts';
import { input } from '../../functions/src/core/schema.ts';

// Stands in for the AI-backed operations that will charge the `ai` quota.
const aiRead = defineOperation({
  name: 'aiRead',
  group: 'test',
  summary: 'charges the ai quota',
  flags: {},
  input: input({ pages: z.int().min(1).max(10) }),
  output: z.object({ ok: z.boolean() }),
  async run({ pages }, ctx) {
    await ctx.consumeQuota('ai', pages);
    return { ok: true };
  },
});

let h: Harness;
let origin: string;
let now = Date.parse('2026-11-21T10:00:00Z');
before(async () => {
  h = await createHarness({ env: { QUOTA_AI: '5' }, registry: createRegistry([...operations, aiRead]), overrides: { clock: { now: () => now } } });
  origin = await h.listen();
});
after(() => h.close());

test('the daily quota is configurable and answers 429 resource-exhausted when used up', async () => {
  assert.equal(h.config.quotas.ai, 5);
  assert.equal((await post(origin, '/v1/aiRead', { pages: 3 }, h.owner.apiKey)).status, 200);
  assert.equal((await post(origin, '/v1/aiRead', { pages: 2 }, h.owner.apiKey)).status, 200);
  const res = await post(origin, '/v1/aiRead', { pages: 1 }, h.owner.apiKey);
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, 'resource-exhausted');
  assert.match(res.body.error.message, /ai quota of 5/);
});

test('a call that would cross the limit is refused whole', async () => {
  const other = await h.newBusiness();
  assert.equal((await post(origin, '/v1/aiRead', { pages: 4 }, other.apiKey)).status, 200);
  assert.equal((await post(origin, '/v1/aiRead', { pages: 2 }, other.apiKey)).status, 429);
  assert.equal((await post(origin, '/v1/aiRead', { pages: 1 }, other.apiKey)).status, 200);
});

test('quotas are per business and reset the next UTC day', async () => {
  const fresh = await h.newBusiness();
  assert.equal((await post(origin, '/v1/aiRead', { pages: 5 }, fresh.apiKey)).status, 200);
  assert.equal((await post(origin, '/v1/aiRead', { pages: 1 }, h.owner.apiKey)).status, 429);
  now += 24 * 3600 * 1000;
  assert.equal((await post(origin, '/v1/aiRead', { pages: 5 }, h.owner.apiKey)).status, 200);
});

test('parallel calls never exceed the quota', async () => {
  const b = await h.newBusiness();
  const results = await Promise.all(Array.from({ length: 8 }, () => post(origin, '/v1/aiRead', { pages: 1 }, b.apiKey)));
  assert.equal(results.filter((r) => r.status === 200).length, 5);
  assert.equal(results.filter((r) => r.status === 429).length, 3);
});
