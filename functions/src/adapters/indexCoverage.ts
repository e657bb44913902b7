/**
 * Which queries production Firestore can serve from firestore.indexes.json, plus the port rules
 * (paths, values, limits, metering) that both store adapters must apply identically.
 * Pure functions only: no I/O except loadIndexes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, invalid } from '../core/errors.ts';
import { DELETE_FIELD, isIncrement, LIMITS } from '../ports/store.ts';
import type { DocData, Increment, Query, UpdateData, WhereOp, Writer } from '../ports/store.ts';

// ---------------------------------------------------------------------------------------------
// firestore.indexes.json

export type IndexOrder = 'ASCENDING' | 'DESCENDING';
export type QueryScope = 'COLLECTION' | 'COLLECTION_GROUP';

export interface IndexField {
  fieldPath: string;
  order?: IndexOrder;
  arrayConfig?: 'CONTAINS';
}

export interface CompositeIndex {
  collectionGroup: string;
  queryScope: QueryScope;
  fields: IndexField[];
}

export interface FieldOverride {
  collectionGroup: string;
  fieldPath: string;
  ttl?: boolean;
  indexes: { order?: IndexOrder; arrayConfig?: 'CONTAINS'; queryScope: QueryScope }[];
}

export interface IndexesFile {
  indexes: CompositeIndex[];
  fieldOverrides?: FieldOverride[];
}

/** The repository's firestore.indexes.json (absent in a deployed functions bundle, where it is not needed). */
export const DEFAULT_INDEXES_FILE = fileURLToPath(new URL('../../../firestore.indexes.json', import.meta.url));

/** Reads an indexes file; a missing file means no indexes. */
export function loadIndexes(file: string = DEFAULT_INDEXES_FILE): IndexesFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { indexes: [], fieldOverrides: [] };
    throw e;
  }
  const raw = JSON.parse(text) as Partial<IndexesFile>;
  return {
    indexes: Array.isArray(raw.indexes) ? raw.indexes : [],
    fieldOverrides: Array.isArray(raw.fieldOverrides) ? raw.fieldOverrides : [],
  };
}

const EQUALITY_OPS: ReadonlySet<WhereOp> = new Set(['==', 'in', 'array-contains']);

interface EqField {
  field: string;
  contains: boolean;
}
interface OrderField {
  field: string;
  dir: 'asc' | 'desc';
}

const orderName = (dir: 'asc' | 'desc'): IndexOrder => (dir === 'asc' ? 'ASCENDING' : 'DESCENDING');

/**
 * Firestore's effective ordering: explicit orderBy, then inequality fields not yet ordered
 * (lexicographically), in the direction of the last explicit orderBy.
 */
export function normalizedOrder(q: Query): OrderField[] {
  const order: OrderField[] = [];
  for (const [field, dir] of q.orderBy ?? []) if (!order.some((o) => o.field === field)) order.push({ field, dir });
  const lastDir = order.at(-1)?.dir ?? 'asc';
  const inequality = [...new Set((q.where ?? []).filter(([, op]) => !EQUALITY_OPS.has(op)).map(([f]) => f))].sort();
  for (const field of inequality) if (!order.some((o) => o.field === field)) order.push({ field, dir: lastDir });
  return order;
}

function singleFieldAvailable(
  indexes: IndexesFile,
  cg: string,
  scope: QueryScope,
  field: string,
  need: { contains: true } | { contains: false; order?: IndexOrder },
): boolean {
  const override = (indexes.fieldOverrides ?? []).find((o) => o?.collectionGroup === cg && o.fieldPath === field);
  // Without an override only collection-scope single-field indexes exist; an override replaces them.
  if (!override) return scope === 'COLLECTION';
  return (override.indexes ?? []).some(
    (ix) =>
      ix.queryScope === scope &&
      (need.contains ? ix.arrayConfig === 'CONTAINS' : ix.order !== undefined && (need.order === undefined || ix.order === need.order)),
  );
}

function overrideSuggestion(indexes: IndexesFile, cg: string, field: string, add: FieldOverride['indexes'][number]): FieldOverride {
  const existing = (indexes.fieldOverrides ?? []).find((o) => o?.collectionGroup === cg && o.fieldPath === field);
  // A new override must restate the automatic collection-scope indexes, or they would be dropped.
  const base: FieldOverride['indexes'] = existing?.indexes ?? [
    { order: 'ASCENDING', queryScope: 'COLLECTION' },
    { order: 'DESCENDING', queryScope: 'COLLECTION' },
    { arrayConfig: 'CONTAINS', queryScope: 'COLLECTION' },
  ];
  return { collectionGroup: cg, fieldPath: field, indexes: [...base, add] };
}

