/**
 * Which queries production Firestore can serve from firestore.indexes.json.
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
// What a write costs in index entries

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Leaf fields as Firestore's automatic indexing sees them: maps are entered, arrays are one field. */
function leafFields(data: Record<string, unknown>, prefix = ''): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(data)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (isMap(v)) out.push(...leafFields(v, path));
    else out.push([path, v]);
  }
  return out;
}

const distinctCount = (xs: unknown[]) => new Set(xs.map((x) => JSON.stringify(x))).size;

function fieldValue(data: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (isMap(o) ? o[k] : undefined), data);
}

/**
 * The index entries one document of `collectionGroup` holds under Firestore's model: automatic
 * single-field indexes (ascending and descending per scalar, one array-contains entry per distinct
 * array element; field overrides replace them), plus each composite index whose fields the document
 * has (an array-contains field multiplies by its distinct elements). Firestore allows 40,000 a document.
 */
export function indexEntries(collectionGroup: string, data: Record<string, unknown>, indexes: IndexesFile): { single: number; composite: number; total: number } {
  let single = 0;
  for (const [path, v] of leafFields(data)) {
    const override = (indexes.fieldOverrides ?? []).find((o) => o.collectionGroup === collectionGroup && o.fieldPath === path);
    const modes = override
      ? override.indexes
      : [{ order: 'ASCENDING' }, { order: 'DESCENDING' }, { arrayConfig: 'CONTAINS' }];
    for (const m of modes) {
      if ('arrayConfig' in m && m.arrayConfig) single += Array.isArray(v) ? distinctCount(v) : 0;
      else if (!Array.isArray(v)) single += 1;
    }
  }
  let composite = 0;
  for (const ix of indexes.indexes) {
    if (ix.collectionGroup !== collectionGroup) continue;
    let n = 1;
    for (const f of meaningfulFields(ix)) {
      const v = fieldValue(data, f.fieldPath);
      if (v === undefined) {
        n = 0;
        break;
      }
      if (f.arrayConfig) n *= Array.isArray(v) ? distinctCount(v) : 0;
    }
    composite += n;
  }
  return { single, composite, total: single + composite };
}
