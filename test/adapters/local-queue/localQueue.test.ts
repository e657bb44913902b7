import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
