/**
 * Document-store port with Firestore's semantics (DESIGN.md "Storage port").
 * Paths alternate collection/document: `businesses/{b}/payments/{p}`.
 * Values are plain JSON: strings, finite numbers, booleans, null, arrays and maps.
 */
export type DocData = Record<string, unknown>;

export interface Doc {
  /** Full document path, e.g. `businesses/b1/payments/p1`. */
  path: string;
  /** Last path segment. */
  id: string;
  data: DocData;
}

export type WhereOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'array-contains';
export type Where = [field: string, op: WhereOp, value: unknown];
export type OrderBy = [field: string, dir: 'asc' | 'desc'];

export interface Query {
  /** A collection path (`businesses/b1/payments`), or with `group: true`, a collection id across all parents. */
  collection: string;
  group?: boolean;
  where?: Where[];
  orderBy?: OrderBy[];
  limit?: number;
  offset?: number;
  /** Cursor: the orderBy values of the last document seen (documents strictly after it are returned). */
  startAfter?: unknown[];
}

/**
 * The expiry field of records that only grow (spent OAuth states, quota counters, final outbox records,
 * rate-limit windows): an ISO time. Firestore stores it as a timestamp so its TTL policies
 * (firestore.indexes.json `fieldOverrides`, `"ttl": true`) delete the document; locally the sweep does,
 * by `expireAtMs`.
 */
export const TTL_FIELD = 'expireAt';

/** Sentinel for `update`: removes the field. */
export const DELETE_FIELD: unique symbol = Symbol.for('bfo.deleteField');
/** Sentinel for `update`: adds to a numeric field (missing counts as 0). */
export interface Increment {
  readonly __increment: number;
}
export const increment = (n: number): Increment => ({ __increment: n });
export const isIncrement = (v: unknown): v is Increment =>
  typeof v === 'object' && v !== null && '__increment' in v;

export type UpdateData = Record<string, unknown | typeof DELETE_FIELD | Increment>;

export interface Reader {
  get(path: string): Promise<Doc | null>;
  getAll(paths: string[]): Promise<(Doc | null)[]>;
  query(q: Query): Promise<Doc[]>;
}

export interface Writer {
  /** Create or replace. */
  set(path: string, data: DocData): void;
  /** Fails with `already-exists` at commit when the document exists. */
  create(path: string, data: DocData): void;
  /** Top-level field update; fails with `not-found` at commit when the document is missing. */
  update(path: string, data: UpdateData): void;
  delete(path: string): void;
}

/** Every read must come before any write (Firestore's rule). */
export interface Transaction extends Reader, Writer {}

export interface Batch extends Writer {
  commit(): Promise<void>;
}

/** Document reads and writes counted for one request (Firestore billing units). */
export interface Meter {
  reads: number;
  writes: number;
}

export interface DocStore extends Reader {
  count(q: Query): Promise<number>;
  set(path: string, data: DocData): Promise<void>;
  create(path: string, data: DocData): Promise<void>;
  update(path: string, data: UpdateData): Promise<void>;
  delete(path: string): Promise<void>;
  /** Runs `fn` with optimistic concurrency; retried on contention, so `fn` must be free of side effects. */
  runTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  batch(): Batch;
  /** A view of the same store that adds its reads and writes to `meter`. */
  metered(meter: Meter): DocStore;
  close(): Promise<void>;
}

/** Deletes these documents in batches under the per-commit limit (each batch atomic, not the whole). */
export async function deleteDocs(store: Pick<DocStore, 'batch'>, paths: readonly string[]): Promise<void> {
  for (let i = 0; i < paths.length; i += 400) {
    const batch = store.batch();
    for (const p of paths.slice(i, i + 400)) batch.delete(p);
    await batch.commit();
  }
}

/** Firestore's limits, enforced by both adapters. */
export const LIMITS = {
  writesPerCommit: 500,
  docBytes: 1024 * 1024,
  inValues: 30,
} as const;
