import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../functions/src/adapters/sqlite/sqliteStore.ts';
import { loadIndexes } from '../../functions/src/adapters/indexCoverage.ts';
import { DEFER_S, slotPath, withTenantSlot } from '../../functions/src/core/tenantSlots.ts';
import type { TaskOptions } from '../../functions/src/ports/tasks.ts';

/**
 * The per-business cap of the Cloud Tasks functions (index.ts wraps every handler in withTenantSlot), on the real
 * SQLite store: Cloud Tasks itself limits only a queue's dispatches.
 */
const dir = mkdtempSync(join(tmpdir(), 'bfo-slots-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const store = openSqliteStore({ file: join(dir, 's.sqlite'), indexes: loadIndexes('firestore.indexes.json'), strictIndexes: true });
after(() => store.close());
let now = 1_000_000;
const enqueued: { queue: string; payload: Record<string, unknown>; opts: TaskOptions }[] = [];
const s = { store, clock: { now: () => now }, tasks: { redeliveryMs: 0, enqueue: async (queue: string, payload: Record<string, unknown>, opts: TaskOptions = {}) => void enqueued.push({ queue, payload, opts }) } };

test('a business with its slots taken waits (put back with a delay, no attempt spent); another business runs; a freed slot is taken', async () => {
  const release: (() => void)[] = [];
  const hang = () => new Promise<void>((r) => release.push(r));
  const slot = (taskId: string, businessId: string, run: () => Promise<void>) => withTenantSlot(s, { queue: 'statementSync', taskId, payload: { businessId, accountId: taskId }, cap: 2, leaseMs: 550_000 }, run);
  const a1 = slot('a1', 'bizA', hang);
  const a2 = slot('a2', 'bizA', hang);
  while (release.length < 2) await new Promise((r) => setImmediate(r));
  let ran = 0;
  assert.equal(await slot('a3', 'bizA', async () => void ran++), 'deferred');
  assert.equal(ran, 0);
  assert.deepEqual(enqueued.map((e) => [e.queue, e.opts.id, e.opts.delaySeconds, e.payload.accountId, e.payload._deferrals]), [['statementSync', 'a3-wait1', DEFER_S, 'a3', 1]]);
  assert.equal(await slot('b1', 'bizB', async () => void ran++), 'ran', 'another business is not held up');
  // The deferred task, delivered again while A is still full, waits once more under a new id of the same root.
  const again = enqueued[0].payload;
  assert.equal(await withTenantSlot(s, { queue: 'statementSync', taskId: 'a3-wait1', payload: again, cap: 2, leaseMs: 550_000 }, async () => void ran++), 'deferred');
  assert.equal(enqueued[1].opts.id, 'a3-wait2');
  release[0]();
  assert.equal(await a1, 'ran');
  assert.equal(await withTenantSlot(s, { queue: 'statementSync', taskId: 'a3-wait2', payload: enqueued[1].payload, cap: 2, leaseMs: 550_000 }, async () => void ran++), 'ran');
  assert.equal(ran, 2);
  release[1]();
  await a2;
});

test('the slot of a holder that died lapses after its lease; no cap or no business runs at once', async () => {
  const never = withTenantSlot(s, { queue: 'mailboxImportBatch', taskId: 'dead1', payload: { businessId: 'bizC' }, cap: 1, leaseMs: 60_000 }, () => new Promise<void>(() => undefined));
  void never;
  while (!((await store.get(slotPath('mailboxImportBatch', 'bizC')))?.data as any)?.holders?.dead1) await new Promise((r) => setImmediate(r));
  let ran = 0;
  assert.equal(await withTenantSlot(s, { queue: 'mailboxImportBatch', taskId: 'c2', payload: { businessId: 'bizC' }, cap: 1, leaseMs: 60_000 }, async () => void ran++), 'deferred');
  now += 61_000;
  assert.equal(await withTenantSlot(s, { queue: 'mailboxImportBatch', taskId: 'c3', payload: { businessId: 'bizC' }, cap: 1, leaseMs: 60_000 }, async () => void ran++), 'ran');
  assert.equal(await withTenantSlot(s, { queue: 'outboxDeliver', taskId: 'o1', payload: { path: 'businesses/bizC/outbox/x' }, cap: 0, leaseMs: 60_000 }, async () => void ran++), 'ran');
  assert.equal(ran, 2);
});
