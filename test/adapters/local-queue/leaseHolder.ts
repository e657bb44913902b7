/**
 * A worker process for the lease test of localQueue.test.ts: opens the store at argv[2], claims the due task with a
 * handler that never returns, says "running" on stdout and waits to be killed.
 */
import { openSqliteStore } from '../../../functions/src/adapters/sqlite/sqliteStore.ts';
import { loadIndexes } from '../../../functions/src/adapters/indexCoverage.ts';
import { localQueue } from '../../../functions/src/adapters/local-queue/localQueue.ts';
import { silentLogger } from '../../../functions/src/core/logger.ts';

const store = openSqliteStore({ file: process.argv[2], indexes: loadIndexes('firestore.indexes.json'), strictIndexes: true });
const now = () => Number(process.argv[3]);
const q = localQueue(store, { hang: () => new Promise<void>(() => void process.stdout.write('running\n')) }, silentLogger, now);
void q.drain();
setInterval(() => undefined, 60_000);
