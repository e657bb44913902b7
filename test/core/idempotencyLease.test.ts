/**
 * The lease on an Idempotency-Key: a request that still runs keeps its key (the retry is told to wait), and a key
 * left by a request whose process died is taken over by the retry within the lease, not after minutes.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createHarness, type Harness } from '../harness.ts';
import { engines } from '../engines.ts';
import { createRegistry, operations } from '../../functions/src/operations/index.ts';
import { defineOperation } from '../../functions/src/core/defineOperation.ts';
import { input } from '../../functions/src/core/schema.ts';
import { IDEMPOTENCY_LEASE } from '../../functions/src/core/idempotency.ts';

// An operation that exists only here: it runs until the test opens its gate, and counts its runs.
let runs = 0;
let gate: Promise<void> = Promise.resolve();
let release: () => void = () => {};
const slow = defineOperation({
  name: 'slowWrite',
  group: 'test',
  summary: 'waits',
  flags: {},
  input: input({ n: z.int() }),
  output: z.object({ run: z.int() }),
  run: async () => {
    const run = ++runs;
    await gate;
    return { run };
  },
});

for (const engine of engines) {
  describe(engine.name, { skip: engine.skip }, () => {
    let h: Harness;
    let origin: string;
    let t = Date.parse('2026-11-03T09:00:00Z');
    const saved = { ...IDEMPOTENCY_LEASE };
    before(async () => {
      IDEMPOTENCY_LEASE.renewMs = 20;
      h = await createHarness({ env: await engine.env(), registry: createRegistry([...operations, slow]), overrides: { clock: { now: () => t } } });
      origin = await h.listen();
    });
    after(async () => {
      Object.assign(IDEMPOTENCY_LEASE, saved);
      // A failed assertion may leave a request waiting on the gate; open it, or closing the server would wait forever.
      release();
      await h.close();
    });

    const send = async (key: string) => {
      // Bounded: a retry that wrongly runs again would wait on the gate forever.
      const res = await fetch(`${origin}/v1/slowWrite`, { method: 'POST', signal: AbortSignal.timeout(60_000), headers: { authorization: `Bearer ${h.owner.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key }, body: '{"n":1}' });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as any };
    };
    const records = async () => h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/idempotency` });
    const until = async (cond: () => boolean | Promise<boolean>) => {
      // Generous: a cold Firestore emulator on a loaded machine takes seconds for a first transaction.
      for (let i = 0; i < 3000 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
    };

    test('a request still running keeps its key past the lease, by renewing it: the retry gets 409 and nothing runs twice', async () => {
      let open!: () => void;
      gate = new Promise((r) => (open = release = r));
      runs = 0;
      const first = send('still-running');
      await until(() => runs === 1);
      // Eleven minutes pass while it runs (a slow provider); its renewals keep the lease ahead of the clock.
      t += 11 * 60_000;
      const ours = async () => (await records()).find((d) => d.data.state === 'running');
      await until(async () => Number((await ours())?.data.leaseUntilMs) > t);
      const retry = await send('still-running');
      assert.equal(retry.status, 409);
      assert.equal(retry.body.error.code, 'aborted');
      open();
      assert.equal((await first).status, 200);
      const again = await send('still-running');
      assert.equal(again.replayed, 'true');
      assert.equal(again.body.result.run, 1);
      assert.equal(runs, 1);
    });

    test('a key left running by a process that died is taken over once its lease lapses (seconds, not ten minutes)', async () => {
      let open!: () => void;
      gate = new Promise((r) => (open = release = r));
      runs = 0;
      const first = send('crashed');
      await until(() => runs === 1);
      // The record exactly as the request left it when its process died mid-run (no one renews it any more).
      const left = (await records()).find((d) => d.data.state === 'running')!;
      open();
      await first;
      await h.app.services.store.set(left.path, left.data);

      const soon = await send('crashed');
      assert.equal(soon.status, 409, 'within the lease the holder may still be alive');
      t += IDEMPOTENCY_LEASE.ms + 1000;
      gate = Promise.resolve();
      const retry = await send('crashed');
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.replayed, null);
      assert.equal(retry.body.result.run, 2, 'the retry ran');
      assert.equal((await send('crashed')).replayed, 'true');
    });
  });
}
