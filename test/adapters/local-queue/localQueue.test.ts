import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '../../../functions/src/adapters/sqlite/sqliteStore.ts';
import { loadIndexes } from '../../../functions/src/adapters/indexCoverage.ts';
import { localQueue } from '../../../functions/src/adapters/local-queue/localQueue.ts';
import { silentLogger } from '../../../functions/src/core/logger.ts';

const dir = mkdtempSync(join(tmpdir(), 'bfo-queue-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const open = () => openSqliteStore({ file: join(dir, 'q.sqlite'), indexes: loadIndexes('firestore.indexes.json'), strictIndexes: true });

test('tasks survive a restart and run once', async () => {
  let store = open();
  const ran: unknown[] = [];
  let q = localQueue(store, { work: async (p) => void ran.push(p) }, silentLogger);
  await q.enqueue('work', { n: 1 });
  await q.enqueue('work', { n: 2 }, { id: 'dedupe-me' });
  await q.enqueue('work', { n: 3 }, { id: 'dedupe-me' });
  await store.close();
  store = open();
  q = localQueue(store, { work: async (p) => void ran.push(p) }, silentLogger);
  assert.equal(await q.drain(), 2);
  assert.deepEqual(ran.map((p: any) => p.n).sort(), [1, 2]);
  assert.equal(await q.drain(), 0);
  await store.close();
});

test('a failing task is retried with growing backoff', async () => {
  const store = open();
  let now = 1_000_000;
  let failures = 2;
  let runs = 0;
  const q = localQueue(store, { flaky: async () => { runs++; if (failures-- > 0) throw new Error('down'); } }, silentLogger, () => now);
  await q.enqueue('flaky', {});
  await q.drain();
  assert.equal(runs, 1);
  await q.drain();
  assert.equal(runs, 1, 'not before the backoff');
  now += 2_000;
  await q.drain();
  assert.equal(runs, 2);
  now += 2_000;
  await q.drain();
  assert.equal(runs, 2, 'the second backoff is longer');
  now += 4_000;
  await q.drain();
  assert.equal(runs, 3);
  const [task] = await store.query({ collection: '_tasks', where: [['queue', '==', 'flaky']] });
  assert.equal(task.data.state, 'done');
  await store.close();
});

test('a delay holds a task back', async () => {
  const store = open();
  let now = 5_000_000;
  let runs = 0;
  const q = localQueue(store, { later: async () => void runs++ }, silentLogger, () => now);
  await q.enqueue('later', {}, { delaySeconds: 30 });
  await q.drain();
  assert.equal(runs, 0);
  now += 31_000;
  await q.drain();
  assert.equal(runs, 1);
  await store.close();
});

test('hanging tasks of one business hold neither an outbox delivery nor another business: slots per kind, a cap per business', { timeout: 30_000 }, async () => {
  const store = open();
  let release!: () => void;
  const hung = new Promise<void>((r) => (release = r));
  const started: string[] = [];
  let others!: () => void;
  const othersRan = new Promise<void>((r) => (others = r));
  const note = (what: string) => {
    started.push(what);
    if (['outbox A', 'outbox B', 'sync bizB'].every((w) => started.includes(w))) others();
  };
  const q = localQueue(
    store,
    {
      // Business A's provider never answers; B's does.
      statementSync: async (p) => {
        note(`sync ${p.businessId}`);
        if (p.businessId === 'bizA') await hung;
      },
      outboxDeliver: async (p) => note(String(p.path).startsWith('businesses/bizA/') ? 'outbox A' : 'outbox B'),
    },
    silentLogger,
    undefined,
    500,
    { concurrency: 4, perBusiness: 2 },
  );
  for (let i = 0; i < 6; i++) await q.enqueue('statementSync', { businessId: 'bizA', accountId: `a${i}` });
  await q.enqueue('outboxDeliver', { path: 'businesses/bizB/outbox/m1' });
  await q.enqueue('statementSync', { businessId: 'bizB', accountId: 'b1' });
  await q.enqueue('outboxDeliver', { path: 'businesses/bizA/outbox/m2' });
  const drained = q.drain();
  await othersRan;
  // A's six syncs are still hanging or waiting: two of them hold A's two slots, none finished.
  assert.equal(started.filter((s) => s === 'sync bizA').length, 2, 'business A holds at most its cap');
  const waiting = await store.query({ collection: '_tasks', where: [['state', '==', 'queued']] });
  // Counted for A alone: B's sync has started, but may not be marked done yet when this reads.
  assert.equal(waiting.filter((t) => t.data.queue === 'statementSync' && t.data.tenant === 'bizA').length, 6, 'A\'s syncs are leased or queued, none done');
  release();
  const total = await drained;
  assert.equal(total, 9);
  assert.equal(started.filter((s) => s === 'sync bizA').length, 6);
  await store.close();
});

test('a task whose worker was killed (kill -9) is taken over at once, not after its lease; a live holder keeps it', { timeout: 60_000 }, async (t) => {
  const store = open();
  const now = 9_000_000;
  let ran = 0;
  const q = localQueue(store, { hang: async () => void ran++ }, silentLogger, () => now);
  await q.enqueue('hang', { businessId: 'bizK' }, { id: 'killed-task' });
  const child = spawn(process.execPath, [fileURLToPath(new URL('./leaseHolder.ts', import.meta.url)), join(dir, 'q.sqlite'), String(now)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  t.after(() => void child.kill('SIGKILL')); // never left behind when an assertion fails first
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('running') && resolve());
    child.once('exit', () => reject(new Error('the worker exited before it ran the task')));
  });
  const [leased] = await store.query({ collection: '_tasks', where: [['queue', '==', 'hang']] });
  assert.equal(leased.data.attempts, 1);
  assert.equal((leased.data.lease as any).pid, child.pid);
  assert.ok(Number(leased.data.runAt) > now, 'leased: not due');
  // The holder is alive: the task stays with it.
  assert.equal(await q.drain(), 0);
  assert.equal(ran, 0);
  child.kill('SIGKILL');
  await exited;
  // Same clock: the lease has not lapsed, but its holder is known to be gone.
  assert.equal(await q.drain(), 1);
  assert.equal(ran, 1);
  const [done] = await store.query({ collection: '_tasks', where: [['queue', '==', 'hang']] });
  assert.equal(done.data.state, 'done');
  assert.equal(done.data.attempts, 2, 'the killed attempt counts');
  await store.close();
});
