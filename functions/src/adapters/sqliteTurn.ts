import type { DatabaseSync } from 'node:sqlite';

/**
 * The writes of one turn of the event loop on one SQLite connection, in one write transaction that commits when the
 * turn ends (group commit). A commit writes every page it changed to the WAL, and writes of one turn change many of the
 * same pages (a table's last leaf, an index's leaves): the mailbox import's invoices come about 2.7 to a turn, and
 * twenty writes of one turn write one commit's pages, not twenty (issue 23).
 * - Each write is applied at once, so this connection's reads (and transactions' checks) see it immediately.
 * - Its promise settles with the COMMIT: a writer hears "done" only once the write is committed.
 * - A write that SQLite refuses rolls back the whole turn so far: each writer of it is told, and `onUndo` runs.
 * Used by the document store (sqlite/sqliteCore.ts). Not by the local files: their puts would then all resolve at the
 * turn's end at once, and the invoice transactions that follow them would run interleaved, each seeing others commit
 * between its reads and its commit, so their checks could no longer skip re-reading (issue 23, seventh pass).
 */
export class TurnCommit {
  private readonly db: DatabaseSync;
  private readonly begin: () => void;
  private readonly onUndo: () => void;
  private readonly onCommit: (writes: number) => void;
  /** The database file (null in memory: no other connection shares it). */
  private readonly file: string | null;
  private waiters: Waiter[] | null = null;

  /**
   * `begin` takes the write lock (BEGIN IMMEDIATE, with whatever the connection does first); `onUndo` forgets what the
   * turn's reads may have kept; `onCommit` runs after a COMMIT, with the number of writes it held.
   */
  constructor(db: DatabaseSync, opts: { begin: () => void; onUndo: () => void; onCommit: (writes: number) => void }) {
    this.db = db;
    this.file = db.location();
    this.begin = opts.begin;
    this.onUndo = opts.onUndo;
    this.onCommit = opts.onCommit;
  }

  /** Whether this turn's write transaction is open. */
  get open(): boolean {
    return this.waiters !== null;
  }

  /** Opens this turn's write transaction when it is not yet. */
  ensureOpen(): void {
    if (this.waiters) return;
    // Another connection of this process to the same file holding its turn open would hold the lock this one waits
    // for (tests open two): it commits first.
    const held = this.file === null ? undefined : holders.get(this.file);
    if (held && held !== this) held.end();
    this.begin();
    this.waiters = [];
    if (this.file !== null) holders.set(this.file, this);
    setImmediate(() => this.end());
  }

  /** Applies a write in this turn (opened if need be); settles when the turn commits. */
  write(apply: () => void): Promise<void> {
    try {
      this.ensureOpen();
      apply();
    } catch (e) {
      // A write SQLite refused: the turn so far is undone.
      this.rollBack(this.close(), e);
      return Promise.reject(e);
    }
    return this.settled();
  }

  /** A promise that settles with this turn's COMMIT (the turn must be open). */
  settled(): Promise<void> {
    return new Promise((resolve, reject) => this.waiters!.push({ resolve, reject }));
  }

  /** COMMITs the turn's writes and settles their writers. */
  end(): void {
    const waiters = this.close();
    if (!waiters) return;
    try {
      this.db.exec('COMMIT');
    } catch (e) {
      this.rollBack(waiters, e);
      return;
    }
    for (const w of waiters) w.resolve();
    this.onCommit(waiters.length);
  }

  /** Rolls back the turn's writes and tells their writers why. */
  private rollBack(waiters: Waiter[] | null, e: unknown): void {
    if (this.db.isTransaction) this.db.exec('ROLLBACK');
    this.onUndo();
    for (const w of waiters ?? []) w.reject(e);
  }

  private close() {
    const waiters = this.waiters;
    this.waiters = null;
    if (this.file !== null && holders.get(this.file) === this) holders.delete(this.file);
    return waiters;
  }
}

type Waiter = { resolve: () => void; reject: (e: unknown) => void };

/** The turns of this process holding a write transaction open, by database file. */
const holders = new Map<string, TurnCommit>();