/** Index fields without a trailing `__name__` (implied by every index). */
function meaningfulFields(ix: CompositeIndex): IndexField[] {
  const fields = Array.isArray(ix.fields) ? ix.fields : [];
  return fields.at(-1)?.fieldPath === '__name__' ? fields.slice(0, -1) : fields;
}

/**
 * Null when production Firestore could serve `q` with the automatic single-field indexes plus
 * `indexes`; otherwise the JSON entry (composite index or field override) that would make it servable.
 */
export function missingIndex(q: Query, indexes: IndexesFile): string | null {
  const scope: QueryScope = q.group ? 'COLLECTION_GROUP' : 'COLLECTION';
  const cg = q.group ? q.collection : (q.collection.split('/').at(-1) ?? q.collection);
  const eq: EqField[] = [];
  for (const [field, op] of q.where ?? []) {
    if (!EQUALITY_OPS.has(op)) continue;
    const contains = op === 'array-contains';
    if (!eq.some((e) => e.field === field && e.contains === contains)) eq.push({ field, contains });
  }
  const order = normalizedOrder(q);
  const fields = new Set([...eq.map((e) => e.field), ...order.map((o) => o.field)]);

  if (fields.size === 0) return null;

  // One field only: the single-field indexes serve it, if its scope has them.
  const singleContainsAndOrder = eq.some((e) => e.contains) && order.length > 0;
  if (fields.size === 1 && order.length <= 1 && !singleContainsAndOrder) {
    const field = [...fields][0];
    const need: { contains: true } | { contains: false; order?: IndexOrder } = eq.some((e) => e.contains)
      ? { contains: true }
      : { contains: false, order: order[0] ? orderName(order[0].dir) : undefined };
    if (singleFieldAvailable(indexes, cg, scope, field, need)) return null;
    const add = need.contains
      ? { arrayConfig: 'CONTAINS' as const, queryScope: scope }
      : { order: need.order ?? ('ASCENDING' as const), queryScope: scope };
    return JSON.stringify(overrideSuggestion(indexes, cg, field, add));
  }

  // Equality fields may be covered by several indexes that share the same ordering suffix (index merging).
  const covered = new Set<string>();
  const key = (e: EqField) => `${e.contains ? 'c' : 'o'}:${e.field}`;
  if (order.length === 0) {
    for (const e of eq) {
      if (singleFieldAvailable(indexes, cg, scope, e.field, e.contains ? { contains: true } : { contains: false })) covered.add(key(e));
    }
  }
  for (const ix of indexes.indexes ?? []) {
    if (!ix || ix.collectionGroup !== cg || ix.queryScope !== scope) continue;
    const ixFields = meaningfulFields(ix);
    if (ixFields.length < order.length) continue;
    const prefix = ixFields.slice(0, ixFields.length - order.length);
    const suffix = ixFields.slice(ixFields.length - order.length);
    const suffixOk = suffix.every((f, i) => f.fieldPath === order[i].field && f.order === orderName(order[i].dir) && !f.arrayConfig);
    if (!suffixOk || (prefix.length === 0 && eq.length > 0)) continue;
    const prefixKeys = prefix.map((f) => `${f.arrayConfig === 'CONTAINS' ? 'c' : 'o'}:${f.fieldPath}`);
    if (!prefixKeys.every((k) => eq.some((e) => key(e) === k))) continue;
    if (eq.length === 0) return null;
    for (const k of prefixKeys) covered.add(k);
  }
  if (eq.length > 0 && eq.every((e) => covered.has(key(e)))) return null;

  const entry: CompositeIndex = {
    collectionGroup: cg,
    queryScope: scope,
    fields: [
      ...eq.map((e): IndexField => (e.contains ? { fieldPath: e.field, arrayConfig: 'CONTAINS' } : { fieldPath: e.field, order: 'ASCENDING' })),
      ...order.map((o): IndexField => ({ fieldPath: o.field, order: orderName(o.dir) })),
    ],
  };
  return JSON.stringify(entry);
}

/** The error both adapters raise in strict mode, worded like production Firestore's refusal. */
export function assertIndexed(q: Query, indexes: IndexesFile): void {
  const need = missingIndex(q, indexes);
  if (need !== null) throw new ApiError('failed-precondition', 'The query requires an index: ' + need);
}

// ---------------------------------------------------------------------------------------------
// Port rules shared by both store adapters.

/** Splits a field path on dots; a backtick-quoted segment may contain dots (Firestore's syntax). */
export function fieldSegments(field: string): string[] {
  if (typeof field !== 'string' || field === '') throw invalid('field', 'a field path must be a non-empty string');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    if (quoted) {
      if (c === '\\' && i + 1 < field.length) cur += field[++i];
      else if (c === '`') quoted = false;
      else cur += c;
    } else if (c === '`') {
      quoted = true;
      wasQuoted = true;
    } else if (c === '.') {
      if (cur === '' && !wasQuoted) throw invalid(field, 'empty segment in field path');
      out.push(cur);
      cur = '';
      wasQuoted = false;
    } else cur += c;
  }
  if (quoted || (cur === '' && !wasQuoted)) throw invalid(field, 'malformed field path');
  out.push(cur);
  if (out.some((s) => s === '')) throw invalid(field, 'empty segment in field path');
  return out;
}

