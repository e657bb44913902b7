/**
 * The document-store port on Firestore (firebase-admin). The caller passes `getFirestore()`; the SDK's
 * runtime classes (FieldValue, FieldPath) are loaded on first use so importing this module stays cheap.
 * The db belongs to the caller: close() does not terminate it.
 */
import type {
  DocumentReference,
  DocumentSnapshot,
  FieldPath as FsFieldPath,
  Firestore,
  Query as FsQuery,
  QueryDocumentSnapshot,
  Transaction as FsTransaction,
} from '@google-cloud/firestore';
import { ApiError } from '../../core/errors.ts';
import type { ErrorCode } from '../../core/errors.ts';
import { DELETE_FIELD, TTL_FIELD, isIncrement } from '../../ports/store.ts';
import type { Batch, Doc, DocData, DocStore, Meter, Query, Transaction, UpdateData } from '../../ports/store.ts';
import { assertIndexed, loadIndexes } from '../indexCoverage.ts';
import { WriteBuffer, addTo, bufferedBatch, checkDocSize, checkQuery, checkWriteCount, countReads, docPathParts, fieldSegments, queryReads } from '../storeRules.ts';
import type { IndexesFile } from '../indexCoverage.ts';
import type { UpdateValue, WriteOp } from '../storeRules.ts';

export interface FirestoreStoreOptions {
  /** Refuse queries that the indexes file does not cover (the emulator would accept them; production would not). */
  strictIndexes?: boolean;
  /** Defaults to the repository's firestore.indexes.json; only read when strictIndexes is on. */
  indexes?: IndexesFile;
}

const MAX_ATTEMPTS = 10;

type Sdk = typeof import('firebase-admin/firestore');
let sdkPromise: Promise<Sdk> | undefined;
const sdk = (): Promise<Sdk> => (sdkPromise ??= import('firebase-admin/firestore'));

/** gRPC status codes (and HTTP 409 for ABORTED over REST) mapped to the API's codes. */
const GRPC_CODES: Record<number, ErrorCode> = {
  3: 'invalid-argument',
  4: 'deadline-exceeded',
  5: 'not-found',
  6: 'already-exists',
  7: 'permission-denied',
  8: 'resource-exhausted',
  9: 'failed-precondition',
  10: 'aborted',
  11: 'out-of-range',
  13: 'internal',
  14: 'unavailable',
  16: 'unauthenticated',
  409: 'aborted',
};

function mapError(e: unknown): unknown {
  if (e instanceof ApiError) return e;
  const err = e as { code?: unknown; details?: unknown; message?: unknown };
  if (typeof err?.code === 'number' && GRPC_CODES[err.code]) {
    const message = typeof err.details === 'string' && err.details ? err.details : String(err.message ?? 'Firestore error');
    return new ApiError(GRPC_CODES[err.code], message);
  }
  return e;
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw mapError(e);
  }
}

/** The methods of WriteBatch and Transaction that commits use (their return types differ). */
interface Sink {
  set(ref: DocumentReference, data: DocData): unknown;
  create(ref: DocumentReference, data: DocData): unknown;
  update(ref: DocumentReference, field: FsFieldPath, value: unknown, ...more: unknown[]): unknown;
  delete(ref: DocumentReference): unknown;
}

const READ_AFTER_WRITE = 'Firestore transactions require all reads to be executed before all writes';

function docOf(s: DocumentSnapshot | QueryDocumentSnapshot): Doc | null {
  if (!s.exists) return null;
  const data = (s.data() ?? {}) as DocData;
  // The TTL field is a Firestore timestamp at rest; the port speaks ISO strings.
  const ttl = data[TTL_FIELD] as { toDate?: () => Date } | undefined;
  if (ttl && typeof ttl.toDate === 'function') data[TTL_FIELD] = ttl.toDate().toISOString();
  return { path: s.ref.path, id: s.id, data };
}

class Engine {
  readonly db: Firestore;
  readonly strict: boolean;
  private indexesFile: IndexesFile | undefined;

  constructor(db: Firestore, opts: FirestoreStoreOptions) {
    this.db = db;
    this.strict = opts.strictIndexes === true;
    this.indexesFile = opts.indexes;
  }

  ref(path: string): DocumentReference {
    docPathParts(path);
    return this.db.doc(path);
  }

  /** Validates, checks index coverage, and builds the SDK query; null when limit 0 makes it empty. */
  async build(q: Query): Promise<FsQuery | null> {
    checkQuery(q);
    if (this.strict) assertIndexed(q, (this.indexesFile ??= loadIndexes()));
    if (q.limit === 0) return null;
    const { FieldPath } = await sdk();
    const fp = (field: string) => new FieldPath(...fieldSegments(field));
    let query: FsQuery = q.group ? this.db.collectionGroup(q.collection) : this.db.collection(q.collection);
    for (const [field, op, value] of q.where ?? []) query = query.where(fp(field), op, value);
    for (const [field, dir] of q.orderBy ?? []) query = query.orderBy(fp(field), dir);
    if (q.startAfter) query = query.startAfter(...q.startAfter);
    if (q.offset) query = query.offset(q.offset);
    if (q.limit !== undefined) query = query.limit(q.limit);
    return query;
  }

