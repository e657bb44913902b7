/**
 * The SQLite store's connection: the `docs` table, the expression indexes from firestore.indexes.json, reads,
 * the document cache of metered (per-request) views, and commits (sqliteStore.ts).
 */
import { mkdirSync } from 'node:fs';
import { PRIVATE_DIR_MODE, privateDatabase } from '../../core/privateFs.ts';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import type { StatementSync } from 'node:sqlite';
import { ApiError } from '../../core/errors.ts';
import { LIMITS } from '../../ports/store.ts';
import type { DocData, Query } from '../../ports/store.ts';
import { assertIndexed, loadIndexes } from '../indexCoverage.ts';
import { TurnCommit } from '../sqliteTurn.ts';
import { applyUpdate, checkWriteCount, docPathParts, fieldSegments } from '../storeRules.ts';
import type { IndexesFile } from '../indexCoverage.ts';
import type { WriteOp } from '../storeRules.ts';
import { accepts, compareRows, blockKey, jsonPath, rankExpr, valExpr, lit, type Compiled, type Row } from './sqliteQuery.ts';

export interface SqliteStoreOptions {
  file: string;
  /** Defaults to the repository's firestore.indexes.json. */
  indexes?: IndexesFile;
  /** Refuse queries that the indexes file does not cover, as production Firestore does. */
  strictIndexes?: boolean;
}

const BUSY_TIMEOUT_MS = 5000;
/** Commits of every connection of this process: a shared read transaction older than the last one is renewed. */
let processCommits = 0;
/** Versions an epoch spans: epoch × 2^32 stays an exact integer for two million epochs. */
const EPOCH_SPAN = 2 ** 32;

// ---------------------------------------------------------------------------------------------

export class Conflict extends Error {}

export class Core {
  readonly db: DatabaseSync;
  readonly strict: boolean;
  readonly indexes: IndexesFile;
  private readonly cache = new Map<string, StatementSync>();
  private closed = false;
  /**
   * Documents read through metered (per-request) views, as stored JSON. Own commits drop the paths
   * they write at once. Another connection's commit (the admin CLI) changes `PRAGMA data_version`,
   * which new views check at most every REVALIDATE_MS, clearing everything: such writes show within
   * that bound. Transactions never read through the cache.
   */
  private readonly docs = new Map<string, CachedDoc | null>();
  private dataVersion = -1;
  /** Commits of this connection; with `PRAGMA data_version` (other connections' commits) it says whether anything changed. */
  commits = 0;
  /** Whether this connection holds the read transaction its reads outside a write share (shareRead), since which process commit. */
  private reading = false;
  private readFrom = 0;
  /** This connection's version epoch (0 before its first write) and its last number within it. */
  private epoch = 0;
  private seq = 0;
  private writesSinceOptimize = 0;
  /** This turn's writes (commit). */
  private readonly turn: TurnCommit;
  private checkedAt = -Infinity;

