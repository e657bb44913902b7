import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createHarness, type Harness } from '../harness.ts';
import { post } from '../http.ts';
import { createRegistry, operations } from '../../functions/src/operations/index.ts';
import { defineOperation } from '../../functions/src/core/defineOperation.ts';
import { input } from '../../functions/src/core/schema.ts';
import { QuotaReservation } from '../../functions/src/core/quota.ts';
import { jerusalemDay } from '../../functions/src/core/clock.ts';

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

describe('a reservation of quota units for a run of work (a mail import\'s batch)', () => {
  const counter = async (businessId: string) => Number((await h.app.services.store.get(`businesses/${businessId}/quotas/ai_${jerusalemDay(now)}`))?.data.used ?? 0);
  const reservation = (businessId: string, planned: number) =>
    new QuotaReservation({ store: h.app.services.store, limits: h.config.quotas, businessId, name: 'ai', planned, now: () => now });

  test('units taken together are charged once each; what was reserved and not taken goes back', async () => {
    const b = await h.newBusiness();
    const r = reservation(b.businessId, 4);
    await Promise.all([r.take(), r.take()]);
    assert.equal(await counter(b.businessId), 4, 'the run reserved what it planned');
    await r.release();
    assert.equal(await counter(b.businessId), 2, 'the two left went back');
    assert.equal((await post(origin, '/v1/aiRead', { pages: 3 }, b.apiKey)).status, 200);
    assert.equal((await post(origin, '/v1/aiRead', { pages: 1 }, b.apiKey)).status, 429);
  });

  test('near the limit it gets what is left, then refuses like the quota', async () => {
    const b = await h.newBusiness();
    assert.equal((await post(origin, '/v1/aiRead', { pages: 3 }, b.apiKey)).status, 200);
    const r = reservation(b.businessId, 10);
    await r.take();
    await r.take();
    await assert.rejects(r.take(), (e: any) => e.code === 'resource-exhausted' && /ai quota of 5/.test(e.message));
    await r.release();
    assert.equal(await counter(b.businessId), 5);
  });

  test('more uses than planned reserve again; units of a day that ended go back to that day', async () => {
    const b = await h.newBusiness();
    const r = reservation(b.businessId, 2);
    for (let i = 0; i < 3; i++) await r.take();
    assert.equal(await counter(b.businessId), 3);
    const day1 = jerusalemDay(now);
    const r2 = reservation(b.businessId, 2);
    await r2.take();
    assert.equal(await counter(b.businessId), 5);
    now += 24 * 3600 * 1000;
    await r2.take();
    assert.equal(Number((await h.app.services.store.get(`businesses/${b.businessId}/quotas/ai_${day1}`))!.data.used), 4, 'the unit left of the day before went back');
    assert.equal(await counter(b.businessId), 1, 'the new day charged one');
  });
});
