/**
 * The document-store port on Node's built-in SQLite (DESIGN.md "Storage port"): one `docs` table of
 * JSON documents, WAL, optimistic transactions validated under BEGIN IMMEDIATE, and expression
 * indexes derived from firestore.indexes.json. SQL narrows and orders candidates; the JS evaluator
 * of sqliteQuery.ts is the authority on Firestore's comparison semantics. Split along its seams: the query
 * planner (sqliteQuery.ts), the connection with its metered cache (sqliteCore.ts), the transaction (sqliteTransaction.ts).
 */
import { ApiError } from '../../core/errors.ts';
import type { Batch, DocStore, Meter, Transaction } from '../../ports/store.ts';
import { WriteBuffer, addTo, bufferedBatch, countReads, docPathParts, queryReads } from '../storeRules.ts';
import { compile, docOf } from './sqliteQuery.ts';
import { Core, Conflict, type SqliteStoreOptions } from './sqliteCore.ts';
import { SqliteTransaction } from './sqliteTransaction.ts';

export { REVALIDATE_MS, type SqliteStoreOptions } from './sqliteCore.ts';

const MAX_ATTEMPTS = 10;

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 2 ** attempt)));

function makeStore(core: Core, meters: readonly Meter[]): DocStore {
  // Metered views serve requests: they read through the document cache, checked once at creation.
  const cached = meters.length > 0;
  const write = async (op: (b: WriteBuffer) => void) => {
    const buf = new WriteBuffer();
    op(buf);
    core.commit(buf.ops);
    addTo(meters, 0, buf.ops.length);
  };
  return {
    async get(path) {
      // A path already in the cache passed this check when it was first read (a hot path: keys, members).
      let row = cached ? core.cachedRow(path) : undefined;
      if (row === undefined) {
        docPathParts(path);
        row = cached ? core.readRowCached(path) : core.readRow(path);
      }
      addTo(meters, 1, 0);
      return row ? docOf(row) : null;
    },
    async getAll(paths) {
      paths.forEach((p) => docPathParts(p));
      const rows = core.readRows(paths);
      addTo(meters, paths.length, 0);
      return rows.map((r) => (r ? docOf(r) : null));
    },
    async query(q) {
      const c = compile(q);
      core.checkIndex(q);
      const { rows, skipped } = core.runQuery(c);
      addTo(meters, queryReads(rows.length, skipped), 0);
      return rows.map(docOf);
    },
    async count(q) {
      const c = compile(q);
      core.checkIndex(q);
      const n = core.count(c);
      addTo(meters, countReads(n), 0);
      return n;
    },
    set: (path, data) => write((b) => b.set(path, data)),
    create: (path, data) => write((b) => b.create(path, data)),
    update: (path, data) => write((b) => b.update(path, data)),
    delete: (path) => write((b) => b.delete(path)),
    async runTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const tx = new SqliteTransaction(core, meters);
        let result: T;
        try {
          result = await fn(tx);
        } catch (e) {
          // A failure computed from stale reads is a conflict in disguise: run again on fresh data.
          if (attempt < MAX_ATTEMPTS && !tx.stillValid()) {
            await backoff(attempt);
            continue;
          }
          throw e;
        }
        try {
          core.commit(tx.writes.ops, () => tx.stillValid());
        } catch (e) {
          if (!(e instanceof Conflict)) throw e;
          if (attempt >= MAX_ATTEMPTS) throw new ApiError('aborted', `transaction gave up after ${MAX_ATTEMPTS} attempts on contention`);
          await backoff(attempt);
          continue;
        }
        addTo(meters, 0, tx.writes.ops.length);
        return result;
      }
    },
    batch: (): Batch => bufferedBatch((ops) => core.commit(ops), meters),
    metered: (meter) => {
      core.revalidate();
      return makeStore(core, [...meters, meter]);
    },
    async close() {
      core.close();
    },
  };
}

export function openSqliteStore(opts: SqliteStoreOptions): DocStore {
  return makeStore(new Core(opts), []);
}
