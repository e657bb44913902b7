import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteStore, REVALIDATE_MS } from '../../../functions/src/adapters/sqlite/sqliteStore.ts';
import type { IndexesFile } from '../../../functions/src/adapters/indexCoverage.ts';
import { storeContract } from '../storeContract.ts';
import type { OpenOptions } from '../storeContract.ts';

const dir = mkdtempSync(join(tmpdir(), 'bfo-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = () => join(dir, `store${++n}.db`);

storeContract('sqlite store', async (opts: OpenOptions = {}) => openSqliteStore({ file: file(), indexes: { indexes: [] }, ...opts }));

describe('sqlite store: durability', () => {
  test('data survives close and reopen, and the journal is WAL', async () => {
    const f = file();
    const s1 = openSqliteStore({ file: f });
    await s1.set('businesses/b1/payments/p1', { amount: 100, status: 'sent' });
    await s1.close();
    const s2 = openSqliteStore({ file: f });
    assert.deepEqual((await s2.get('businesses/b1/payments/p1'))?.data, { amount: 100, status: 'sent' });
    await s2.close();
    const raw = new DatabaseSync(f);
    assert.equal((raw.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal');
    raw.close();
  });

  test('the store creates the folder of its file', async () => {
    const f = join(dir, 'nested', 'deeper', 'store.db');
    const s = openSqliteStore({ file: f });
    await s.set('a/b', { v: 1 });
    await s.close();
    const again = openSqliteStore({ file: f });
    assert.deepEqual((await again.get('a/b'))?.data, { v: 1 });
    await again.close();
  });
});

describe('sqlite store: two connections on one file', () => {
  test('each sees the other\u2019s writes', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      await a.set('c/x', { v: 1 });
      assert.deepEqual((await b.get('c/x'))?.data, { v: 1 });
      await b.update('c/x', { v: 2 });
      assert.deepEqual((await a.get('c/x'))?.data, { v: 2 });
      assert.equal(await a.count({ collection: 'c' }), 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a transaction whose read changed underneath it runs again on fresh data', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      await a.set('c/counter', { n: 0 });
      let runs = 0;
      const seen: number[] = [];
      await a.runTransaction(async (tx) => {
        runs++;
        const d = await tx.get('c/counter');
        seen.push(d!.data.n as number);
        // Another process commits between this transaction's read and its commit.
        if (runs === 1) await b.set('c/counter', { n: 10 });
        tx.set('c/counter', { n: (d!.data.n as number) + 1 });
      });
      assert.equal(runs, 2);
      assert.deepEqual(seen, [0, 10]);
      assert.equal((await b.get('c/counter'))?.data.n, 11);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a document deleted and re-created underneath a transaction is a conflict', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      await a.set('c/doc', { v: 1 });
      let runs = 0;
      await a.runTransaction(async (tx) => {
        runs++;
        const d = await tx.get('c/doc');
        if (runs === 1) {
          await b.delete('c/doc');
          await b.set('c/doc', { v: 5 });
        }
        tx.set('c/copy', { v: d!.data.v });
      });
      assert.equal(runs, 2);
      assert.deepEqual((await a.get('c/copy'))?.data, { v: 5 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('versions never repeat: each connection numbers its commits in an epoch of its own, above every earlier version', async () => {
    const f = file();
    // A store of an earlier version: its counter numbered every commit, up to 41.
    const old = openSqliteStore({ file: f });
    await old.set('c/old', { v: 0 });
    await old.close();
    const raw = new DatabaseSync(f);
    raw.exec(`UPDATE meta SET value = 41 WHERE key = 'version'; UPDATE docs SET version = 41 WHERE path = 'c/old'`);
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      for (let i = 0; i < 5; i++) {
        await a.set(`c/a${i}`, { i });
        await b.set(`c/b${i}`, { i });
      }
      await a.set('c/old', { v: 1 });
      const versions = (raw.prepare('SELECT version FROM docs').all() as { version: number }[]).map((r) => r.version);
      assert.equal(new Set(versions).size, versions.length, 'no two writes share a version');
      assert.ok(versions.every((v) => v > 41), 'every new version is above the earlier store\'s');
      assert.equal((raw.prepare(`SELECT value FROM meta WHERE key = 'version'`).get() as { value: number }).value, 43, 'the counter moved once a connection, not once a commit');
    } finally {
      await a.close();
      await b.close();
      raw.close();
    }
  });

  test('reads of one turn share a read transaction: this process\'s commits show at once, another process\'s from the next turn', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    const other = new DatabaseSync(f); // another process's connection: its commits do not pass through this module
    try {
      await a.set('c/x', { v: 1 });
      assert.equal((await a.get('c/x'))?.data.v, 1);
      await b.set('c/x', { v: 2 });
      assert.equal((await a.get('c/x'))?.data.v, 2, 'a commit of another connection of this process is seen at once');
      other.prepare(`UPDATE docs SET data = '{"v":3}' WHERE path = 'c/x'`).run();
      assert.equal((await a.get('c/x'))?.data.v, 2, 'within the turn: the snapshot the turn began with');
      await new Promise((r) => setImmediate(r));
      assert.equal((await a.get('c/x'))?.data.v, 3, 'the next turn sees it');
      // A write after reads in the same turn commits (the shared read ends first) and is read back at once.
      await a.set('c/x', { v: 4 });
      assert.equal((await a.get('c/x'))?.data.v, 4);
      assert.equal((await a.query({ collection: 'c' })).length, 1);
    } finally {
      other.close();
      await a.close();
      await b.close();
    }
  });

  test('a new match for a query read in a transaction is a conflict', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      let runs = 0;
      await a.runTransaction(async (tx) => {
        runs++;
        const taken = await tx.query({ collection: 'users', where: [['email', '==', 'a@x.test']] });
        if (runs === 1) await b.create('users/other', { email: 'a@x.test' });
        if (taken.length === 0) tx.create('users/mine', { email: 'a@x.test' });
      });
      assert.equal(runs, 2);
      assert.deepEqual(
        (await a.query({ collection: 'users' })).map((d) => d.id),
        ['other'],
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a commit of the same connection between a transaction\u2019s query and its commit is a conflict too', async () => {
    const a = openSqliteStore({ file: file() });
    try {
      let runs = 0;
      await a.runTransaction(async (tx) => {
        runs++;
        const taken = await tx.query({ collection: 'users', where: [['email', '==', 'a@x.test']] });
        // The same process (another request) commits while this transaction is open: validation must not be skipped.
        if (runs === 1) await a.create('users/other', { email: 'a@x.test' });
        if (taken.length === 0) tx.create('users/mine', { email: 'a@x.test' });
      });
      assert.equal(runs, 2);
      assert.deepEqual((await a.query({ collection: 'users' })).map((d) => d.id), ['other']);
    } finally {
      await a.close();
    }
  });

  test('endless contention gives up with aborted', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      await a.set('c/hot', { n: 0 });
      let runs = 0;
      await assert.rejects(
        a.runTransaction(async (tx) => {
          runs++;
          await tx.get('c/hot');
          await b.update('c/hot', { n: runs });
          tx.set('c/hot', { n: -1 });
        }),
        (e: unknown) => (e as { code?: string }).code === 'aborted',
      );
      assert.equal(runs, 10);
      assert.equal((await a.get('c/hot'))?.data.n, 10);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('sqlite store: the writes of one turn commit together (issue 23)', () => {
  const meter = () => ({ reads: 0, writes: 0 });
  const walBytes = (f: string) => (existsSync(`${f}-wal`) ? statSync(`${f}-wal`).size : 0);

  test('writes made in one turn reach the WAL in one commit: fewer page writes than the same writes one by one', async () => {
    const invoice = (s: ReturnType<typeof openSqliteStore>, i: number) => s.set(`businesses/b1/invoices/i${i}`, { folderId: 'f1', category: 'c', createdAtMs: i, date: '2026-01-01' });
    const together = file();
    const a = openSqliteStore({ file: together });
    await a.set('warm/up', { v: 1 });
    const before = walBytes(together);
    await Promise.all(Array.from({ length: 20 }, (_, i) => invoice(a, i)));
    const grouped = walBytes(together) - before;
    const apart = file();
    const b = openSqliteStore({ file: apart });
    await b.set('warm/up', { v: 1 });
    const start = walBytes(apart);
    for (let i = 0; i < 20; i++) await invoice(b, i);
    const single = walBytes(apart) - start;
    assert.equal((await a.query({ collection: 'businesses/b1/invoices' })).length, 20);
    assert.ok(grouped * 4 < single, `20 writes of one turn wrote ${grouped} bytes of WAL, one by one ${single}`);
    await a.close();
    await b.close();
  });

  test('a write of the turn is read back at once, and a transaction of the same turn builds on it without a conflict', async () => {
    const s = openSqliteStore({ file: file() });
    try {
      const w = s.set('c/x', { v: 1 });
      assert.equal((await s.get('c/x'))?.data.v, 1);
      let runs = 0;
      const t = s.runTransaction(async (tx) => {
        runs++;
        const d = await tx.get('c/x');
        tx.set('c/x', { v: Number(d?.data.v) + 1 });
      });
      await Promise.all([w, t]);
      assert.equal(runs, 1);
      assert.equal((await s.get('c/x'))?.data.v, 2);
    } finally {
      await s.close();
    }
  });

  test('a refused write fails alone: the other writes of its turn land', async () => {
    const s = openSqliteStore({ file: file() });
    try {
      await s.set('c/taken', { v: 0 });
      const results = await Promise.allSettled([s.set('c/a', { v: 1 }), s.create('c/taken', { v: 2 }), s.runTransaction(async (tx) => tx.create('c/b', { v: 3 }))]);
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
      assert.equal(((results[1] as PromiseRejectedResult).reason as { code?: string }).code, 'already-exists');
      assert.deepEqual((await s.query({ collection: 'c' })).map((d) => [d.id, d.data.v]), [['a', 1], ['b', 3], ['taken', 0]]);
    } finally {
      await s.close();
    }
  });

  test('a write SQLite refuses undoes the writes of its turn so far, each writer is told, and nothing undone is read back', async () => {
    const f = file();
    const s = openSqliteStore({ file: f });
    const raw = new DatabaseSync(f);
    try {
      await s.set('c/seed', { v: 0 });
      // As a full disk would: SQLite itself refuses the insert of c/bad.
      raw.exec(`CREATE TRIGGER refuse BEFORE INSERT ON docs WHEN NEW.path = 'c/bad' BEGIN SELECT RAISE(ABORT, 'refused by the disk'); END`);
      const view = s.metered(meter());
      const first = s.set('c/first', { v: 1 });
      assert.equal((await view.get('c/first'))?.data.v, 1, 'read (and cached) before the turn failed');
      const bad = s.set('c/bad', { v: 2 });
      const later = s.set('c/later', { v: 3 });
      const results = await Promise.allSettled([first, bad, later]);
      assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'fulfilled']);
      assert.match(String((results[0] as PromiseRejectedResult).reason), /refused by the disk/);
      assert.equal(await s.metered(meter()).get('c/first'), null);
      assert.deepEqual((await s.query({ collection: 'c' })).map((d) => d.id), ['later', 'seed']);
    } finally {
      raw.close();
      await s.close();
    }
  });

  test('closing the store commits the writes of its turn', async () => {
    const f = file();
    const s = openSqliteStore({ file: f });
    const w = s.set('c/x', { v: 1 });
    await s.close();
    await w;
    const again = openSqliteStore({ file: f });
    assert.equal((await again.get('c/x'))?.data.v, 1);
    await again.close();
  });

  test('two connections of one process writing in one turn do not wait for each other', async () => {
    const f = file();
    const a = openSqliteStore({ file: f });
    const b = openSqliteStore({ file: f });
    try {
      await Promise.all([a.set('c/1', { v: 1 }), b.set('c/2', { v: 2 }), a.runTransaction(async (tx) => tx.set('c/3', { v: 3 }))]);
      assert.deepEqual((await b.query({ collection: 'c' })).map((d) => d.id), ['1', '2', '3']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('sqlite store: indexes from firestore.indexes.json', () => {
  test('composite entries become expression indexes the planner uses; odd entries are skipped', async () => {
    const f = file();
    const indexes = {
      indexes: [
        {
          collectionGroup: 'payments',
          queryScope: 'COLLECTION',
          fields: [
            { fieldPath: 'status', order: 'ASCENDING' },
            { fieldPath: 'createdAt', order: 'DESCENDING' },
          ],
        },
        {
          collectionGroup: 'payments',
          queryScope: 'COLLECTION_GROUP',
          fields: [
            { fieldPath: 'tokens', arrayConfig: 'CONTAINS' },
            { fieldPath: 'amount', order: 'ASCENDING' },
          ],
        },
        { collectionGroup: 'weird', queryScope: 'COLLECTION', fields: [{ fieldPath: 'a"b', order: 'ASCENDING' }] },
        { queryScope: 'COLLECTION', fields: [] },
        { collectionGroup: "it's", queryScope: 'COLLECTION', fields: [{ fieldPath: '`odd.name`', order: 'ASCENDING' }] },
        null,
      ],
      fieldOverrides: [{ collectionGroup: 'vendors', fieldPath: 'key', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }] }],
    } as unknown as IndexesFile;
    const s = openSqliteStore({ file: f, indexes });
    await s.set('businesses/b1/payments/p1', { status: 'open', createdAt: 1 });
    await s.set('businesses/b1/payments/p2', { status: 'open', createdAt: 2 });
    await s.set('businesses/b1/payments/p3', { status: 'paid', createdAt: 3 });
    assert.deepEqual(
      (await s.query({ collection: 'businesses/b1/payments', where: [['status', '==', 'open']], orderBy: [['createdAt', 'desc']] })).map((d) => d.id),
      ['p2', 'p1'],
    );
    await s.close();

    const raw = new DatabaseSync(f);
    const names = (raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%'`).all() as { name: string }[]).map((r) => r.name);
    // payments (collection), payments (group, amount only), it's, vendors override.
    assert.equal(names.length, 4);
    const plan = raw
      .prepare(
        `EXPLAIN QUERY PLAN SELECT path FROM docs WHERE parent = ? AND collection_id = 'payments' AND ` +
          `(CASE json_type(data, '$."status"') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 ` +
          `WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END) = 3 AND json_extract(data, '$."status"') = ?`,
      )
      .all('businesses/b1/payments', 'open') as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join('\n'), /USING INDEX ix_/);
    raw.close();
  });
});

describe('sqlite store: the per-request document cache', () => {
  const meter = () => ({ reads: 0, writes: 0 });

  test('a request view sees every write of its own connection at once', async () => {
    const s = openSqliteStore({ file: file() });
    const view = s.metered(meter());
    assert.equal(await view.get('a/1'), null);
    await s.set('a/1', { v: 1 });
    assert.deepEqual((await view.get('a/1'))?.data, { v: 1 });
    await s.runTransaction(async (tx) => tx.update('a/1', { v: 2 }));
    assert.deepEqual((await view.get('a/1'))?.data, { v: 2 });
    const b = s.batch();
    b.delete('a/1');
    await b.commit();
    assert.equal(await view.get('a/1'), null);
    await s.close();
  });

  test('a request view made after the revalidation interval sees what another connection (another process) committed', async () => {
    const f = file();
    const server = openSqliteStore({ file: f });
    const cli = openSqliteStore({ file: f });
    const pause = () => new Promise((r) => setTimeout(r, REVALIDATE_MS + 5));
    await server.set('apiKeys/k', { revokedAt: null });
    assert.equal((await server.metered(meter()).get('apiKeys/k'))?.data.revokedAt, null);
    await cli.update('apiKeys/k', { revokedAt: '2026-11-21T00:00:00.000Z' });
    await pause();
    assert.equal((await server.metered(meter()).get('apiKeys/k'))?.data.revokedAt, '2026-11-21T00:00:00.000Z');
    await cli.delete('apiKeys/k');
    await pause();
    assert.equal(await server.metered(meter()).get('apiKeys/k'), null);
    // Transactions always read the database itself.
    await cli.set('apiKeys/k', { revokedAt: 'x' });
    assert.equal(await server.runTransaction(async (tx) => (await tx.get('apiKeys/k'))?.data.revokedAt), 'x');
    await server.close();
    await cli.close();
  });

  test('callers get their own copy: changing a returned document changes nothing stored', async () => {
    const s = openSqliteStore({ file: file() });
    await s.set('a/1', { list: [1], nested: { x: 1 } });
    const view = s.metered(meter());
    const first = (await view.get('a/1'))!;
    (first.data.list as number[]).push(2);
    (first.data.nested as { x: number }).x = 9;
    assert.deepEqual((await view.get('a/1'))?.data, { list: [1], nested: { x: 1 } });
    await s.close();
  });

  test('a field named __proto__ comes back from the cache as a field, not as a prototype', async () => {
    // Writes drop such keys; a row written by another program may still hold one.
    const f = file();
    const s = openSqliteStore({ file: f });
    await s.set('a/1', { labels: {} });
    const raw = new DatabaseSync(f);
    raw.prepare('UPDATE docs SET data = ? WHERE path = ?').run('{"labels":{"__proto__":{"admin":true},"ok":1}}', 'a/1');
    raw.close();
    const view = s.metered(meter());
    await view.get('a/1');
    const labels = (await view.get('a/1'))!.data.labels as Record<string, unknown>;
    assert.deepEqual(Object.keys(labels), ['__proto__', 'ok']);
    assert.equal((labels as { admin?: boolean }).admin, undefined);
    assert.equal(Object.getPrototypeOf(labels), Object.prototype);
    await s.close();
  });

  test('cached reads are still counted as reads', async () => {
    const s = openSqliteStore({ file: file() });
    await s.set('a/1', { v: 1 });
    const m = meter();
    const view = s.metered(m);
    await view.get('a/1');
    await view.get('a/1');
    assert.equal(m.reads, 2);
    await s.close();
  });
});

describe('sqlite store: the indexes it keeps (issue 23: cost per write)', () => {
  const ixNames = (f: string) => {
    const raw = new DatabaseSync(f);
    const names = (raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%'`).all() as { name: string }[]).map((r) => r.name).sort();
    raw.close();
    return names;
  };
  const eqThenOrder = (eq: string[]) => ({
    collectionGroup: 'invoices',
    queryScope: 'COLLECTION',
    fields: [...eq.map((fieldPath) => ({ fieldPath, order: 'ASCENDING' })), { fieldPath: 'date', order: 'DESCENDING' }, { fieldPath: 'createdAtMs', order: 'DESCENDING' }],
  });

  test('combinations of equality filters before an order share one index per first field; their queries answer the same', async () => {
    const f = file();
    const indexes = { indexes: [eqThenOrder(['folderId']), eqThenOrder(['folderId', 'category']), eqThenOrder(['folderId', 'category', 'source'])], fieldOverrides: [] } as unknown as IndexesFile;
    const s = openSqliteStore({ file: f, indexes, strictIndexes: true });
    const docs = [
      { id: 'a', folderId: 'f1', category: 'c1', source: 'mail', date: '2026-01-02', createdAtMs: 1 },
      { id: 'b', folderId: 'f1', category: 'c2', source: 'mail', date: '2026-01-03', createdAtMs: 2 },
      { id: 'c', folderId: 'f1', category: 'c1', source: 'upload', date: '2026-01-04', createdAtMs: 3 },
      { id: 'd', folderId: 'f2', category: 'c1', source: 'mail', date: '2026-01-05', createdAtMs: 4 },
      { id: 'e', folderId: 'f1', category: 'c1', source: 'mail', date: '2026-01-05', createdAtMs: 5 },
    ];
    for (const d of docs) await s.set(`businesses/b1/invoices/${d.id}`, d);
    const q = (where: [string, '==', string][]) =>
      s.query({ collection: 'businesses/b1/invoices', where, orderBy: [['date', 'desc'], ['createdAtMs', 'desc']] }).then((r) => r.map((d) => d.id));
    assert.deepEqual(await q([['folderId', '==', 'f1']]), ['e', 'c', 'b', 'a']);
    assert.deepEqual(await q([['folderId', '==', 'f1'], ['category', '==', 'c1']]), ['e', 'c', 'a']);
    assert.deepEqual(await q([['folderId', '==', 'f1'], ['category', '==', 'c1'], ['source', '==', 'mail']]), ['e', 'a']);
    await s.close();
    assert.equal(ixNames(f).length, 1, 'folderId, date desc, createdAtMs desc serves all three');
  });

  test('an index no longer derived from the file is dropped when the store opens', async () => {
    const f = file();
    const wide = { indexes: [eqThenOrder(['folderId']), { collectionGroup: 'payments', queryScope: 'COLLECTION', fields: [{ fieldPath: 'status', order: 'ASCENDING' }, { fieldPath: 'amount', order: 'ASCENDING' }] }], fieldOverrides: [] } as unknown as IndexesFile;
    await (openSqliteStore({ file: f, indexes: wide })).close();
    assert.equal(ixNames(f).length, 2);
    const narrow = { indexes: [eqThenOrder(['folderId'])], fieldOverrides: [] } as unknown as IndexesFile;
    await (openSqliteStore({ file: f, indexes: narrow })).close();
    assert.equal(ixNames(f).length, 1);
  });

  test('a single-field index that begins a composite one is not built; its equality queries use the composite', async () => {
    const f = file();
    const indexes = {
      indexes: [{ collectionGroup: 'invoices', queryScope: 'COLLECTION', fields: [{ fieldPath: 'vendorKey', order: 'ASCENDING' }, { fieldPath: 'number', order: 'ASCENDING' }] }],
      fieldOverrides: [
        { collectionGroup: 'invoices', fieldPath: 'vendorKey', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION' }] },
        // Same field, other scope: a group query cannot use the collection's index, so this one stays.
        { collectionGroup: 'invoices', fieldPath: 'vendorKey', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }] },
      ],
    } as unknown as IndexesFile;
    const s = openSqliteStore({ file: f, indexes, strictIndexes: true });
    for (let i = 0; i < 30; i++) await s.set(`businesses/b1/invoices/i${i}`, { vendorKey: `v${i % 3}`, number: String(i) });
    const found = await s.query({ collection: 'businesses/b1/invoices', where: [['vendorKey', '==', 'v1']] });
    assert.equal(found.length, 10);
    await s.close();
    assert.equal(ixNames(f).length, 2, 'the composite and the group index');
    const raw = new DatabaseSync(f);
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN SELECT path FROM docs WHERE parent = ? AND collection_id = 'invoices' AND ` +
          `(CASE json_type(data, '$."vendorKey"') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 ` +
          `WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END) = 3 AND json_extract(data, '$."vendorKey"') = ?`).all('businesses/b1/invoices', 'v1') as { detail: string }[]).map((r) => r.detail).join(' ');
    raw.close();
    assert.match(plan, /USING INDEX ix_/);
  });

  test('a field override asking for both orders builds one index, read either way; its lookups and both orders use it', async () => {
    const f = file();
    const both = [{ order: 'ASCENDING', queryScope: 'COLLECTION' }, { order: 'DESCENDING', queryScope: 'COLLECTION' }, { arrayConfig: 'CONTAINS', queryScope: 'COLLECTION' }];
    const indexes = { indexes: [], fieldOverrides: [{ collectionGroup: 'suppliers', fieldPath: 'name', indexes: both }] } as unknown as IndexesFile;
    const s = openSqliteStore({ file: f, indexes, strictIndexes: true });
    for (const n of ['b', 'd', 'a', 'c']) await s.set(`businesses/b1/suppliers/s${n}`, { name: n });
    const names = async (dir: 'asc' | 'desc') => (await s.query({ collection: 'businesses/b1/suppliers', orderBy: [['name', dir]] })).map((d) => d.data.name);
    assert.deepEqual(await names('asc'), ['a', 'b', 'c', 'd']);
    assert.deepEqual(await names('desc'), ['d', 'c', 'b', 'a']);
    assert.deepEqual((await s.query({ collection: 'businesses/b1/suppliers', where: [['name', '==', 'c']] })).map((d) => d.id), ['sc']);
    await s.close();
    assert.equal(ixNames(f).length, 1, 'no descending twin');
    const raw = new DatabaseSync(f);
    const name = `(CASE json_type(data, '$."name"') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END)`;
    const plan = (sql: string, ...args: string[]) => (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' ');
    const lookup = plan(`SELECT path FROM docs WHERE parent = ? AND collection_id = 'suppliers' AND ${name} = 3 AND json_extract(data, '$."name"') = ?`, 'businesses/b1/suppliers', 'c');
    const backwards = plan(`SELECT path FROM docs WHERE parent = ? AND collection_id = 'suppliers' ORDER BY ${name} DESC, json_extract(data, '$."name"') DESC`, 'businesses/b1/suppliers');
    raw.close();
    assert.match(lookup, /USING INDEX ix_/);
    assert.match(backwards, /USING INDEX ix_/);
    assert.doesNotMatch(backwards, /TEMP B-TREE/, 'read backwards, not sorted again');
  });

  test('no index spans every collection: a store of an earlier version loses its collection-id index when it opens', async () => {
    const f = file();
    await (openSqliteStore({ file: f, indexes: { indexes: [], fieldOverrides: [] } as unknown as IndexesFile })).close();
    const raw = new DatabaseSync(f);
    raw.exec('CREATE INDEX docs_group ON docs(collection_id, path)');
    raw.close();
    await (openSqliteStore({ file: f, indexes: { indexes: [], fieldOverrides: [] } as unknown as IndexesFile })).close();
    const again = new DatabaseSync(f);
    const names = (again.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'docs' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((r) => r.name);
    again.close();
    assert.deepEqual(names, ['docs_parent']);
  });

  test('a collection-group index holds only its collection: writes elsewhere leave it alone, and group queries use it', async () => {
    const f = file();
    const indexes = { indexes: [{ collectionGroup: 'links', queryScope: 'COLLECTION_GROUP', fields: [{ fieldPath: 'tokenHash', order: 'ASCENDING' }, { fieldPath: 'createdAtMs', order: 'DESCENDING' }] }], fieldOverrides: [] } as unknown as IndexesFile;
    const s = openSqliteStore({ file: f, indexes, strictIndexes: true });
    await s.set('businesses/b1/links/l1', { tokenHash: 'h1', createdAtMs: 1 });
    await s.set('businesses/b2/links/l2', { tokenHash: 'h1', createdAtMs: 2 });
    for (let i = 0; i < 20; i++) await s.set(`businesses/b1/quotas/q${i}`, { tokenHash: 'h1', createdAtMs: i });
    const found = await s.query({ collection: 'links', group: true, where: [['tokenHash', '==', 'h1']], orderBy: [['createdAtMs', 'desc']] });
    assert.deepEqual(found.map((d) => d.path), ['businesses/b2/links/l2', 'businesses/b1/links/l1']);
    await s.close();
    const raw = new DatabaseSync(f);
    const [ix] = raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%'`).all() as { name: string }[];
    // Entries in the index: the two links, none of the twenty quota records that carry the same fields.
    const entries = (raw.prepare(`SELECT count(*) AS n FROM docs INDEXED BY ${ix.name} WHERE collection_id = 'links'`).get() as { n: number }).n;
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN SELECT path FROM docs WHERE collection_id = 'links' AND ` +
          `(CASE json_type(data, '$."tokenHash"') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'integer' THEN 2 ` +
          `WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 END) = 3 AND json_extract(data, '$."tokenHash"') = ?`).all('h1') as { detail: string }[]).map((r) => r.detail).join(' ');
    const sql = (raw.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(ix.name) as { sql: string }).sql;
    raw.close();
    assert.match(sql, /WHERE collection_id = 'links'$/);
    assert.equal(entries, 2);
    assert.match(plan, new RegExp(ix.name));
  });
});