  constructor(opts: SqliteStoreOptions) {
    if (opts.file !== ':memory:' && !opts.file.startsWith('file:')) {
      mkdirSync(dirname(opts.file), { recursive: true, mode: PRIVATE_DIR_MODE });
      // Every document of every business: the owner's alone (its WAL and shared memory take its mode).
      privateDatabase(opts.file);
    }
    this.db = new DatabaseSync(opts.file, { timeout: BUSY_TIMEOUT_MS });
    this.strict = opts.strictIndexes === true;
    this.indexes = opts.indexes ?? Core.defaultIndexes(this.strict);
    const db = this.db;
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // A checkpoint copies every page changed since the last one back into the database (and syncs it). Index pages
    // change on nearly every commit, so checkpointing every 8,000 pages (about 32 MB of WAL, not the default 1,000)
    // copies each hot page once where it was copied eight times; the WAL file is reset after each checkpoint.
    db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    // Deleted and overwritten rows are zeroed, not left in free pages where a copy of the file would still show them
    // (a redacted record, a deleted document): docs/decisions.md.
    db.exec('PRAGMA secure_delete = ON');
    db.exec(`CREATE TABLE IF NOT EXISTS docs (
      path TEXT PRIMARY KEY,
      parent TEXT NOT NULL,
      collection_id TEXT NOT NULL,
      data TEXT NOT NULL,
      version INTEGER NOT NULL
    )`);
    db.exec('CREATE INDEX IF NOT EXISTS docs_parent ON docs(parent, path)');
    // No index over every document by collection id: collection-group queries need a declared index in Firestore, and
    // each declared one is built here, partial on its collection id. Such an index cost every write of every document
    // a B-tree insert (issue 23); a store made by an earlier version loses it when it opens.
    try {
      db.exec('DROP INDEX IF EXISTS docs_group');
    } catch {
      // Another process holding the write lock: the next open drops it.
    }
    // Versions never repeat, so a deleted and re-created document never shows a version a transaction read before:
    // each connection takes an epoch from this counter (its first write) and numbers its commits within it.
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)');
    db.exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('version', 0)`);
    this.createIndexes();
    this.turn = new TurnCommit(db, {
      begin: () => {
        this.endRead();
        if (this.epoch === 0 || this.seq >= EPOCH_SPAN - 1) this.newEpoch();
        this.begin('BEGIN IMMEDIATE');
      },
      // Reads of the turn may have cached writes that are now undone.
      onUndo: () => this.docs.clear(),
      onCommit: (writes) => this.committed(writes),
    });
    // Without statistics the planner prefers an index that yields path order (and scans a whole collection)
    // over a selective expression index; keep them current (bounded work, as SQLite recommends).
    db.exec(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT}`);
    try {
      db.exec('PRAGMA optimize = 0x10002');
    } catch {
      // Another process holding the write lock past busy_timeout: only plans suffer, and the next optimize catches up.
    }
  }

  /** A broken indexes file must stop a strict store, but only costs a lenient one its indexes. */
  private static defaultIndexes(strict: boolean): IndexesFile {
    try {
      return loadIndexes();
    } catch (e) {
      if (strict) throw e;
      return { indexes: [], fieldOverrides: [] };
    }
  }

  private createIndexes(): void {
    const defs: string[] = [];
    const cols = (fields: { fieldPath?: unknown; order?: unknown; arrayConfig?: unknown }[]) => {
      const out: string[] = [];
      for (const f of fields) {
        if (!f || typeof f.fieldPath !== 'string' || f.arrayConfig) continue; // array-contains has no expression form
        const dir = f.order === 'DESCENDING' ? 'DESC' : 'ASC';
        if (f.fieldPath === '__name__') {
          out.push(`path ${dir}`);
          continue;
        }
        const jp = jsonPath(fieldSegments(f.fieldPath));
        if (!jp) continue;
        out.push(`${rankExpr(jp)} ${dir}`, `${valExpr(jp)} ${dir}`);
      }
      return out;
    };
    // Every index is partial, on its collection id: a write to any other collection never touches it (a
    // collection-group index without the condition held an entry for every document of every collection, so each
    // write of anything paid for ten of them). Queries name the collection id as a literal, so the planner can use them.
    const wanted: { cg: string; scope: unknown; columns: string[] }[] = [];
    for (const ix of this.indexes.indexes ?? []) {
      try {
        if (typeof ix?.collectionGroup !== 'string' || !ix.collectionGroup || !Array.isArray(ix.fields)) continue;
        const c = cols(sqliteFields(ix.fields));
        if (c.length) wanted.push({ cg: ix.collectionGroup, scope: ix.queryScope, columns: c });
      } catch {
        // Best effort: an entry we cannot express only costs speed, never correctness.
      }
    }
    for (const o of this.indexes.fieldOverrides ?? []) {
      try {
        if (typeof o?.collectionGroup !== 'string' || typeof o.fieldPath !== 'string' || !Array.isArray(o.indexes)) continue;
        for (const ix of o.indexes) {
          if (!ix?.order) continue;
          // One field's index serves both orders (SQLite reads it backwards): no descending twin of an ascending one.
          if (ix.order === 'DESCENDING' && o.indexes.some((a: { order?: unknown; queryScope?: unknown }) => a?.order === 'ASCENDING' && a.queryScope === ix.queryScope)) continue;
          const c = cols([{ fieldPath: o.fieldPath, order: ix.order }]);
          if (c.length) wanted.push({ cg: o.collectionGroup, scope: ix.queryScope, columns: c });
        }
      } catch {
        // as above
      }
    }
    // An index whose columns begin another index's (same collection, same scope) answers nothing the longer one does
    // not: a single-field override such as invoices' vendorKey beside (vendorKey, reading.number). It is left out, as
    // every index costs each write of its collection (issue 23).
    const key = (w: (typeof wanted)[number]) => `${w.scope === 'COLLECTION_GROUP' ? 'group' : 'parent'} ${w.cg}`;
    const covered = (w: (typeof wanted)[number]) =>
      wanted.some((o) => o !== w && key(o) === key(w) && o.columns.length > w.columns.length && w.columns.every((c, i) => o.columns[i] === c));
    for (const w of wanted) {
      if (covered(w)) continue;
      defs.push(
        w.scope === 'COLLECTION_GROUP'
          ? `ON docs(${w.columns.join(', ')}) WHERE collection_id = ${lit(w.cg)}`
          : `ON docs(parent, ${w.columns.join(', ')}) WHERE collection_id = ${lit(w.cg)}`,
      );
    }
    const names = new Set<string>();
    for (const def of new Set(defs)) {
      const name = 'ix_' + createHash('sha256').update(def).digest('hex').slice(0, 16);
      names.add(name);
      try {
        this.db.exec(`CREATE INDEX IF NOT EXISTS ${name} ${def}`);
      } catch {
        // as above
      }
    }
    // An index no longer derived from the file (a store made by an earlier version) only costs every write: dropped.
    try {
      for (const { name } of this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix\\_%' ESCAPE '\\'`).all() as { name: string }[]) {
        if (!names.has(name)) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
      }
    } catch {
      // Another process holding the write lock: the next open drops them.
    }
  }

  /**
   * Reads outside a write share one read transaction until the end of this turn of the event loop: a statement on its
   * own takes and drops the WAL's read lock, system calls that cost about 5 µs a statement here (a read by path is
   * 1.7 µs inside a transaction, 7 µs alone; issue 23). A commit of this connection ends it first, and so does one of
   * another connection of this process (tests open two); another process's commit is seen from the next turn on.
   */
  private shareRead(): void {
    if (this.reading) {
      if (processCommits === this.readFrom) return;
      this.endRead();
    }
    // Inside a write (a commit's checks): its own transaction.
    if (this.db.isTransaction || this.closed) return;
    this.db.exec('BEGIN');
    this.reading = true;
    this.readFrom = processCommits;
    setImmediate(() => this.endRead());
  }

  private endRead(): void {
    if (!this.reading) return;
    this.reading = false;
    if (!this.closed && this.db.isTransaction) this.db.exec('COMMIT');
  }

  stmt(sql: string): StatementSync {
    let s = this.cache.get(sql);
    if (!s) {
      if (this.cache.size > 500) this.cache.clear();
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  readRow(path: string): Row | null {
    this.shareRead();
    const r = this.stmt('SELECT data, version FROM docs WHERE path = ?').get(path) as { data: string; version: number } | undefined;
    return r ? { path, data: JSON.parse(r.data) as DocData, version: r.version } : null;
  }

  /**
   * `PRAGMA data_version` now: it changes when another connection commits (this connection's commits leave it alone).
   * A change drops the document cache, whoever asked.
   */
  checkOthers(): number {
    this.shareRead();
    const v = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== this.dataVersion) {
      this.docs.clear();
      this.dataVersion = v;
    }
    return v;
  }

  /** The data_version last seen, without asking: a value from no later than now (-1 before the first check). */
  seenOthers(): number {
    return this.dataVersion;
  }

  /** Forgets cached documents when another connection has committed since the last check. */
  revalidate(): void {
    // The check costs about as much as a row read, so busy servers make it once per interval, not per request.
    const now = performance.now();
    if (now - this.checkedAt < REVALIDATE_MS) return;
    this.checkedAt = now;
    this.checkOthers();
  }

  /** The cached row (a copy), null for a cached absence, undefined when the path is not in the cache (a cached path was validated when first read). */
  cachedRow(path: string): Row | null | undefined {
    const hit = this.docs.get(path);
    if (hit === undefined) return undefined;
    return hit ? { path, data: copyJson(hit.data), version: hit.version } : null;
  }

  /** readRow through the document cache (callers get their own copy). */
  readRowCached(path: string): Row | null {
    let hit = this.docs.get(path);
    if (hit === undefined) {
      this.shareRead();
      const r = this.stmt('SELECT data, version FROM docs WHERE path = ?').get(path) as { data: string; version: number } | undefined;
      hit = r ? { data: JSON.parse(r.data) as DocData, version: r.version } : null;
      if (this.docs.size >= DOC_CACHE_ENTRIES) this.docs.clear();
      this.docs.set(path, hit);
    }
    // Each caller gets its own copy; copying the parsed record is about twice as fast as parsing its JSON again.
    return hit ? { path, data: copyJson(hit.data), version: hit.version } : null;
  }

  readRows(paths: string[]): (Row | null)[] {
    if (paths.length === 0) return [];
    // One path (a transaction's built-in folder check, each stored invoice): by path, as a get.
    if (paths.length === 1) return [this.readRow(paths[0])];
    this.shareRead();
    const rows = this.stmt('SELECT path, data, version FROM docs WHERE path IN (SELECT value FROM json_each(?))').all(JSON.stringify(paths)) as {
      path: string;
      data: string;
      version: number;
    }[];
    const byPath = new Map(rows.map((r) => [r.path, r]));
    return paths.map((p) => {
      const r = byPath.get(p);
      return r ? { path: p, data: JSON.parse(r.data) as DocData, version: r.version } : null;
    });
  }

  version(path: string): number {
    this.shareRead();
    const r = this.stmt('SELECT version FROM docs WHERE path = ?').get(path) as { version: number } | undefined;
    return r?.version ?? 0;
  }

  checkIndex(q: Query): void {
    if (this.strict) assertIndexed(q, this.indexes);
  }

  /** Runs the query synchronously; `skipped` is how many matches the offset passed over. */
  runQuery(c: Compiled): { rows: Row[]; skipped: number } {
    const out: Row[] = [];
    let skipped = 0;
    if (c.limit === 0) return { rows: out, skipped };
    this.shareRead();
    const sql = `SELECT path, data, version FROM docs WHERE ${c.where}${c.orderSql ? ` ORDER BY ${c.orderSql}` : ''}`;
    let block: Row[] = [];
    let key: string | undefined;
    let done = false;
    const flush = () => {
      block.sort((a, b) => compareRows(c, a, b));
      for (const r of block) {
        if (skipped < c.offset) skipped++;
        else if (out.push(r) >= c.limit) {
          done = true;
          break;
        }
      }
      block = [];
    };
    for (const raw of this.stmt(sql).iterate(...c.params) as Iterable<{ path: string; data: string; version: number }>) {
      const row: Row = { path: raw.path, data: JSON.parse(raw.data) as DocData, version: raw.version };
      if (!accepts(c, row.data)) continue;
      const k = blockKey(c, row);
      if (k !== key && block.length) {
        flush();
        if (done) break;
      }
      key = k;
      block.push(row);
    }
    if (!done) flush();
    return { rows: out, skipped };
  }

  count(c: Compiled): number {
    this.shareRead();
    let n = 0;
    if (c.exact) {
      n = (this.stmt(`SELECT count(*) AS n FROM docs WHERE ${c.where}`).get(...c.params) as { n: number }).n;
    } else {
      for (const raw of this.stmt(`SELECT data FROM docs WHERE ${c.where}`).iterate(...c.params) as Iterable<{ data: string }>) {
        if (accepts(c, JSON.parse(raw.data) as DocData)) n++;
      }
    }
    return Math.min(Math.max(0, n - c.offset), c.limit);
  }

  /** Starts a transaction; another process holding the write lock past busy_timeout is `unavailable`. */
  private begin(sql: 'BEGIN' | 'BEGIN IMMEDIATE'): void {
    try {
      this.db.exec(sql);
    } catch (e) {
      if ((e as { errcode?: number }).errcode === 5) throw new ApiError('unavailable', 'the store is busy; try again', { reason: 'storeBusy' });
      throw e;
    }
  }

  /**
   * A new epoch for this connection's versions, committed on its own (a rolled-back commit must not hand its epoch to
   * another connection). Epochs are above every version of earlier stores, whose counter numbered each commit.
   */
  private newEpoch(): void {
    this.begin('BEGIN IMMEDIATE');
    try {
      this.epoch = (this.stmt(`UPDATE meta SET value = value + 1 WHERE key = 'version' RETURNING value`).get() as { value: number }).value;
      this.db.exec('COMMIT');
      processCommits++;
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    this.seq = 0;
  }

  /** The next version a write of this connection gets: its epoch's next number (one write to `meta` a connection, not a commit). */
  private nextVersion(): number {
    return this.epoch * EPOCH_SPAN + ++this.seq;
  }

  /**
   * Applies writes atomically; `valid` re-checks a transaction's reads inside the write lock. The writes go into this
   * turn's write transaction (../sqliteTurn.ts: applied at once, committed with the turn's other writes when the turn
   * ends; the promise settles with that COMMIT). A write refused by its check, a conflict or a limit writes nothing and
   * fails at once, alone. This connection's reads see the turn's writes as they are applied, so transactions of one
   * turn conflict no more than when each committed on its own.
   */
  commit(ops: WriteOp[], valid?: () => boolean): Promise<void> {
    let rows: Map<string, string | null>;
    try {
      checkWriteCount(ops.length);
      if (ops.length === 0 && !valid) return Promise.resolve();
      if (ops.length === 0 && !this.turn.open) {
        // A transaction that only read, with nothing of this turn pending: its check in a read transaction of its own.
        this.validateAlone(valid!);
        return Promise.resolve();
      }
      this.turn.ensureOpen();
      rows = this.checked(ops, valid);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!rows.size) return this.turn.settled();
    return this.turn.write(() => {
      this.writeRows(rows, this.nextVersion());
      // Counted as applied: a later transaction's check must see these writes (stillValid's shortcut compares counts).
      this.commits++;
    });
  }

  private validateAlone(valid: () => boolean): void {
    this.endRead();
    this.begin('BEGIN');
    try {
      if (!valid()) throw new Conflict();
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }

  /** After a turn's COMMIT: other connections renew their reads; the statistics are re-checked now and then. */
  private committed(writes: number): void {
    processCommits++;
    // A growing collection changes the best plans (a no-op when nothing grew much).
    if ((this.writesSinceOptimize += writes) >= OPTIMIZE_EVERY_WRITES) {
      this.writesSinceOptimize = 0;
      try {
        this.db.exec('PRAGMA optimize');
      } catch {
        // Only a plan's speed depends on it; another process holding the lock can run it next time.
      }
    }
  }

  /** The rows to write (JSON, or null to delete), after the check of the reads and every refusal; writes nothing. */
  private checked(ops: WriteOp[], valid?: () => boolean): Map<string, string | null> {
    if (valid && !valid()) throw new Conflict();
    const state = new Map<string, DocData | null>();
    for (const op of ops) {
      // Only an update needs the current document; a create only whether there is one; set and delete neither.
      const cur = () => (state.has(op.path) ? state.get(op.path)! : (this.readRow(op.path)?.data ?? null));
      let next: DocData | null;
      switch (op.kind) {
        case 'set':
          next = op.data;
          break;
        case 'create':
          if (state.has(op.path) ? state.get(op.path) : this.stmt('SELECT 1 FROM docs WHERE path = ?').get(op.path)) throw new ApiError('already-exists', `${op.path} already exists`);
          next = op.data;
          break;
        case 'update': {
          const c = cur();
          if (!c) throw new ApiError('not-found', `${op.path} not found`);
          next = applyUpdate(c, op.data);
          break;
        }
        case 'delete':
          next = null;
      }
      state.set(op.path, next);
    }
    const rows = new Map<string, string | null>();
    for (const [path, data] of state) {
      if (data === null) {
        rows.set(path, null);
        continue;
      }
      const json = JSON.stringify(data);
      if (Buffer.byteLength(json) > LIMITS.docBytes) throw new ApiError('invalid-argument', `${path}: document exceeds ${LIMITS.docBytes} bytes`);
      rows.set(path, json);
    }
    return rows;
  }

  private writeRows(rows: Map<string, string | null>, version: number): void {
    for (const [path, json] of rows) {
      this.docs.delete(path);
      if (json === null) {
        this.stmt('DELETE FROM docs WHERE path = ?').run(path);
        continue;
      }
      const { parent, collectionId } = docPathParts(path);
      this.stmt(
        `INSERT INTO docs (path, parent, collection_id, data, version) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET data = excluded.data, version = excluded.version`,
      ).run(path, parent, collectionId, json, version);
    }
  }

  close(): void {
    if (this.closed) return;
    // Writes waiting for the end of this turn commit first.
    this.turn.end();
    this.endRead();
    this.closed = true;
    this.cache.clear();
    this.docs.clear();
    this.db.close();
  }
}

const DOC_CACHE_ENTRIES = 10_000;
/** wal_autocheckpoint: pages of WAL between automatic checkpoints (SQLite's default is 1,000). */
const WAL_CHECKPOINT_PAGES = 8000;

/**
 * The fields of the SQLite index kept for one of firestore.indexes.json's composite indexes. Firestore needs an index
 * for every combination of equality filters before an order (72 on invoices, most of them `a, b, c, createdAtMs desc`);
 * SQLite does not: it can take the equality on the first field from the index and check the others on the rows it
 * scans in order. So an index whose fields turn descending after its second field keeps its first field and that
 * ordering tail (`folderId, category, source, date desc, createdAtMs desc` → `folderId, date desc, createdAtMs desc`).
 * Each index costs every write of its collection (an expression evaluation and a B-tree page per index: 140 WAL pages a
 * new invoice with 66 indexes); a combination of filters costs a scan of the first one's matches. Array fields have no
 * expression form and are left out as before.
 */
export function sqliteFields<F extends { arrayConfig?: unknown; order?: unknown }>(fields: F[]): F[] {
  const scalar = fields.filter((f) => f && !f.arrayConfig);
  const tail = scalar.findIndex((f, i) => i > 0 && f.order === 'DESCENDING');
  return tail > 1 ? [scalar[0], ...scalar.slice(tail)] : scalar;
}
/** Rows ANALYZE samples per index, so re-analyzing a large store stays in milliseconds. */
const ANALYSIS_LIMIT = 1000;
const OPTIMIZE_EVERY_WRITES = 200;

/** A cached document, parsed once; never handed out (callers get copyJson of it). */
interface CachedDoc {
  data: DocData;
  version: number;
}

/** A deep copy of a JSON value (what JSON.parse gave: plain objects, arrays and primitives only). */
function copyJson<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyJson) as T;
  // Spreading copies a record's own fields fastest (a "__proto__" field stays a field); then nested values.
  const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const k in o) {
    const x = o[k];
    if (x === null || typeof x !== 'object') continue;
    // Plain assignment to "__proto__" would set the prototype instead.
    if (k === '__proto__') Object.defineProperty(o, k, { value: copyJson(x), writable: true, enumerable: true, configurable: true });
    else o[k] = copyJson(x);
  }
  return o as T;
}
/** How stale another process's writes may look to a request view (milliseconds). */
export const REVALIDATE_MS = 5;
