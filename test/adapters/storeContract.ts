/**
 * The behaviour every DocStore adapter must share (DESIGN.md "Storage port"). Each test writes under
 * its own fresh collection, so one store (or one emulator) can serve the whole suite.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../functions/src/core/errors.ts';
import { DELETE_FIELD, increment } from '../../functions/src/ports/store.ts';
import type { Doc, DocStore, Meter, Query } from '../../functions/src/ports/store.ts';
import type { IndexesFile } from '../../functions/src/adapters/indexCoverage.ts';

export interface OpenOptions {
  strictIndexes?: boolean;
  indexes?: IndexesFile;
}

const rid = Math.random().toString(36).slice(2, 8);
let seq = 0;
/** A top-level collection no other test (or earlier run against the same emulator) uses. */
const fresh = () => `c${rid}n${++seq}`;

const code = (c: string) => (e: unknown) => {
  assert.ok(e instanceof ApiError, `expected ApiError(${c}), got ${String(e)}`);
  assert.equal(e.code, c, (e as Error).message);
  return true;
};
const ids = (docs: Doc[]) => docs.map((d) => d.id);

export function storeContract(name: string, open: (opts?: OpenOptions) => Promise<DocStore>, opts: { skip?: boolean | string } = {}): void {
  describe(name, { skip: opts.skip }, () => {
    let store: DocStore;
    before(async () => {
      store = await open();
    });
    after(async () => {
      await store?.close();
    });

    describe('documents', () => {
      test('get of a missing document is null; set then get returns path, id and data', async () => {
        const c = fresh();
        assert.equal(await store.get(`${c}/a`), null);
        await store.set(`${c}/a`, { name: 'Acme', amount: 1250 });
        assert.deepEqual(await store.get(`${c}/a`), { path: `${c}/a`, id: 'a', data: { name: 'Acme', amount: 1250 } });
      });

      test('the TTL field expireAt reads back as the ISO time written, through set, update and a transaction', async () => {
        const c = fresh();
        const at = '2027-01-02T03:04:05.000Z';
        await store.set(`${c}/a`, { n: 1, expireAt: at });
        assert.equal((await store.get(`${c}/a`))?.data.expireAt, at);
        await store.update(`${c}/a`, { expireAt: '2027-02-01T00:00:00.000Z' });
        assert.equal((await store.get(`${c}/a`))?.data.expireAt, '2027-02-01T00:00:00.000Z');
        const inTx = await store.runTransaction(async (tx) => (await tx.get(`${c}/a`))?.data.expireAt);
        assert.equal(inTx, '2027-02-01T00:00:00.000Z');
      });

      test('set replaces the whole document', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { x: 1, y: 2 });
        await store.set(`${c}/a`, { z: 3 });
        assert.deepEqual((await store.get(`${c}/a`))?.data, { z: 3 });
      });

      test('plain JSON values round-trip unchanged', async () => {
        const c = fresh();
        const data = {
          s: 'שלום 😀 \u0000 "q"',
          int: -42,
          float: 0.1 + 0.2,
          big: 9007199254740991,
          t: true,
          f: false,
          nil: null,
          emptyA: [],
          emptyM: {},
          list: [1, 'two', { three: [3] }, null],
          deep: { a: { b: { c: 'd' } } },
        };
        await store.set(`${c}/a`, data);
        assert.deepEqual((await store.get(`${c}/a`))?.data, data);
      });

      test('undefined fields are dropped, nested ones too', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { keep: 1, gone: undefined, m: { keep: 2, gone: undefined } });
        assert.deepEqual((await store.get(`${c}/a`))?.data, { keep: 1, m: { keep: 2 } });
      });

      test('non-JSON values are refused with invalid-argument and nothing is written', async () => {
        const c = fresh();
        const bad: Record<string, unknown>[] = [
          { n: NaN },
          { n: Infinity },
          { f: () => 1 },
          { d: new Date() },
          { m: new Map() },
          { nested: [[1]] },
          { a: [undefined] },
          { b: 10n },
          { deep: { s: Symbol('x') } },
          { lone: '\ud800' },
        ];
        for (const data of bad) {
          await assert.rejects(store.set(`${c}/a`, data), code('invalid-argument'));
          assert.throws(() => store.batch().set(`${c}/a`, data), code('invalid-argument'));
        }
        assert.equal(await store.get(`${c}/a`), null);
      });

      test('a refused value is named by its field path', async () => {
        const c = fresh();
        const cases: [Record<string, unknown>, string][] = [
          [{ ok: 'x', a: { b: [1, NaN] } }, 'a.b[1]: numbers must be finite'],
          [{ reading: { issuer: { name: '\ud800' } } }, 'reading.issuer.name: string is not valid Unicode'],
          [{ m: { '': 1 } }, 'm: field names must not be empty'],
          [{ '': 1 }, 'data: field names must not be empty'],
        ];
        for (const [data, message] of cases) await assert.rejects(store.set(`${c}/a`, data), (e: Error) => e.message === message);
        await store.set(`${c}/a`, { x: 1 });
        await assert.rejects(store.update(`${c}/a`, { deep: { list: [{ n: Infinity }] } }), (e: Error) => e.message === 'deep.list[0].n: numbers must be finite');
        assert.deepEqual((await store.get(`${c}/a`))?.data, { x: 1 });
      });

      test('malformed paths are refused with invalid-argument', async () => {
        const c = fresh();
        await assert.rejects(store.get(c), code('invalid-argument'));
        await assert.rejects(store.set(`${c}/a/sub`, { x: 1 }), code('invalid-argument'));
        await assert.rejects(store.set(`${c}//a`, { x: 1 }), code('invalid-argument'));
        await assert.rejects(store.query({ collection: `${c}/a` }), code('invalid-argument'));
      });

      test('create fails with already-exists on an existing document and leaves it unchanged', async () => {
        const c = fresh();
        await store.create(`${c}/a`, { v: 1 });
        await assert.rejects(store.create(`${c}/a`, { v: 2 }), code('already-exists'));
        assert.deepEqual((await store.get(`${c}/a`))?.data, { v: 1 });
      });

      test('update replaces top-level fields and keeps the others', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { a: 1, m: { x: 1, y: 2 }, keep: true });
        await store.update(`${c}/a`, { a: 2, m: { x: 3 } });
        assert.deepEqual((await store.get(`${c}/a`))?.data, { a: 2, m: { x: 3 }, keep: true });
      });

      test('update keys are top-level field names even when they contain a dot', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { m: { x: 1 } });
        await store.update(`${c}/a`, { 'm.x': 5 });
        assert.deepEqual((await store.get(`${c}/a`))?.data, { m: { x: 1 }, 'm.x': 5 });
      });

      test('DELETE_FIELD removes a field; increment adds and treats a missing field as 0', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { gone: 'x', n: 5, keep: 1 });
        await store.update(`${c}/a`, { gone: DELETE_FIELD, n: increment(3), fresh: increment(2) });
        assert.deepEqual((await store.get(`${c}/a`))?.data, { n: 8, keep: 1, fresh: 2 });
        await store.update(`${c}/a`, { n: increment(-10) });
        assert.equal((await store.get(`${c}/a`))?.data.n, -2);
      });

      test('update of a missing document fails with not-found and creates nothing', async () => {
        const c = fresh();
        await assert.rejects(store.update(`${c}/a`, { x: 1 }), code('not-found'));
        await assert.rejects(store.update(`${c}/b`, { n: increment(1) }), code('not-found'));
        assert.deepEqual(await store.getAll([`${c}/a`, `${c}/b`]), [null, null]);
      });

      test('sentinels are refused outside the top level of update', async () => {
        const c = fresh();
        await assert.rejects(store.set(`${c}/a`, { n: increment(1) }), code('invalid-argument'));
        await store.set(`${c}/a`, { m: { n: 1 } });
        await assert.rejects(store.update(`${c}/a`, { m: { n: increment(1) } }), code('invalid-argument'));
        assert.deepEqual((await store.get(`${c}/a`))?.data, { m: { n: 1 } });
      });

      test('delete removes a document; deleting a missing one succeeds', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { x: 1 });
        await store.delete(`${c}/a`);
        assert.equal(await store.get(`${c}/a`), null);
        await store.delete(`${c}/never`);
      });

      test('a deleted document can be created again', async () => {
        const c = fresh();
        await store.create(`${c}/a`, { v: 1 });
        await store.delete(`${c}/a`);
        await store.create(`${c}/a`, { v: 2 });
        assert.deepEqual((await store.get(`${c}/a`))?.data, { v: 2 });
      });

      test('getAll returns documents in request order with null for missing ones', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { v: 'a' });
        await store.set(`${c}/c`, { v: 'c' });
        const got = await store.getAll([`${c}/c`, `${c}/b`, `${c}/a`]);
        assert.deepEqual(
          got.map((d) => d?.data.v ?? null),
          ['c', null, 'a'],
        );
        assert.deepEqual(await store.getAll([]), []);
      });
    });

    describe('queries', () => {
      let c: string;
      before(async () => {
        c = fresh();
        const b = store.batch();
        b.set(`${c}/d1`, { n: 3, s: 'x', tags: ['red', 'blue'], flag: true, nested: { k: 1 } });
        b.set(`${c}/d2`, { n: 1, s: 'y', tags: ['red'], flag: false });
        b.set(`${c}/d3`, { n: 2.5, s: 'x', tags: [] });
        b.set(`${c}/d4`, { n: '2', s: null });
        b.set(`${c}/d5`, { n: 2, s: 'z' });
        b.set(`${c}/d6`, { other: true });
        // A same-named collection elsewhere must not leak into collection queries.
        b.set(`${c}/d1/${c}/x`, { n: 1, s: 'x' });
        await b.commit();
      });
      const q = (extra: Partial<Query>) => store.query({ collection: c, ...extra });

      test('no filter returns the whole collection in id order', async () => {
        assert.deepEqual(ids(await q({})), ['d1', 'd2', 'd3', 'd4', 'd5', 'd6']);
      });

      test('== matches equal values of the same type only', async () => {
        assert.deepEqual(ids(await q({ where: [['s', '==', 'x']] })), ['d1', 'd3']);
        assert.deepEqual(ids(await q({ where: [['n', '==', 2]] })), ['d5']);
        assert.deepEqual(ids(await q({ where: [['n', '==', '2']] })), ['d4']);
        assert.deepEqual(ids(await q({ where: [['flag', '==', false]] })), ['d2']);
        assert.deepEqual(ids(await q({ where: [['flag', '==', 0]] })), []);
        assert.deepEqual(ids(await q({ where: [['s', '==', null]] })), ['d4']);
        assert.deepEqual(ids(await q({ where: [['nested.k', '==', 1]] })), ['d1']);
        assert.deepEqual(ids(await q({ where: [['nested', '==', { k: 1 }]] })), ['d1']);
        assert.deepEqual(ids(await q({ where: [['tags', '==', ['red']]] })), ['d2']);
      });

      test('!= excludes documents lacking the field or holding null', async () => {
        assert.deepEqual(ids(await q({ where: [['s', '!=', 'x']] })), ['d2', 'd5']);
        assert.deepEqual(ids(await q({ where: [['s', '!=', null]] })), ['d1', 'd3', 'd2', 'd5']);
      });

      test('range filters match only the same type and order by the filtered field', async () => {
        assert.deepEqual(ids(await q({ where: [['n', '<', 3]] })), ['d2', 'd5', 'd3']);
        assert.deepEqual(ids(await q({ where: [['n', '<=', 3]] })), ['d2', 'd5', 'd3', 'd1']);
        assert.deepEqual(ids(await q({ where: [['n', '>', 1]] })), ['d5', 'd3', 'd1']);
        assert.deepEqual(ids(await q({ where: [['n', '>=', 2.5]] })), ['d3', 'd1']);
        assert.deepEqual(ids(await q({ where: [['n', '>=', '0']] })), ['d4']);
        assert.deepEqual(ids(await q({ where: [['s', '>', 'x']] })), ['d2', 'd5']);
        assert.deepEqual(ids(await q({ where: [['n', '>', 1], ['n', '<', 3]] })), ['d5', 'd3']);
      });

      test('in matches any listed value, type-aware', async () => {
        assert.deepEqual(ids(await q({ where: [['s', 'in', ['x', 'z']]] })), ['d1', 'd3', 'd5']);
        assert.deepEqual(ids(await q({ where: [['n', 'in', [2, '2']]] })), ['d4', 'd5']);
        // null in the list matches nothing, as in Firestore: only `== null` finds nulls.
        assert.deepEqual(ids(await q({ where: [['s', 'in', [null, 'y']]] })), ['d2']);
      });

      test('array-contains matches arrays holding the value', async () => {
        assert.deepEqual(ids(await q({ where: [['tags', 'array-contains', 'red']] })), ['d1', 'd2']);
        assert.deepEqual(ids(await q({ where: [['tags', 'array-contains', 'blue']] })), ['d1']);
        assert.deepEqual(ids(await q({ where: [['tags', 'array-contains', 'green']] })), []);
        assert.deepEqual(ids(await q({ where: [['s', 'array-contains', 'x']] })), []);
      });

      test('filters combine with AND', async () => {
        assert.deepEqual(ids(await q({ where: [['s', '==', 'x'], ['n', '>', 2.7]] })), ['d1']);
        assert.deepEqual(ids(await q({ where: [['tags', 'array-contains', 'red'], ['flag', '==', false]] })), ['d2']);
      });

      test('orderBy excludes documents lacking the field and orders numbers before strings', async () => {
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']] })), ['d2', 'd5', 'd3', 'd1', 'd4']);
        assert.deepEqual(ids(await q({ orderBy: [['n', 'desc']] })), ['d4', 'd1', 'd3', 'd5', 'd2']);
      });

      test('ties are broken by document id in the direction of the last orderBy', async () => {
        assert.deepEqual(ids(await q({ orderBy: [['s', 'asc']] })), ['d4', 'd1', 'd3', 'd2', 'd5']);
        assert.deepEqual(ids(await q({ orderBy: [['s', 'desc']] })), ['d5', 'd2', 'd3', 'd1', 'd4']);
      });

      test('limit and offset page through the ordered results', async () => {
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']], limit: 2 })), ['d2', 'd5']);
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']], limit: 2, offset: 1 })), ['d5', 'd3']);
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']], offset: 4 })), ['d4']);
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']], offset: 9 })), []);
        assert.deepEqual(ids(await q({ limit: 0 })), []);
      });

      test('startAfter resumes strictly after the cursor values', async () => {
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']], startAfter: [2] })), ['d3', 'd1', 'd4']);
        assert.deepEqual(ids(await q({ orderBy: [['n', 'desc']], startAfter: [2.5] })), ['d5', 'd2']);
        assert.deepEqual(ids(await q({ orderBy: [['n', 'asc']], startAfter: [2], limit: 1 })), ['d3']);
        assert.deepEqual(ids(await q({ orderBy: [['s', 'asc'], ['n', 'asc']], startAfter: ['x', 2.5] })), ['d1', 'd2', 'd5']);
        // A prefix cursor skips every document equal on that prefix.
        assert.deepEqual(ids(await q({ orderBy: [['s', 'asc'], ['n', 'asc']], startAfter: ['x'] })), ['d2', 'd5']);
        assert.deepEqual(ids(await q({ orderBy: [['s', 'asc']], startAfter: [null] })), ['d1', 'd3', 'd2', 'd5']);
      });

      test('paging with limit and startAfter visits every ordered document once', async () => {
        const seen: string[] = [];
        let cursor: unknown[] | undefined;
        for (;;) {
          const page = await q({ orderBy: [['n', 'asc']], limit: 2, ...(cursor ? { startAfter: cursor } : {}) });
          if (page.length === 0) break;
          seen.push(...ids(page));
          cursor = [page.at(-1)!.data.n];
        }
        assert.deepEqual(seen, ['d2', 'd5', 'd3', 'd1', 'd4']);
      });

      test('count applies filters, offset and limit', async () => {
        assert.equal(await store.count({ collection: c }), 6);
        assert.equal(await store.count({ collection: c, where: [['s', '==', 'x']] }), 2);
        assert.equal(await store.count({ collection: c, where: [['tags', 'array-contains', 'red']] }), 2);
        assert.equal(await store.count({ collection: c, orderBy: [['n', 'asc']] }), 5);
        assert.equal(await store.count({ collection: c, limit: 3 }), 3);
        assert.equal(await store.count({ collection: c, where: [['n', '>', 1]], offset: 1 }), 2);
        assert.equal(await store.count({ collection: `${c}x` }), 0);
      });

      test('invalid queries are refused with invalid-argument', async () => {
        const many = Array.from({ length: 31 }, (_, i) => `v${i}`);
        await assert.rejects(q({ where: [['s', 'in', many]] }), code('invalid-argument'));
        await assert.rejects(q({ where: [['s', 'in', []]] }), code('invalid-argument'));
        await assert.rejects(q({ where: [['s', '<', null]] }), code('invalid-argument'));
        await assert.rejects(q({ startAfter: [1] }), code('invalid-argument'));
        await assert.rejects(q({ limit: -1 }), code('invalid-argument'));
        await assert.rejects(q({ orderBy: [['n', 'asc'], ['n', 'desc']] }), code('invalid-argument'));
        await assert.rejects(q({ where: [['tags', 'array-contains', 'a'], ['tags', 'array-contains', 'b']] }), code('invalid-argument'));
        await assert.rejects(q({ where: [['s', '==', NaN]] }), code('invalid-argument'));
        await assert.rejects(store.count({ collection: c, where: [['s', 'in', many]] }), code('invalid-argument'));
        assert.deepEqual(ids(await q({ where: [['s', 'in', many.slice(0, 29).concat('x')]] })), ['d1', 'd3']);
      });
    });

    describe('ordering across types', () => {
      test('null < booleans < numbers < strings < arrays < maps, each compared within its type', async () => {
        const c = fresh();
        const values: unknown[] = [null, false, true, -1, 10, 'A', 'a', 'ab', [1], [1, 2], [9], [10], { a: 1 }, { a: 2 }, { b: 0 }];
        // Ids whose order differs from the value order, so the store must really sort.
        const b = store.batch();
        values.forEach((v, i) => b.set(`${c}/k${String((i * 7) % values.length).padStart(2, '0')}`, { v, i }));
        await b.commit();
        const all = await store.query({ collection: c, orderBy: [['v', 'asc']] });
        assert.deepEqual(
          all.map((d) => d.data.i),
          values.map((_, i) => i),
        );
        const desc = await store.query({ collection: c, orderBy: [['v', 'desc']], limit: 5 });
        assert.deepEqual(
          desc.map((d) => d.data.i),
          [14, 13, 12, 11, 10],
        );
        const page = await store.query({ collection: c, orderBy: [['v', 'asc']], startAfter: [[1, 2]], limit: 3 });
        assert.deepEqual(
          page.map((d) => d.data.i),
          [10, 11, 12],
        );
      });

      test('strings order by Unicode code point', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { s: '😀' });
        await store.set(`${c}/b`, { s: '\uff5e' });
        await store.set(`${c}/c`, { s: 'z' });
        assert.deepEqual(ids(await store.query({ collection: c, orderBy: [['s', 'asc']] })), ['c', 'b', 'a']);
      });
    });

    describe('collection groups', () => {
      test('a group query spans every collection with that id at any depth, ordered by path', async () => {
        const g = fresh();
        const [pa, pb] = [fresh(), fresh()];
        const b = store.batch();
        b.set(`${g}/top`, { n: 4 });
        b.set(`${pa}/1/${g}/x`, { n: 1 });
        b.set(`${pb}/2/${g}/y`, { n: 2 });
        b.set(`${pa}/1/sub/s1/${g}/z`, { n: 3 });
        b.set(`${pa}/1/${g}x/w`, { n: 0 });
        await b.commit();
        const all = await store.query({ collection: g, group: true });
        assert.deepEqual(
          all.map((d) => d.path),
          [`${g}/top`, `${pa}/1/${g}/x`, `${pa}/1/sub/s1/${g}/z`, `${pb}/2/${g}/y`],
        );
        assert.deepEqual(ids(await store.query({ collection: g, group: true, where: [['n', '>=', 2]], orderBy: [['n', 'desc']] })), ['top', 'z', 'y']);
        assert.equal(await store.count({ collection: g, group: true }), 4);
        assert.deepEqual(ids(await store.query({ collection: `${pa}/1/${g}` })), ['x']);
      });
    });

    describe('batches', () => {
      test('a batch applies all its writes together, in order', async () => {
        const c = fresh();
        await store.set(`${c}/old`, { v: 1 });
        await store.set(`${c}/bye`, { v: 1 });
        const b = store.batch();
        b.create(`${c}/new`, { v: 1 });
        b.update(`${c}/new`, { v: increment(1) });
        b.update(`${c}/old`, { w: 2 });
        b.delete(`${c}/bye`);
        b.set(`${c}/s`, { v: 3 });
        assert.deepEqual(await store.getAll([`${c}/new`, `${c}/s`]), [null, null]);
        await b.commit();
        const got = await store.getAll([`${c}/new`, `${c}/old`, `${c}/bye`, `${c}/s`]);
        assert.deepEqual(
          got.map((d) => d?.data ?? null),
          [{ v: 2 }, { v: 1, w: 2 }, null, { v: 3 }],
        );
      });

      test('one failing write fails the whole batch', async () => {
        const c = fresh();
        await store.set(`${c}/exists`, { v: 1 });
        const b = store.batch();
        b.set(`${c}/a`, { v: 1 });
        b.create(`${c}/exists`, { v: 2 });
        await assert.rejects(b.commit(), code('already-exists'));
        const b2 = store.batch();
        b2.set(`${c}/a`, { v: 1 });
        b2.update(`${c}/missing`, { v: 1 });
        await assert.rejects(b2.commit(), code('not-found'));
        assert.deepEqual(await store.getAll([`${c}/a`, `${c}/exists`]), [null, { path: `${c}/exists`, id: 'exists', data: { v: 1 } }]);
      });

      test('500 writes commit; 501 are refused with invalid-argument and nothing is written', async () => {
        const c = fresh();
        const ok = store.batch();
        for (let i = 0; i < 500; i++) ok.set(`${c}/a${i}`, { i });
        await ok.commit();
        assert.equal(await store.count({ collection: c }), 500);
        const c2 = fresh();
        const tooMany = store.batch();
        for (let i = 0; i < 501; i++) tooMany.set(`${c2}/a${i}`, { i });
        await assert.rejects(tooMany.commit(), code('invalid-argument'));
        assert.equal(await store.count({ collection: c2 }), 0);
      });

      test('a committed batch cannot be reused', async () => {
        const c = fresh();
        const b = store.batch();
        b.set(`${c}/a`, { v: 1 });
        await b.commit();
        assert.throws(() => b.set(`${c}/b`, { v: 1 }), code('failed-precondition'));
        assert.equal(await store.get(`${c}/b`), null);
      });
    });

    describe('document size', () => {
      const big = (bytes: number) => 'x'.repeat(bytes);

      test('a document over 1 MiB is refused with invalid-argument and nothing is written', async () => {
        const c = fresh();
        await store.set(`${c}/ok`, { s: big(900 * 1024) });
        assert.equal(((await store.get(`${c}/ok`))?.data.s as string).length, 900 * 1024);
        await assert.rejects(store.set(`${c}/a`, { s: big(1024 * 1024 + 10) }), code('invalid-argument'));
        await assert.rejects(store.create(`${c}/a`, { s: big(1024 * 1024 + 10) }), code('invalid-argument'));
        const b = store.batch();
        b.set(`${c}/small`, { v: 1 });
        b.set(`${c}/a`, { s: big(1024 * 1024 + 10) });
        await assert.rejects(b.commit(), code('invalid-argument'));
        assert.deepEqual(await store.getAll([`${c}/a`, `${c}/small`]), [null, null]);
      });

      test('an update that grows a document past 1 MiB is refused and leaves it unchanged', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { s1: big(600 * 1024) });
        await assert.rejects(store.update(`${c}/a`, { s2: big(600 * 1024) }), code('invalid-argument'));
        assert.deepEqual(Object.keys((await store.get(`${c}/a`))!.data), ['s1']);
      });
    });

    describe('transactions', () => {
      test('commits the writes and returns the function result', async () => {
        const c = fresh();
        await store.set(`${c}/acct`, { balance: 100 });
        const out = await store.runTransaction(async (tx) => {
          const d = await tx.get(`${c}/acct`);
          const balance = (d!.data.balance as number) - 30;
          tx.update(`${c}/acct`, { balance });
          tx.create(`${c}/log1`, { delta: -30 });
          return balance;
        });
        assert.equal(out, 70);
        assert.deepEqual(
          (await store.getAll([`${c}/acct`, `${c}/log1`])).map((d) => d?.data),
          [{ balance: 70 }, { delta: -30 }],
        );
      });

      test('20 parallel read-then-set increments end at exactly 20', async () => {
        const c = fresh();
        await store.set(`${c}/counter`, { n: 0 });
        await Promise.all(
          Array.from({ length: 20 }, () =>
            store.runTransaction(async (tx) => {
              const d = await tx.get(`${c}/counter`);
              tx.set(`${c}/counter`, { n: (d!.data.n as number) + 1 });
            }),
          ),
        );
        assert.equal((await store.get(`${c}/counter`))?.data.n, 20);
      });

      test('parallel transactions that check by query before creating create only one document', async () => {
        const c = fresh();
        await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            store.runTransaction(async (tx) => {
              const existing = await tx.query({ collection: c, where: [['email', '==', 'a@x.test']] });
              if (existing.length === 0) tx.create(`${c}/u${i}`, { email: 'a@x.test' });
            }),
          ),
        );
        assert.equal(await store.count({ collection: c }), 1);
      });

      test('a read after a write is refused and nothing is committed', async () => {
        const c = fresh();
        await assert.rejects(
          store.runTransaction(async (tx) => {
            tx.set(`${c}/a`, { v: 1 });
            await tx.get(`${c}/b`);
          }),
          ApiError,
        );
        await assert.rejects(
          store.runTransaction(async (tx) => {
            tx.set(`${c}/a`, { v: 1 });
            await tx.query({ collection: c });
          }),
          ApiError,
        );
        assert.equal(await store.get(`${c}/a`), null);
      });

      test('an error thrown by the function propagates and nothing is committed', async () => {
        const c = fresh();
        const boom = new ApiError('failed-precondition', 'payment already paid');
        let runs = 0;
        await assert.rejects(
          store.runTransaction(async (tx) => {
            runs++;
            await tx.get(`${c}/a`);
            tx.set(`${c}/a`, { v: 1 });
            throw boom;
          }),
          (e) => e === boom,
        );
        assert.equal(runs, 1);
        assert.equal(await store.get(`${c}/a`), null);
      });

      test('create and update inside a transaction fail like outside one', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { v: 1 });
        await assert.rejects(
          store.runTransaction(async (tx) => {
            tx.set(`${c}/other`, { v: 1 });
            tx.create(`${c}/a`, { v: 2 });
          }),
          code('already-exists'),
        );
        await assert.rejects(
          store.runTransaction(async (tx) => {
            tx.update(`${c}/missing`, { v: 2 });
          }),
          code('not-found'),
        );
        assert.deepEqual(
          (await store.getAll([`${c}/a`, `${c}/other`, `${c}/missing`])).map((d) => d?.data ?? null),
          [{ v: 1 }, null, null],
        );
      });

      test('reads inside a transaction: get, getAll and query', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { k: 1 });
        await store.set(`${c}/b`, { k: 2 });
        const got = await store.runTransaction(async (tx) => {
          const a = await tx.get(`${c}/a`);
          const many = await tx.getAll([`${c}/b`, `${c}/zz`]);
          const q = await tx.query({ collection: c, where: [['k', '>', 1]] });
          return [a?.data.k, many.map((d) => d?.data.k ?? null), ids(q)];
        });
        assert.deepEqual(got, [1, [2, null], ['b']]);
      });

      test('more than 500 writes in a transaction are refused with invalid-argument', async () => {
        const c = fresh();
        await assert.rejects(
          store.runTransaction(async (tx) => {
            for (let i = 0; i < 501; i++) tx.set(`${c}/a${i}`, { i });
          }),
          code('invalid-argument'),
        );
        assert.equal(await store.count({ collection: c }), 0);
      });
    });

    describe('metering', () => {
      test('gets, queries and writes are counted on the metered view only', async () => {
        const c = fresh();
        const m: Meter = { reads: 0, writes: 0 };
        const s = store.metered(m);
        await s.set(`${c}/a`, { v: 1 });
        assert.deepEqual(m, { reads: 0, writes: 1 });
        await s.get(`${c}/a`);
        await s.get(`${c}/missing`);
        assert.deepEqual(m, { reads: 2, writes: 1 });
        await s.getAll([`${c}/a`, `${c}/x`, `${c}/y`]);
        assert.equal(m.reads, 5);
        const b = s.batch();
        b.set(`${c}/b`, { v: 2 });
        b.set(`${c}/c`, { v: 3 });
        b.delete(`${c}/x`);
        await b.commit();
        assert.equal(m.writes, 4);
        // The un-metered store and other views leave this meter alone.
        await store.get(`${c}/a`);
        await store.set(`${c}/d`, { v: 4 });
        await store.metered({ reads: 0, writes: 0 }).get(`${c}/a`);
        assert.deepEqual(m, { reads: 5, writes: 4 });
      });

      test('a query costs one read per returned or skipped document, at least one', async () => {
        const c = fresh();
        const b = store.batch();
        for (let i = 0; i < 6; i++) b.set(`${c}/d${i}`, { i });
        await b.commit();
        const m: Meter = { reads: 0, writes: 0 };
        const s = store.metered(m);
        await s.query({ collection: c, where: [['i', '<', 3]] });
        assert.equal(m.reads, 3);
        await s.query({ collection: c, where: [['i', '>', 99]] });
        assert.equal(m.reads, 4);
        await s.query({ collection: c, orderBy: [['i', 'asc']], offset: 2, limit: 2 });
        assert.equal(m.reads, 8);
        assert.equal(m.writes, 0);
      });

      test('count costs one read per 1000 matches, at least one', async () => {
        const c = fresh();
        for (let start = 0; start < 1001; start += 500) {
          const b = store.batch();
          for (let i = start; i < Math.min(start + 500, 1001); i++) b.set(`${c}/d${i}`, { i });
          await b.commit();
        }
        const m: Meter = { reads: 0, writes: 0 };
        const s = store.metered(m);
        assert.equal(await s.count({ collection: c }), 1001);
        assert.equal(m.reads, 2);
        assert.equal(await s.count({ collection: c, where: [['i', '<', 10]] }), 10);
        assert.equal(m.reads, 3);
        assert.equal(await s.count({ collection: c, where: [['i', '<', 0]] }), 0);
        assert.equal(m.reads, 4);
      });

      test('a transaction counts its reads and, once committed, its writes', async () => {
        const c = fresh();
        await store.set(`${c}/a`, { v: 1 });
        const m: Meter = { reads: 0, writes: 0 };
        const s = store.metered(m);
        await s.runTransaction(async (tx) => {
          await tx.get(`${c}/a`);
          await tx.get(`${c}/b`);
          tx.set(`${c}/b`, { v: 2 });
          tx.update(`${c}/a`, { v: 2 });
        });
        assert.deepEqual(m, { reads: 2, writes: 2 });
        await assert.rejects(
          s.runTransaction(async (tx) => {
            await tx.get(`${c}/a`);
            tx.set(`${c}/z`, { v: 1 });
            throw new Error('no');
          }),
        );
        await assert.rejects(s.create(`${c}/a`, { v: 3 }), code('already-exists'));
        assert.deepEqual(m, { reads: 3, writes: 2 });
      });
    });

    describe('strict indexes', () => {
      test('queries the indexes file does not cover are refused with failed-precondition', async () => {
        const c = fresh();
        const indexes: IndexesFile = {
          indexes: [
            {
              collectionGroup: c,
              queryScope: 'COLLECTION',
              fields: [
                { fieldPath: 'status', order: 'ASCENDING' },
                { fieldPath: 'at', order: 'DESCENDING' },
              ],
            },
          ],
          fieldOverrides: [],
        };
        const strict = await open({ strictIndexes: true, indexes });
        try {
          await strict.set(`${c}/a`, { status: 'open', at: 2, amount: 5 });
          await strict.set(`${c}/b`, { status: 'open', at: 3, amount: 1 });
          const covered = await strict.query({ collection: c, where: [['status', '==', 'open']], orderBy: [['at', 'desc']] });
          assert.deepEqual(ids(covered), ['b', 'a']);
          assert.deepEqual(ids(await strict.query({ collection: c, where: [['amount', '>', 2]] })), ['a']);
          assert.equal(await strict.count({ collection: c, where: [['status', '==', 'open'], ['amount', '==', 1]] }), 1);
          const refused = (e: unknown) => {
            code('failed-precondition')(e);
            const msg = (e as Error).message;
            assert.ok(msg.startsWith('The query requires an index: '), msg);
            const entry = JSON.parse(msg.slice('The query requires an index: '.length));
            assert.deepEqual(entry.fields, [
              { fieldPath: 'status', order: 'ASCENDING' },
              { fieldPath: 'amount', order: 'ASCENDING' },
            ]);
            return true;
          };
          await assert.rejects(strict.query({ collection: c, where: [['status', '==', 'open']], orderBy: [['amount', 'asc']] }), refused);
          await assert.rejects(strict.count({ collection: c, where: [['status', '==', 'open'], ['amount', '>', 0]] }), refused);
          await assert.rejects(strict.query({ collection: c, group: true, where: [['status', '==', 'open']] }), code('failed-precondition'));
          await assert.rejects(
            strict.runTransaction((tx) => tx.query({ collection: c, where: [['status', '==', 'open']], orderBy: [['at', 'asc']] })),
            code('failed-precondition'),
          );
        } finally {
          await strict.close();
        }
      });
    });
  });
}