  /** Enforces the port's limits before anything reaches the server, then hands the writes to `sink`. */
  async apply(sink: Sink, ops: WriteOp[]): Promise<void> {
    checkWriteCount(ops.length);
    for (const op of ops) {
      if (op.kind === 'set' || op.kind === 'create') checkDocSize(op.path, op.data);
      // The merged size is only known to the server, which enforces it; the update alone must fit.
      if (op.kind === 'update') checkDocSize(op.path, Object.fromEntries(op.data.filter(([, v]) => typeof v !== 'symbol' && !isIncrement(v))));
    }
    const { FieldPath, FieldValue, Timestamp } = await sdk();
    const toFs = (v: UpdateValue) => (v === DELETE_FIELD ? FieldValue.delete() : isIncrement(v) ? FieldValue.increment(v.__increment) : v);
    // TTL policies need a timestamp: an ISO `expireAt` is stored as one (and read back as ISO by docOf).
    const ttl = (k: string, v: UpdateValue) => (k === TTL_FIELD && typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? Timestamp.fromDate(new Date(v)) : v);
    const withTtl = (data: DocData): DocData => (typeof data[TTL_FIELD] === 'string' ? { ...data, [TTL_FIELD]: ttl(TTL_FIELD, data[TTL_FIELD]) } : data);
    for (const op of ops) {
      const ref = this.db.doc(op.path);
      switch (op.kind) {
        case 'set':
          sink.set(ref, withTtl(op.data));
          break;
        case 'create':
          sink.create(ref, withTtl(op.data));
          break;
        case 'update': {
          // FieldPath keeps each key top-level even when it contains a dot.
          const [[k0, v0], ...rest] = op.data;
          sink.update(ref, new FieldPath(k0), ttl(k0, toFs(v0)), ...rest.flatMap(([k, v]) => [new FieldPath(k), ttl(k, toFs(v))]));
          break;
        }
        case 'delete':
          sink.delete(ref);
      }
    }
  }

  async commit(ops: WriteOp[]): Promise<void> {
    const batch = this.db.batch();
    await this.apply(batch as unknown as Sink, ops);
    if (ops.length) await batch.commit();
  }
}

class FirestoreTransaction implements Transaction {
  readonly writes = new WriteBuffer();
  private readonly engine: Engine;
  private readonly t: FsTransaction;
  private readonly meters: readonly Meter[];

  constructor(engine: Engine, t: FsTransaction, meters: readonly Meter[]) {
    this.engine = engine;
    this.t = t;
    this.meters = meters;
  }

  private beforeRead(): void {
    if (this.writes.ops.length) throw new ApiError('internal', READ_AFTER_WRITE);
  }

  async get(path: string): Promise<Doc | null> {
    this.beforeRead();
    const ref = this.engine.ref(path);
    const snap = await guard(() => this.t.get(ref));
    addTo(this.meters, 1, 0);
    return docOf(snap);
  }

  async getAll(paths: string[]): Promise<(Doc | null)[]> {
    this.beforeRead();
    const refs = paths.map((p) => this.engine.ref(p));
    if (refs.length === 0) return [];
    const snaps = await guard(() => this.t.getAll(...refs));
    addTo(this.meters, paths.length, 0);
    return snaps.map(docOf);
  }

  async query(q: Query): Promise<Doc[]> {
    this.beforeRead();
    const query = await this.engine.build(q);
    if (!query) {
      addTo(this.meters, queryReads(0, 0), 0);
      return [];
    }
    const snap = await guard(() => this.t.get(query));
    addTo(this.meters, billedQueryReads(snap.size, q.offset ?? 0), 0);
    return snap.docs.map((d) => docOf(d)!);
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
}

/** The server skips `offset` documents only when enough exist; with none returned the skip count is unknown. */
const billedQueryReads = (returned: number, offset: number) => queryReads(returned, returned > 0 ? offset : 0);

function makeStore(engine: Engine, meters: readonly Meter[]): DocStore {
  const write = (op: (b: WriteBuffer) => void) =>
    guard(async () => {
      const buf = new WriteBuffer();
      op(buf);
      await engine.commit(buf.ops);
      addTo(meters, 0, buf.ops.length);
    });
  return {
    get: (path) =>
      guard(async () => {
        const ref = engine.ref(path);
        const snap = await ref.get();
        addTo(meters, 1, 0);
        return docOf(snap);
      }),
    getAll: (paths) =>
      guard(async () => {
        const refs = paths.map((p) => engine.ref(p));
        if (refs.length === 0) return [];
        const snaps = await engine.db.getAll(...refs);
        addTo(meters, paths.length, 0);
        return snaps.map(docOf);
      }),
    query: (q) =>
      guard(async () => {
        const query = await engine.build(q);
        if (!query) {
          addTo(meters, queryReads(0, 0), 0);
          return [];
        }
        const snap = await query.get();
        addTo(meters, billedQueryReads(snap.size, q.offset ?? 0), 0);
        return snap.docs.map((d) => docOf(d)!);
      }),
    count: (q) =>
      guard(async () => {
        const query = await engine.build(q);
        const n = query ? (await query.count().get()).data().count : 0;
        addTo(meters, countReads(n), 0);
        return n;
      }),
    set: (path, data) => write((b) => b.set(path, data)),
    create: (path, data) => write((b) => b.create(path, data)),
    update: (path, data) => write((b) => b.update(path, data)),
    delete: (path) => write((b) => b.delete(path)),
    runTransaction: <T>(fn: (tx: Transaction) => Promise<T>) =>
      guard(async () => {
        let writes = 0;
        const result = await engine.db.runTransaction(
          async (t) => {
            const tx = new FirestoreTransaction(engine, t, meters);
            const r = await fn(tx);
            await engine.apply(t as unknown as Sink, tx.writes.ops);
            writes = tx.writes.ops.length;
            return r;
          },
          { maxAttempts: MAX_ATTEMPTS },
        );
        addTo(meters, 0, writes);
        return result;
      }),
    batch: (): Batch => bufferedBatch((ops) => guard(() => engine.commit(ops)), meters),
    metered: (meter) => makeStore(engine, [...meters, meter]),
    async close() {},
  };
}

export function firestoreStore(db: Firestore, opts: FirestoreStoreOptions = {}): DocStore {
  return makeStore(new Engine(db, opts), []);
}
