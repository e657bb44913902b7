/**
 * The port rules (paths, values, limits, metering) that both store adapters apply identically,
 * so SQLite refuses what Firestore would refuse.
 */
import { ApiError, invalid } from '../core/errors.ts';
import { DELETE_FIELD, isIncrement, LIMITS } from '../ports/store.ts';
import type { Batch, DocData, Increment, Query, UpdateData, WhereOp, Writer } from '../ports/store.ts';


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
    if (s === '' || s === '.' || s === '..' || (s.length >= 4 && s.startsWith('__') && s.endsWith('__'))) throw invalid(what, `invalid path segment in "${path}"`);
    // A UTF-16 unit is at most 3 UTF-8 bytes, so short segments need no byte count (paths are read on every call).
    if (s.length > 500 && Buffer.byteLength(s) > 1500) throw invalid(what, 'path segment longer than 1500 bytes');
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

/**
 * A JSON-safe deep copy; undefined map entries are dropped (Firestore's ignoreUndefinedProperties). Every write passes
 * here, so the copy is made without field paths (a string for each field and array element of every document); only a
 * refusal walks the value again with them, to name the field.
 */
export function cleanValue(v: unknown, at: string, inArray = false): unknown {
  try {
    return clean(v, null, inArray);
  } catch (e) {
    if (e !== REFUSED) throw e;
  }
  return clean(v, at, inArray);
}

export function cleanData(data: unknown): DocData {
  if (!isPlainObject(data)) throw invalid('data', 'a document must be a plain object');
  try {
    return cleanMap(data, null);
  } catch (e) {
    if (e !== REFUSED) throw e;
  }
  return cleanMap(data, '');
}

/** Thrown by the walk without paths; the caller walks again with them to say where and why. */
const REFUSED = Symbol('refused');
const refuse = (at: string | null, why: string): never => {
  throw at === null ? REFUSED : invalid(at, why);
};

/** The walk of cleanValue; `at` is the field path, or null for none (then a refusal throws REFUSED). */
function clean(v: unknown, at: string | null, inArray = false): unknown {
  switch (typeof v) {
    case 'string':
      return v.isWellFormed() ? v : refuse(at, 'string is not valid Unicode');
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) refuse(at, 'numbers must be finite');
      return Object.is(v, -0) ? 0 : v;
    case 'undefined':
      if (inArray) refuse(at, 'undefined is not a valid array element');
      return undefined;
    case 'object':
      if (v === null) return null;
      if (isIncrement(v)) refuse(at, 'field sentinels are only allowed at the top level of update');
      if (Array.isArray(v)) {
        if (inArray) refuse(at, 'arrays cannot directly contain arrays');
        return v.map((x, i) => clean(x, at === null ? null : `${at}[${i}]`, true));
      }
      if (isPlainObject(v)) return cleanMap(v, at);
      return refuse(at, 'only plain JSON values are allowed');
    default:
      if (v === DELETE_FIELD) refuse(at, 'field sentinels are only allowed at the top level of update');
      return refuse(at, `a ${typeof v} is not a valid value`);
  }
}

function cleanMap(v: Record<string, unknown>, at: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '') refuse(at === null ? null : at || 'data', 'field names must not be empty');
    const c = clean(x, at === null ? null : at ? `${at}.${k}` : k);
    if (c !== undefined) out[k] = c;
  }
  return out;
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

/** A batch over a buffer: writes are validated as made, and `commit` applies them once. */
export function bufferedBatch(apply: (ops: WriteOp[]) => Promise<void> | void, meters: readonly { reads: number; writes: number }[]): Batch {
  const buf = new WriteBuffer();
  let committed = false;
  const open = () => {
    if (committed) throw new ApiError('failed-precondition', 'this batch has already been committed');
    return buf;
  };
  return {
    set: (path, data) => open().set(path, data),
    create: (path, data) => open().create(path, data),
    update: (path, data) => open().update(path, data),
    delete: (path) => open().delete(path),
    async commit() {
      open();
      committed = true;
      await apply(buf.ops);
      addTo(meters, 0, buf.ops.length);
    },
  };
}
