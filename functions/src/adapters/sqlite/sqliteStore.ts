/**
 * The document-store port on Node's built-in SQLite (DESIGN.md "Storage port"): one `docs` table of
 * JSON documents, WAL, optimistic transactions validated under BEGIN IMMEDIATE, the writes of one event-loop turn
 * committed together (../sqliteTurn.ts), and expression indexes derived from firestore.indexes.json. SQL narrows and orders candidates; the JS evaluator
 * of sqliteQuery.ts is the authority on Firestore's comparison semantics. Split along its seams: the query
 * planner (sqliteQuery.ts), the connection with its metered cache (sqliteCore.ts), the transaction (sqliteTransaction.ts).
 */
import { ApiError } from '../../core/errors.ts';
import type { Batch, DocData, DocStore, Meter, Query, Transaction, UpdateData } from '../../ports/store.ts';
import { WriteBuffer, addTo, bufferedBatch, countReads, docPathParts, queryReads } from '../storeRules.ts';
import { compile, docOf } from './sqliteQuery.ts';
import { Core, Conflict, type SqliteStoreOptions } from './sqliteCore.ts';
import { SqliteTransaction } from './sqliteTransaction.ts';

export { REVALIDATE_MS, type SqliteStoreOptions } from './sqliteCore.ts';

const MAX_ATTEMPTS = 10;

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 2 ** attempt)));

/**
 * The store, or a metered view of it (one per request). A class, so a view costs one small object and not a dozen
 * closures: every API call makes one.
 */
class SqliteView implements DocStore {
  private readonly core: Core;
  private readonly meters: readonly Meter[];
  /** Metered views serve requests: they read through the document cache, checked once at creation. */
  private readonly cached: boolean;

  constructor(core: Core, meters: readonly Meter[]) {
    this.core = core;
    this.meters = meters;
    this.cached = meters.length > 0;
  }

  private async write(op: (b: WriteBuffer) => void): Promise<void> {
    const buf = new WriteBuffer();
    op(buf);
    await this.core.commit(buf.ops);
    addTo(this.meters, 0, buf.ops.length);
  }

  async get(path: string) {
    const { core } = this;
    // A path already in the cache passed this check when it was first read (a hot path: keys, members).
    let row = this.cached ? core.cachedRow(path) : undefined;
    if (row === undefined) {
      docPathParts(path);
      row = this.cached ? core.readRowCached(path) : core.readRow(path);
    }
    addTo(this.meters, 1, 0);
    return row ? docOf(row) : null;
  }

  async getAll(paths: string[]) {
    paths.forEach((p) => docPathParts(p));
    const rows = this.core.readRows(paths);
    addTo(this.meters, paths.length, 0);
    return rows.map((r) => (r ? docOf(r) : null));
  }

  async query(q: Query) {
    const c = compile(q);
    this.core.checkIndex(q);
    const { rows, skipped } = this.core.runQuery(c);
    addTo(this.meters, queryReads(rows.length, skipped), 0);
    return rows.map(docOf);
  }

  async count(q: Query) {
    const c = compile(q);
    this.core.checkIndex(q);
    const n = this.core.count(c);
    addTo(this.meters, countReads(n), 0);
    return n;
  }

  set(path: string, data: DocData) {
    return this.write((b) => b.set(path, data));
  }

  create(path: string, data: DocData) {
    return this.write((b) => b.create(path, data));
  }

  update(path: string, data: UpdateData) {
    return this.write((b) => b.update(path, data));
  }

  delete(path: string) {
    return this.write((b) => b.delete(path));
  }

  async runTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const { core, meters } = this;
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
        await core.commit(tx.writes.ops, () => tx.stillValid());
      } catch (e) {
        if (!(e instanceof Conflict)) throw e;
        if (attempt >= MAX_ATTEMPTS) throw new ApiError('aborted', `transaction gave up after ${MAX_ATTEMPTS} attempts on contention`, { reason: 'conflictRetry' });
        await backoff(attempt);
        continue;
      }
      addTo(meters, 0, tx.writes.ops.length);
      return result;
    }
  }

  batch(): Batch {
    return bufferedBatch((ops) => this.core.commit(ops), this.meters);
  }

  metered(meter: Meter): DocStore {
    this.core.revalidate();
    return new SqliteView(this.core, [...this.meters, meter]);
  }

  async close() {
    this.core.close();
  }
}

export function openSqliteStore(opts: SqliteStoreOptions): DocStore {
  return new SqliteView(new Core(opts), []);
}