function pathSegments(path: string, what: string): string[] {
  if (typeof path !== 'string' || path === '') throw invalid(what, 'path must be a non-empty string');
  const segs = path.split('/');
  for (const s of segs) {
    if (s === '' || s === '.' || s === '..' || /^__.*__$/.test(s)) throw invalid(what, `invalid path segment in "${path}"`);
    if (Buffer.byteLength(s) > 1500) throw invalid(what, 'path segment longer than 1500 bytes');
  }
  return segs;
}

/** A document path split into its collection path, collection id and document id. */
export function docPathParts(path: string): { parent: string; collectionId: string; id: string } {
  const segs = pathSegments(path, 'path');
  if (segs.length % 2 !== 0) throw invalid('path', `"${path}" is not a document path`);
  return { parent: segs.slice(0, -1).join('/'), collectionId: segs[segs.length - 2], id: segs[segs.length - 1] };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** A JSON-safe deep copy; undefined map entries are dropped (Firestore's ignoreUndefinedProperties). */
export function cleanValue(v: unknown, at: string, inArray = false): unknown {
  switch (typeof v) {
    case 'string':
      if (!v.isWellFormed()) throw invalid(at, 'string is not valid Unicode');
      return v;
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) throw invalid(at, 'numbers must be finite');
      return Object.is(v, -0) ? 0 : v;
    case 'undefined':
      if (inArray) throw invalid(at, 'undefined is not a valid array element');
      return undefined;
    case 'object':
      if (v === null) return null;
      if (isIncrement(v)) throw invalid(at, 'field sentinels are only allowed at the top level of update');
      if (Array.isArray(v)) {
        if (inArray) throw invalid(at, 'arrays cannot directly contain arrays');
        return v.map((x, i) => cleanValue(x, `${at}[${i}]`, true));
      }
      if (isPlainObject(v)) return cleanMap(v, at);
      throw invalid(at, 'only plain JSON values are allowed');
    default:
      if (v === DELETE_FIELD) throw invalid(at, 'field sentinels are only allowed at the top level of update');
      throw invalid(at, `a ${typeof v} is not a valid value`);
  }
}

function cleanMap(v: Record<string, unknown>, at: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const sub = at ? `${at}.${k}` : k;
    if (k === '') throw invalid(at || 'data', 'field names must not be empty');
    const c = cleanValue(x, sub);
    if (c !== undefined) out[k] = c;
  }
  return out;
}

export function cleanData(data: unknown): DocData {
  if (!isPlainObject(data)) throw invalid('data', 'a document must be a plain object');
  return cleanMap(data, '');
}

export type UpdateValue = unknown | typeof DELETE_FIELD | Increment;
/** Validated top-level updates, in order. */
export type CleanUpdate = [field: string, value: UpdateValue][];

export function cleanUpdate(data: UpdateData): CleanUpdate {
  if (!isPlainObject(data)) throw invalid('data', 'an update must be a plain object');
  const out: CleanUpdate = [];
  for (const [k, v] of Object.entries(data)) {
    if (k === '') throw invalid('data', 'field names must not be empty');
    if (v === DELETE_FIELD) out.push([k, DELETE_FIELD]);
    else if (isIncrement(v)) {
      if (typeof v.__increment !== 'number' || !Number.isFinite(v.__increment)) throw invalid(k, 'increment needs a finite number');
      out.push([k, { __increment: v.__increment }]);
    } else {
      const c = cleanValue(v, k);
      if (c !== undefined) out.push([k, c]);
    }
  }
  if (out.length === 0) throw invalid('data', 'an update needs at least one field');
  return out;
}

/** Applies validated top-level updates; `increment` on a missing or non-numeric field starts from 0. */
export function applyUpdate(current: DocData, upd: CleanUpdate): DocData {
  const next: DocData = { ...current };
  for (const [k, v] of upd) {
    if (v === DELETE_FIELD) delete next[k];
    else if (isIncrement(v)) {
      const base = typeof next[k] === 'number' ? (next[k] as number) : 0;
      next[k] = base + v.__increment;
    } else next[k] = v;
  }
  return next;
}

export function docBytes(data: DocData): number {
  return Buffer.byteLength(JSON.stringify(data));
}

export function checkDocSize(path: string, data: DocData): void {
  if (docBytes(data) > LIMITS.docBytes) throw invalid(path, `document exceeds ${LIMITS.docBytes} bytes`);
}

