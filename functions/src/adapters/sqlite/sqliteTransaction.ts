/** The SQLite store's optimistic transaction: reads recorded with their versions, validated at commit (sqliteStore.ts). */
import { ApiError } from '../../core/errors.ts';
import type { Doc, DocData, Meter, Query, Transaction, UpdateData } from '../../ports/store.ts';
import { WriteBuffer, addTo, docPathParts, queryReads } from '../storeRules.ts';
import { compile, docOf, type Compiled, type Row } from './sqliteQuery.ts';
import { Core } from './sqliteCore.ts';

const READ_AFTER_WRITE = 'Firestore transactions require all reads to be executed before all writes';

export class SqliteTransaction implements Transaction {
  readonly writes = new WriteBuffer();
  readonly reads = new Map<string, number>();
  readonly queries: { c: Compiled; sig: string }[] = [];
  private readonly core: Core;
  private readonly meters: readonly Meter[];
  /** The store's commit counters at the first read: unchanged at commit, every read is still what it was. */
  private seen: { mine: number; others: number } | undefined;

  constructor(core: Core, meters: readonly Meter[]) {
    this.core = core;
    this.meters = meters;
  }

  private beforeRead(): void {
    if (this.writes.ops.length) throw new ApiError('internal', READ_AFTER_WRITE);
    // The last data_version seen, not a fresh one: older is only more cautious (a change since then means a full check).
    this.seen ??= { mine: this.core.commits, others: this.core.seenOthers() };
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
    // Nothing committed since the first read (called inside the write lock): no need to read everything again.
    if (this.seen && this.seen.mine === this.core.commits && this.seen.others === this.core.checkOthers()) return true;
    for (const [path, v] of this.reads) if (this.core.version(path) !== v) return false;
    for (const { c, sig } of this.queries) if (signature(this.core.runQuery(c).rows) !== sig) return false;
    return true;
  }
}

const signature = (rows: Row[]) => rows.map((r) => `${r.path}@${r.version}`).join('\n');
