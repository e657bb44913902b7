/**
 * The SQLite store's query planner: Firestore's value ordering (the JS evaluator, the authority on comparison
 * semantics) and the compilation of a query to SQL that narrows and orders candidates (sqliteStore.ts).
 */
import type { SQLInputValue } from 'node:sqlite';
import type { Doc, DocData, Query, WhereOp } from '../../ports/store.ts';
import { normalizedOrder } from '../indexCoverage.ts';
import { checkQuery, fieldSegments } from '../storeRules.ts';

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

export const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A SQLite JSON path, or null when a key could not be addressed reliably (then JS alone filters). */
export function jsonPath(segs: string[]): string | null {
  if (segs.some((s) => !/^[^"\\\x00-\x1f\x7f]+$/.test(s))) return null;
  return '$' + segs.map((s) => `."${s}"`).join('');
}

export const rankExpr = (jp: string) =>
  `(CASE json_type(data, ${lit(jp)}) WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 ` +
  `WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END)`;
export const valExpr = (jp: string) => `json_extract(data, ${lit(jp)})`;

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

export interface Compiled {
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

export function compile(q: Query): Compiled {
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

export interface Row {
  path: string;
  data: DocData;
  version: number;
}

export function accepts(c: Compiled, data: DocData): boolean {
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

export function compareRows(c: Compiled, a: Row, b: Row): number {
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
export function blockKey(c: Compiled, row: Row): string {
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

export const docOf = (row: Row): Doc => ({ path: row.path, id: row.path.slice(row.path.lastIndexOf('/') + 1), data: row.data });