export function checkWriteCount(n: number): void {
  if (n > LIMITS.writesPerCommit) throw invalid('writes', `${n} writes in one commit; the limit is ${LIMITS.writesPerCommit}`);
}

const OPS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=', 'in', 'array-contains']);

/** Rejects queries Firestore would reject; returns the validated collection parts. */
export function checkQuery(q: Query): void {
  if (!q || typeof q.collection !== 'string') throw invalid('query.collection', 'required');
  if (q.group) {
    if (q.collection === '' || q.collection.includes('/')) throw invalid('query.collection', 'a collection group is a collection id without "/"');
  } else {
    const segs = pathSegments(q.collection, 'query.collection');
    if (segs.length % 2 !== 1) throw invalid('query.collection', `"${q.collection}" is not a collection path`);
  }
  let contains = 0;
  for (const [i, w] of (q.where ?? []).entries()) {
    const at = `query.where[${i}]`;
    if (!Array.isArray(w) || w.length !== 3) throw invalid(at, 'expected [field, op, value]');
    const [field, op, value] = w;
    const segs = fieldSegments(field);
    if (segs.length === 1 && segs[0] === '__name__') throw invalid(at, '__name__ filters are not supported');
    if (!OPS.has(op)) throw invalid(at, `unsupported operator ${String(op)}`);
    if (value === undefined) throw invalid(at, 'value must not be undefined');
    cleanValue(value, at);
    if (op === 'in') {
      if (!Array.isArray(value) || value.length === 0) throw invalid(at, "'in' needs a non-empty array");
      if (value.length > LIMITS.inValues) throw invalid(at, `'in' accepts at most ${LIMITS.inValues} values`);
    }
    if (value === null && op !== '==' && op !== '!=') throw invalid(at, 'null only supports == and !=');
    if (op === 'array-contains' && ++contains > 1) throw invalid(at, 'at most one array-contains filter per query');
  }
  const ordered = new Set<string>();
  for (const [i, o] of (q.orderBy ?? []).entries()) {
    const at = `query.orderBy[${i}]`;
    if (!Array.isArray(o) || (o[1] !== 'asc' && o[1] !== 'desc')) throw invalid(at, "expected [field, 'asc' | 'desc']");
    const segs = fieldSegments(o[0]);
    if (segs.length === 1 && segs[0] === '__name__') throw invalid(at, 'ordering by __name__ is implicit');
    const key = JSON.stringify(segs);
    if (ordered.has(key)) throw invalid(at, `${o[0]} is already ordered`);
    ordered.add(key);
  }
  for (const k of ['limit', 'offset'] as const) {
    const n = q[k];
    if (n !== undefined && (!Number.isInteger(n) || n < 0)) throw invalid(`query.${k}`, 'must be a non-negative integer');
  }
  if (q.startAfter !== undefined) {
    if (!Array.isArray(q.startAfter) || q.startAfter.length === 0) throw invalid('query.startAfter', 'must be a non-empty array');
    if (q.startAfter.length > (q.orderBy?.length ?? 0)) throw invalid('query.startAfter', 'has more values than orderBy has fields');
    q.startAfter.forEach((v, i) => {
      if (v === undefined) throw invalid(`query.startAfter[${i}]`, 'must not be undefined');
      cleanValue(v, `query.startAfter[${i}]`);
    });
  }
}

/** Firestore bills every returned document and every document skipped by offset, at least 1. */
export const queryReads = (returned: number, skipped: number): number => Math.max(1, returned + skipped);
/** An aggregation costs one read per 1000 index entries, at least 1. */
export const countReads = (n: number): number => Math.max(1, Math.ceil(n / 1000));

export type WriteOp =
  | { kind: 'set' | 'create'; path: string; data: DocData }
  | { kind: 'update'; path: string; data: CleanUpdate }
  | { kind: 'delete'; path: string };

/** Validates writes as they are made (as the SDK does) and keeps them for the commit. */
export class WriteBuffer implements Writer {
  readonly ops: WriteOp[] = [];
  set(path: string, data: DocData): void {
    docPathParts(path);
    this.ops.push({ kind: 'set', path, data: cleanData(data) });
  }
  create(path: string, data: DocData): void {
    docPathParts(path);
    this.ops.push({ kind: 'create', path, data: cleanData(data) });
  }
  update(path: string, data: UpdateData): void {
    docPathParts(path);
    this.ops.push({ kind: 'update', path, data: cleanUpdate(data) });
  }
  delete(path: string): void {
    docPathParts(path);
    this.ops.push({ kind: 'delete', path });
  }
}

/** Adds to every meter of a (possibly nested) metered view. */
export function addTo(meters: readonly { reads: number; writes: number }[], reads: number, writes: number): void {
  for (const m of meters) {
    m.reads += reads;
    m.writes += writes;
  }
}
