/**
 * The document-store port on Node's built-in SQLite (DESIGN.md "Storage port"): one `docs` table of
 * JSON documents, WAL, optimistic transactions validated under BEGIN IMMEDIATE, and expression
 * indexes derived from firestore.indexes.json. SQL narrows and orders candidates; the JS evaluator
 * below is the authority on Firestore's comparison semantics.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { ApiError } from '../../core/errors.ts';
import { LIMITS } from '../../ports/store.ts';
import type { Batch, Doc, DocData, DocStore, Meter, Query, Transaction, UpdateData, WhereOp } from '../../ports/store.ts';
import { assertIndexed, loadIndexes, normalizedOrder } from '../indexCoverage.ts';
import { WriteBuffer, addTo, bufferedBatch, applyUpdate, checkQuery, checkWriteCount, countReads, docPathParts, fieldSegments, queryReads } from '../storeRules.ts';
import type { IndexesFile } from '../indexCoverage.ts';
import type { WriteOp } from '../storeRules.ts';

export interface SqliteStoreOptions {
  file: string;
  /** Defaults to the repository's firestore.indexes.json. */
  indexes?: IndexesFile;
  /** Refuse queries that the indexes file does not cover, as production Firestore does. */
  strictIndexes?: boolean;
}

const MAX_ATTEMPTS = 10;
const BUSY_TIMEOUT_MS = 5000;

// ---------------------------------------------------------------------------------------------
// Firestore value ordering: null < booleans < numbers < strings < arrays < maps.

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeRank(v: unknown): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'number':
      return 2;
    case 'string':
      return 3;
  }
  return Array.isArray(v) ? 4 : 5;
}

/** Code-point order (= UTF-8 byte order, Firestore's and SQLite's), not UTF-16 code-unit order. */
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates encode code points above U+FFFF, so they must sort after U+E000..U+FFFF.
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return Number(a) - Number(b);
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return compareStrings(a as string, b as string);
    case 4: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c) return c;
      }
      return x.length - y.length;
    }
    default: {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = Object.keys(x).sort(compareStrings);
      const ky = Object.keys(y).sort(compareStrings);
      for (let i = 0; i < Math.min(kx.length, ky.length); i++) {
        const c = compareStrings(kx[i], ky[i]) || compareValues(x[kx[i]], y[ky[i]]);
        if (c) return c;
      }
      return kx.length - ky.length;
    }
  }
}

/** Firestore orders document names segment by segment. */
function comparePaths(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareStrings(x[i], y[i]);
    if (c) return c;
  }
  return x.length - y.length;
}

function getField(data: DocData, segs: string[]): unknown {
  let cur: unknown = data;
  for (const s of segs) {
    if (!isMap(cur) || !Object.hasOwn(cur, s)) return undefined;
    cur = cur[s];
  }
  return cur;
}

function matchesFilter(v: unknown, op: WhereOp, value: unknown): boolean {
  if (v === undefined) return false;
  switch (op) {
    case '==':
      return compareValues(v, value) === 0;
    case '!=':
      return v !== null && compareValues(v, value) !== 0;
    case 'in':
      // As in Firestore, a null in the list matches nothing (null only matches `== null`).
      return v !== null && (value as unknown[]).some((x) => compareValues(v, x) === 0);
    case 'array-contains':
      return Array.isArray(v) && v.some((x) => compareValues(x, value) === 0);
  }
  // Range filters only match values of the same type.
  if (typeRank(v) !== typeRank(value)) return false;
  const c = compareValues(v, value);
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

// ---------------------------------------------------------------------------------------------
// SQL expressions. Index definitions and queries use the same text so the planner can match them.

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A SQLite JSON path, or null when a key could not be addressed reliably (then JS alone filters). */
function jsonPath(segs: string[]): string | null {
  if (segs.some((s) => !/^[^"\\\x00-\x1f\x7f]+$/.test(s))) return null;
  return '$' + segs.map((s) => `."${s}"`).join('');
}

const rankExpr = (jp: string) =>
  `(CASE json_type(data, ${lit(jp)}) WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 ` +
  `WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END)`;
const valExpr = (jp: string) => `json_extract(data, ${lit(jp)})`;

const isScalar = (v: unknown) => v === null || typeof v !== 'object';
const sqlScalar = (v: unknown): SQLInputValue => (typeof v === 'boolean' ? Number(v) : (v as SQLInputValue));

interface Filter {
  segs: string[];
  op: WhereOp;
  value: unknown;
}
interface OrderKey {
  segs: string[];
  dir: 1 | -1;
}

interface Compiled {
  filters: Filter[];
  /** Explicit orderBy fields: documents lacking one are excluded. */
  mustExist: string[][];
  order: OrderKey[];
  nameDir: 1 | -1;
  cursor?: unknown[];
  offset: number;
  limit: number;
  group: boolean;
  /** True when SQL's ORDER BY agrees with Firestore's order across blocks (see runQuery). */
  sqlOrdered: boolean;
  /** True when the WHERE clause alone is the exact match set (so COUNT can run in SQL). */
  exact: boolean;
  where: string;
  params: SQLInputValue[];
  orderSql: string;
}

function pushFilter(f: Filter, params: SQLInputValue[]): { sql: string; exact: boolean } | null {
  const jp = jsonPath(f.segs);
  if (!jp) return null;
  const r = rankExpr(jp);
  const v = valExpr(jp);
  const { op, value } = f;
  const R = typeRank(value);
  switch (op) {
    case '==':
      if (value === null) return { sql: `${r} = 0`, exact: true };
      if (!isScalar(value)) return { sql: `${r} = ${R}`, exact: false };
      params.push(sqlScalar(value));
      return { sql: `(${r} = ${R} AND ${v} = ?)`, exact: true };
    case '!=':
      if (value === null) return { sql: `${r} > 0`, exact: true };
      if (!isScalar(value)) return { sql: `${r} > 0`, exact: false };
      params.push(sqlScalar(value));
      return { sql: `(${r} > 0 AND NOT (${r} = ${R} AND ${v} = ?))`, exact: true };
    case 'in': {
      const parts: string[] = [];
      let exact = true;
      const byRank = new Map<number, SQLInputValue[]>();
      for (const x of value as unknown[]) {
        if (x === null) continue;
        if (!isScalar(x)) {
          parts.push(`${r} = ${typeRank(x)}`);
          exact = false;
        } else byRank.set(typeRank(x), [...(byRank.get(typeRank(x)) ?? []), sqlScalar(x)]);
      }
      for (const [rank, vals] of byRank) {
        parts.push(`(${r} = ${rank} AND ${v} IN (${vals.map(() => '?').join(', ')}))`);
        params.push(...vals);
      }
      return { sql: parts.length ? `(${parts.join(' OR ')})` : '0', exact };
    }
    case 'array-contains': {
      let cond: string;
      let exact = true;
      if (value === null) cond = `e.type = 'null'`;
      else if (typeof value === 'boolean') cond = `e.type = '${value}'`;
      else if (typeof value === 'number') cond = `e.type IN ('integer', 'real') AND e.value = ?`;
      else if (typeof value === 'string') cond = `e.type = 'text' AND e.value = ?`;
      else if (Array.isArray(value)) return { sql: '0', exact: true }; // arrays never contain arrays
      else {
        cond = `e.type = 'object'`;
        exact = false;
      }
      if (typeof value === 'number' || typeof value === 'string') params.push(value);
      return { sql: `(json_type(data, ${lit(jp)}) = 'array' AND EXISTS (SELECT 1 FROM json_each(data, ${lit(jp)}) AS e WHERE ${cond}))`, exact };
    }
    default:
      if (!isScalar(value)) return { sql: `${r} = ${R}`, exact: false };
      params.push(sqlScalar(value));
      return { sql: `(${r} = ${R} AND ${v} ${op} ?)`, exact: true };
  }
}

function compile(q: Query): Compiled {
  checkQuery(q);
  const group = q.group === true;
  const cg = group ? q.collection : q.collection.slice(q.collection.lastIndexOf('/') + 1);
  const params: SQLInputValue[] = [];
  const conds: string[] = [];
  if (!group) {
    conds.push('parent = ?');
    params.push(q.collection);
  }
  conds.push(`collection_id = ${lit(cg)}`);
  let exact = true;
  const filters: Filter[] = (q.where ?? []).map(([field, op, value]) => ({ segs: fieldSegments(field), op, value }));
  for (const f of filters) {
    const p = pushFilter(f, params);
    if (p) conds.push(p.sql);
    if (!p || !p.exact) exact = false;
  }
  const mustExist = (q.orderBy ?? []).map(([field]) => fieldSegments(field));
  for (const segs of mustExist) {
    const jp = jsonPath(segs);
    if (jp) conds.push(`${rankExpr(jp)} IS NOT NULL`);
    else exact = false;
  }
  const order: OrderKey[] = normalizedOrder(q).map((o) => ({ segs: fieldSegments(o.field), dir: o.dir === 'asc' ? 1 : -1 }));
  const nameDir = order.at(-1)?.dir ?? 1;
  const paths = order.map((o) => jsonPath(o.segs));
  const sqlOrdered = paths.every((p) => p !== null);
  const dirSql = (d: 1 | -1) => (d === 1 ? 'ASC' : 'DESC');
  const nameSql = group ? `replace(path, '/', char(1))` : 'path';
  const orderSql = sqlOrdered
    ? [...order.flatMap((o, i) => [`${rankExpr(paths[i]!)} ${dirSql(o.dir)}`, `${valExpr(paths[i]!)} ${dirSql(o.dir)}`]), `${nameSql} ${dirSql(nameDir)}`].join(', ')
    : '';

  // startAfter narrows in SQL when its values are scalars; the JS check stays authoritative.
  const cursor = q.startAfter;
  if (cursor) {
    if (sqlOrdered && cursor.every(isScalar)) {
      const ors: string[] = [];
      const eqAt = (j: number) => {
        const [r, v] = [rankExpr(paths[j]!), valExpr(paths[j]!)];
        if (cursor[j] === null) return `${r} = 0`;
        params.push(sqlScalar(cursor[j]));
        return `(${r} = ${typeRank(cursor[j])} AND ${v} = ?)`;
      };
      const afterAt = (i: number) => {
        const [r, v] = [rankExpr(paths[i]!), valExpr(paths[i]!)];
        const [cmp, R] = [order[i].dir === 1 ? '>' : '<', typeRank(cursor[i])];
        if (cursor[i] === null) return order[i].dir === 1 ? `${r} > 0` : '0';
        params.push(sqlScalar(cursor[i]));
        return `(${r} ${cmp} ${R} OR (${r} = ${R} AND ${v} ${cmp} ?))`;
      };
      for (let i = 0; i < cursor.length; i++) {
        const ands: string[] = [];
        for (let j = 0; j < i; j++) ands.push(eqAt(j));
        ands.push(afterAt(i));
        ors.push(`(${ands.join(' AND ')})`);
      }
      conds.push(`(${ors.join(' OR ')})`);
    } else exact = false;
  }
  return {
    filters,
    mustExist,
    order,
    nameDir,
    cursor,
    offset: q.offset ?? 0,
    limit: q.limit ?? Infinity,
    group,
    sqlOrdered,
    exact,
    where: conds.join(' AND '),
    params,
    orderSql,
  };
}

interface Row {
  path: string;
  data: DocData;
  version: number;
}

function accepts(c: Compiled, data: DocData): boolean {
  for (const f of c.filters) if (!matchesFilter(getField(data, f.segs), f.op, f.value)) return false;
  for (const segs of c.mustExist) if (getField(data, segs) === undefined) return false;
  if (c.cursor) {
    for (let i = 0; i < c.cursor.length; i++) {
      const cmp = compareValues(getField(data, c.order[i].segs), c.cursor[i]) * c.order[i].dir;
      if (cmp < 0) return false;
      if (cmp > 0) return true;
    }
    return false; // equal to the cursor: startAfter excludes it
  }
  return true;
}

function compareRows(c: Compiled, a: Row, b: Row): number {
  for (const o of c.order) {
    const cmp = compareValues(getField(a.data, o.segs), getField(b.data, o.segs)) * o.dir;
    if (cmp) return cmp;
  }
  return comparePaths(a.path, b.path) * c.nameDir;
}

/**
 * SQL orders (type rank, value) exactly for scalars but arrays and maps only by their JSON text, so rows
 * are grouped into blocks within which JS re-sorts; block boundaries are where SQL's order is exact.
 */
function blockKey(c: Compiled, row: Row): string {
  if (!c.sqlOrdered) return '';
  const parts: unknown[] = [];
  for (const o of c.order) {
    const v = getField(row.data, o.segs);
    const r = typeRank(v);
    parts.push(r);
    if (r >= 4) return JSON.stringify(parts);
    parts.push(v);
  }
  parts.push(row.path);
  return JSON.stringify(parts);
}

const docOf = (row: Row): Doc => ({ path: row.path, id: row.path.slice(row.path.lastIndexOf('/') + 1), data: row.data });

// ---------------------------------------------------------------------------------------------

class Conflict extends Error {}

class Core {
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
  private writesSinceOptimize = 0;
  private checkedAt = -Infinity;

  constructor(opts: SqliteStoreOptions) {
    if (opts.file !== ':memory:' && !opts.file.startsWith('file:')) mkdirSync(dirname(opts.file), { recursive: true });
    this.db = new DatabaseSync(opts.file, { timeout: BUSY_TIMEOUT_MS });
    this.strict = opts.strictIndexes === true;
    this.indexes = opts.indexes ?? Core.defaultIndexes(this.strict);
    const db = this.db;
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
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
    db.exec('CREATE INDEX IF NOT EXISTS docs_group ON docs(collection_id, path)');
    // One commit sequence for versions, so a deleted and re-created document never repeats a version.
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)');
    db.exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('version', 0)`);
    this.createIndexes();
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
    const on = (cg: string, scope: unknown, columns: string[]) =>
      scope === 'COLLECTION_GROUP'
        ? `ON docs(collection_id, ${columns.join(', ')})`
        : `ON docs(parent, ${columns.join(', ')}) WHERE collection_id = ${lit(cg)}`;
    for (const ix of this.indexes.indexes ?? []) {
      try {
        if (typeof ix?.collectionGroup !== 'string' || !ix.collectionGroup || !Array.isArray(ix.fields)) continue;
        const c = cols(ix.fields);
        if (c.length) defs.push(on(ix.collectionGroup, ix.queryScope, c));
      } catch {
        // Best effort: an entry we cannot express only costs speed, never correctness.
      }
    }
    for (const o of this.indexes.fieldOverrides ?? []) {
      try {
        if (typeof o?.collectionGroup !== 'string' || typeof o.fieldPath !== 'string' || !Array.isArray(o.indexes)) continue;
        for (const ix of o.indexes) {
          if (!ix?.order) continue;
          const c = cols([{ fieldPath: o.fieldPath, order: ix.order }]);
          if (c.length) defs.push(on(o.collectionGroup, ix.queryScope, c));
        }
      } catch {
        // as above
      }
    }
    for (const def of new Set(defs)) {
      const name = 'ix_' + createHash('sha256').update(def).digest('hex').slice(0, 16);
      try {
        this.db.exec(`CREATE INDEX IF NOT EXISTS ${name} ${def}`);
      } catch {
        // as above
      }
    }
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
    const r = this.stmt('SELECT data, version FROM docs WHERE path = ?').get(path) as { data: string; version: number } | undefined;
    return r ? { path, data: JSON.parse(r.data) as DocData, version: r.version } : null;
  }

  /** Forgets cached documents when another connection has committed since the last check. */
  revalidate(): void {
    // The check costs about as much as a row read, so busy servers make it once per interval, not per request.
    const now = performance.now();
    if (now - this.checkedAt < REVALIDATE_MS) return;
    this.checkedAt = now;
    const v = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== this.dataVersion) {
      this.docs.clear();
      this.dataVersion = v;
    }
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

  /** Applies writes atomically; `valid` re-checks a transaction's reads inside the write lock. */
  commit(ops: WriteOp[], valid?: () => boolean): void {
    checkWriteCount(ops.length);
    if (ops.length === 0 && !valid) return;
    const db = this.db;
    try {
      db.exec(ops.length ? 'BEGIN IMMEDIATE' : 'BEGIN');
    } catch (e) {
      // Another process held the write lock for longer than busy_timeout.
      if ((e as { errcode?: number }).errcode === 5) throw new ApiError('unavailable', 'the store is busy; try again');
      throw e;
    }
    try {
      if (valid && !valid()) throw new Conflict();
      if (ops.length) {
        const version = (this.stmt(`UPDATE meta SET value = value + 1 WHERE key = 'version' RETURNING value`).get() as { value: number }).value;
        const state = new Map<string, DocData | null>();
        for (const op of ops) {
          const cur = state.has(op.path) ? state.get(op.path)! : (this.readRow(op.path)?.data ?? null);
          let next: DocData | null;
          switch (op.kind) {
            case 'set':
              next = op.data;
              break;
            case 'create':
              if (cur) throw new ApiError('already-exists', `${op.path} already exists`);
              next = op.data;
              break;
            case 'update':
              if (!cur) throw new ApiError('not-found', `${op.path} not found`);
              next = applyUpdate(cur, op.data);
              break;
            case 'delete':
              next = null;
          }
          state.set(op.path, next);
        }
        for (const [path, data] of state) {
          this.docs.delete(path);
          if (data === null) {
            this.stmt('DELETE FROM docs WHERE path = ?').run(path);
            continue;
          }
          const json = JSON.stringify(data);
          if (Buffer.byteLength(json) > LIMITS.docBytes) throw new ApiError('invalid-argument', `${path}: document exceeds ${LIMITS.docBytes} bytes`);
          const { parent, collectionId } = docPathParts(path);
          this.stmt(
            `INSERT INTO docs (path, parent, collection_id, data, version) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT(path) DO UPDATE SET data = excluded.data, version = excluded.version`,
          ).run(path, parent, collectionId, json, version);
        }
      }
      db.exec('COMMIT');
    } catch (e) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw e;
    }
    // A growing collection changes the best plans: re-check the statistics now and then (a no-op when nothing grew much).
    if (ops.length && ++this.writesSinceOptimize >= OPTIMIZE_EVERY_WRITES) {
      this.writesSinceOptimize = 0;
      try {
        db.exec('PRAGMA optimize');
      } catch {
        // Only a plan's speed depends on it; another process holding the lock can run it next time.
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.docs.clear();
    this.db.close();
  }
}

const DOC_CACHE_ENTRIES = 10_000;
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

const READ_AFTER_WRITE = 'Firestore transactions require all reads to be executed before all writes';

class SqliteTransaction implements Transaction {
  readonly writes = new WriteBuffer();
  readonly reads = new Map<string, number>();
  readonly queries: { c: Compiled; sig: string }[] = [];
  private readonly core: Core;
  private readonly meters: readonly Meter[];

  constructor(core: Core, meters: readonly Meter[]) {
    this.core = core;
    this.meters = meters;
  }

  private beforeRead(): void {
    if (this.writes.ops.length) throw new ApiError('internal', READ_AFTER_WRITE);
  }

  private saw(path: string, version: number): void {
    if (!this.reads.has(path)) this.reads.set(path, version);
  }

  async get(path: string): Promise<Doc | null> {
    this.beforeRead();
    docPathParts(path);
    const row = this.core.readRow(path);
    this.saw(path, row?.version ?? 0);
    addTo(this.meters, 1, 0);
    return row ? docOf(row) : null;
  }

  async getAll(paths: string[]): Promise<(Doc | null)[]> {
    this.beforeRead();
    paths.forEach((p) => docPathParts(p));
    const rows = this.core.readRows(paths);
    rows.forEach((r, i) => this.saw(paths[i], r?.version ?? 0));
    addTo(this.meters, paths.length, 0);
    return rows.map((r) => (r ? docOf(r) : null));
  }

  async query(q: Query): Promise<Doc[]> {
    this.beforeRead();
    const c = compile(q);
    this.core.checkIndex(q);
    const { rows, skipped } = this.core.runQuery(c);
    // Re-run at commit: a changed result set (including a new match) is a conflict.
    this.queries.push({ c, sig: signature(rows) });
    addTo(this.meters, queryReads(rows.length, skipped), 0);
    return rows.map(docOf);
  }

  set(path: string, data: DocData): void {
    this.writes.set(path, data);
  }
  create(path: string, data: DocData): void {
    this.writes.create(path, data);
  }
  update(path: string, data: UpdateData): void {
    this.writes.update(path, data);
  }
  delete(path: string): void {
    this.writes.delete(path);
  }

  stillValid(): boolean {
    for (const [path, v] of this.reads) if (this.core.version(path) !== v) return false;
    for (const { c, sig } of this.queries) if (signature(this.core.runQuery(c).rows) !== sig) return false;
    return true;
  }
}

const signature = (rows: Row[]) => rows.map((r) => `${r.path}@${r.version}`).join('\n');

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
