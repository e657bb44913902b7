import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_INDEXES_FILE, loadIndexes, missingIndex } from '../../functions/src/adapters/indexCoverage.ts';
import { fieldSegments } from '../../functions/src/adapters/storeRules.ts';
import type { CompositeIndex, FieldOverride, IndexesFile } from '../../functions/src/adapters/indexCoverage.ts';
import type { Query } from '../../functions/src/ports/store.ts';

const P = 'businesses/b1/payments';
const none: IndexesFile = { indexes: [], fieldOverrides: [] };
const composite = (fields: [string, 'ASCENDING' | 'DESCENDING' | 'CONTAINS'][], queryScope: CompositeIndex['queryScope'] = 'COLLECTION', collectionGroup = 'payments'): CompositeIndex => ({
  collectionGroup,
  queryScope,
  fields: fields.map(([fieldPath, o]) => (o === 'CONTAINS' ? { fieldPath, arrayConfig: 'CONTAINS' } : { fieldPath, order: o })),
});
const withIndexes = (...indexes: CompositeIndex[]): IndexesFile => ({ indexes, fieldOverrides: [] });
const withOverrides = (...fieldOverrides: FieldOverride[]): IndexesFile => ({ indexes: [], fieldOverrides });
const needs = (q: Query, indexes: IndexesFile) => {
  const m = missingIndex(q, indexes);
  assert.notEqual(m, null, 'expected the query to need an index');
  return JSON.parse(m!);
};

describe('missingIndex: collection scope', () => {
  test('queries on one field are served by the automatic single-field indexes', () => {
    const ok: Query[] = [
      { collection: P },
      { collection: P, where: [['status', '==', 'open']] },
      { collection: P, where: [['status', 'in', ['open', 'sent']]] },
      { collection: P, where: [['tokens', 'array-contains', 'acme']] },
      { collection: P, where: [['amount', '>', 5]] },
      { collection: P, where: [['amount', '>', 5], ['amount', '<=', 50]], orderBy: [['amount', 'desc']] },
      { collection: P, where: [['status', '!=', 'void']] },
      { collection: P, orderBy: [['createdAt', 'desc']], limit: 10, startAfter: [5] },
    ];
    for (const q of ok) assert.equal(missingIndex(q, none), null, JSON.stringify(q));
  });

  test('equality filters on several fields without orderBy merge single-field indexes', () => {
    assert.equal(missingIndex({ collection: P, where: [['status', '==', 'open'], ['vendorId', '==', 'v1'], ['tokens', 'array-contains', 'x']] }, none), null);
  });

  test('equality plus orderBy on another field needs [equality fields, orderBy field]', () => {
    const q: Query = { collection: P, where: [['status', '==', 'open']], orderBy: [['createdAt', 'desc']] };
    assert.deepEqual(needs(q, none), {
      collectionGroup: 'payments',
      queryScope: 'COLLECTION',
      fields: [
        { fieldPath: 'status', order: 'ASCENDING' },
        { fieldPath: 'createdAt', order: 'DESCENDING' },
      ],
    });
    assert.equal(missingIndex(q, withIndexes(composite([['status', 'ASCENDING'], ['createdAt', 'DESCENDING']]))), null);
    // The direction of an ordered field must match; the equality field's direction does not matter.
    assert.notEqual(missingIndex(q, withIndexes(composite([['status', 'ASCENDING'], ['createdAt', 'ASCENDING']]))), null);
    assert.equal(missingIndex(q, withIndexes(composite([['status', 'DESCENDING'], ['createdAt', 'DESCENDING']]))), null);
  });

  test('equality plus a range filter needs a composite with the range field last', () => {
    const q: Query = { collection: P, where: [['status', '==', 'open'], ['amount', '>=', 100]] };
    assert.deepEqual(needs(q, none).fields, [
      { fieldPath: 'status', order: 'ASCENDING' },
      { fieldPath: 'amount', order: 'ASCENDING' },
    ]);
    assert.equal(missingIndex(q, withIndexes(composite([['status', 'ASCENDING'], ['amount', 'ASCENDING']]))), null);
    const desc: Query = { ...q, orderBy: [['amount', 'desc']] };
    assert.deepEqual(needs(desc, withIndexes(composite([['status', 'ASCENDING'], ['amount', 'ASCENDING']]))).fields[1], {
      fieldPath: 'amount',
      order: 'DESCENDING',
    });
  });

  test('a range filter on one field with orderBy on another orders the range field after it', () => {
    const q: Query = { collection: P, where: [['amount', '>', 0]], orderBy: [['createdAt', 'desc']] };
    assert.deepEqual(needs(q, none).fields, [
      { fieldPath: 'createdAt', order: 'DESCENDING' },
      { fieldPath: 'amount', order: 'DESCENDING' },
    ]);
  });

  test('range filters on two fields need a composite', () => {
    const q: Query = { collection: P, where: [['dueAt', '<', 9], ['amount', '>', 0]] };
    assert.deepEqual(needs(q, none).fields, [
      { fieldPath: 'amount', order: 'ASCENDING' },
      { fieldPath: 'dueAt', order: 'ASCENDING' },
    ]);
  });

  test('several orderBy fields need a composite with exactly those directions', () => {
    const q: Query = { collection: P, orderBy: [['status', 'asc'], ['createdAt', 'desc']] };
    assert.deepEqual(needs(q, none).fields, [
      { fieldPath: 'status', order: 'ASCENDING' },
      { fieldPath: 'createdAt', order: 'DESCENDING' },
    ]);
    assert.equal(missingIndex(q, withIndexes(composite([['status', 'ASCENDING'], ['createdAt', 'DESCENDING']]))), null);
    assert.notEqual(missingIndex(q, withIndexes(composite([['createdAt', 'DESCENDING'], ['status', 'ASCENDING']]))), null);
  });

  test('array-contains plus orderBy needs [field CONTAINS, orderBy field]', () => {
    const q: Query = { collection: P, where: [['tokens', 'array-contains', 'acme']], orderBy: [['createdAt', 'desc']] };
    assert.deepEqual(needs(q, none).fields, [
      { fieldPath: 'tokens', arrayConfig: 'CONTAINS' },
      { fieldPath: 'createdAt', order: 'DESCENDING' },
    ]);
    assert.equal(missingIndex(q, withIndexes(composite([['tokens', 'CONTAINS'], ['createdAt', 'DESCENDING']]))), null);
    // An ordered (non-array) index on the same field does not serve array-contains.
    assert.notEqual(missingIndex(q, withIndexes(composite([['tokens', 'ASCENDING'], ['createdAt', 'DESCENDING']]))), null);
  });

  test('equality fields may appear in the index in any order', () => {
    const q: Query = { collection: P, where: [['status', '==', 'open'], ['vendorId', '==', 'v1']], orderBy: [['createdAt', 'asc']] };
    assert.equal(missingIndex(q, withIndexes(composite([['vendorId', 'ASCENDING'], ['status', 'ASCENDING'], ['createdAt', 'ASCENDING']]))), null);
  });

  test('indexes sharing the ordering suffix merge to cover several equality fields', () => {
    const q: Query = { collection: P, where: [['status', '==', 'open'], ['vendorId', '==', 'v1']], orderBy: [['createdAt', 'asc']] };
    const a = composite([['status', 'ASCENDING'], ['createdAt', 'ASCENDING']]);
    const b = composite([['vendorId', 'ASCENDING'], ['createdAt', 'ASCENDING']]);
    assert.equal(missingIndex(q, withIndexes(a, b)), null);
    assert.notEqual(missingIndex(q, withIndexes(a)), null);
  });

  test('an index for another collection group, scope, or with extra fields does not count', () => {
    const q: Query = { collection: P, where: [['status', '==', 'open']], orderBy: [['createdAt', 'asc']] };
    const fields: [string, 'ASCENDING'][] = [
      ['status', 'ASCENDING'],
      ['createdAt', 'ASCENDING'],
    ];
    assert.notEqual(missingIndex(q, withIndexes(composite(fields, 'COLLECTION', 'invoices'))), null);
    assert.notEqual(missingIndex(q, withIndexes(composite(fields, 'COLLECTION_GROUP'))), null);
    assert.notEqual(missingIndex(q, withIndexes(composite([...fields, ['amount', 'ASCENDING']]))), null);
    assert.notEqual(missingIndex(q, withIndexes(composite([['kind', 'ASCENDING'], ...fields]))), null);
  });

  test('a trailing __name__ field in an index entry is implied and ignored', () => {
    const q: Query = { collection: P, where: [['status', '==', 'open']], orderBy: [['createdAt', 'asc']] };
    const ix = composite([['status', 'ASCENDING'], ['createdAt', 'ASCENDING'], ['__name__', 'ASCENDING']]);
    assert.equal(missingIndex(q, withIndexes(ix)), null);
  });

  test('a field override without indexes disables that field’s single-field indexes', () => {
    const indexes = withOverrides({ collectionGroup: 'payments', fieldPath: 'notes', indexes: [] });
    const q: Query = { collection: P, where: [['notes', '==', 'x']] };
    const entry = needs(q, indexes);
    assert.equal(entry.fieldPath, 'notes');
    assert.ok(entry.indexes.some((ix: { queryScope: string; order?: string }) => ix.queryScope === 'COLLECTION' && ix.order));
    assert.equal(missingIndex({ collection: P, where: [['status', '==', 'x']] }, indexes), null);
    assert.equal(missingIndex({ collection: 'businesses/b1/invoices', where: [['notes', '==', 'x']] }, indexes), null);
  });
});

describe('missingIndex: collection groups', () => {
  const G = 'payments';

  test('a group query with no filter or order needs nothing', () => {
    assert.equal(missingIndex({ collection: G, group: true }, none), null);
  });

  test('a single-field group query needs a COLLECTION_GROUP field override', () => {
    const q: Query = { collection: G, group: true, where: [['status', '==', 'open']] };
    const entry = needs(q, none);
    assert.equal(entry.collectionGroup, 'payments');
    assert.equal(entry.fieldPath, 'status');
    assert.ok(entry.indexes.some((ix: { queryScope: string }) => ix.queryScope === 'COLLECTION_GROUP'));
    // The suggested override keeps the automatic collection-scope indexes.
    assert.ok(entry.indexes.some((ix: { queryScope: string; arrayConfig?: string }) => ix.queryScope === 'COLLECTION' && ix.arrayConfig === 'CONTAINS'));
    assert.equal(missingIndex(q, withOverrides({ collectionGroup: 'payments', fieldPath: 'status', indexes: entry.indexes })), null);
  });

  test('a group orderBy needs the override in that direction', () => {
    const q: Query = { collection: G, group: true, orderBy: [['createdAt', 'desc']] };
    const asc = withOverrides({ collectionGroup: 'payments', fieldPath: 'createdAt', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }] });
    const desc = withOverrides({ collectionGroup: 'payments', fieldPath: 'createdAt', indexes: [{ order: 'DESCENDING', queryScope: 'COLLECTION_GROUP' }] });
    assert.notEqual(missingIndex(q, asc), null);
    assert.equal(missingIndex(q, desc), null);
  });

  test('group array-contains needs a CONTAINS override in group scope', () => {
    const q: Query = { collection: G, group: true, where: [['tokens', 'array-contains', 'a']] };
    const collectionOnly = withOverrides({ collectionGroup: 'payments', fieldPath: 'tokens', indexes: [{ arrayConfig: 'CONTAINS', queryScope: 'COLLECTION' }] });
    const group = withOverrides({ collectionGroup: 'payments', fieldPath: 'tokens', indexes: [{ arrayConfig: 'CONTAINS', queryScope: 'COLLECTION_GROUP' }] });
    assert.notEqual(missingIndex(q, collectionOnly), null);
    assert.equal(missingIndex(q, group), null);
  });

  test('a group composite needs an index with queryScope COLLECTION_GROUP', () => {
    const q: Query = { collection: G, group: true, where: [['status', '==', 'open']], orderBy: [['createdAt', 'desc']] };
    const fields: [string, 'ASCENDING' | 'DESCENDING'][] = [
      ['status', 'ASCENDING'],
      ['createdAt', 'DESCENDING'],
    ];
    assert.equal(needs(q, none).queryScope, 'COLLECTION_GROUP');
    assert.notEqual(missingIndex(q, withIndexes(composite(fields, 'COLLECTION'))), null);
    assert.equal(missingIndex(q, withIndexes(composite(fields, 'COLLECTION_GROUP'))), null);
  });

  test('group equality on several fields merges group-scope overrides, and only those', () => {
    const q: Query = { collection: G, group: true, where: [['status', '==', 'open'], ['vendorId', '==', 'v']] };
    const status: FieldOverride = { collectionGroup: 'payments', fieldPath: 'status', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }] };
    const vendor: FieldOverride = { collectionGroup: 'payments', fieldPath: 'vendorId', indexes: [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }] };
    assert.equal(missingIndex(q, withOverrides(status, vendor)), null);
    assert.notEqual(missingIndex(q, withOverrides(status)), null);
    assert.equal(missingIndex(q, withIndexes(composite([['vendorId', 'ASCENDING'], ['status', 'ASCENDING']], 'COLLECTION_GROUP'))), null);
  });
});

describe('loadIndexes', () => {
  test('reads a file, fills a missing fieldOverrides, and treats a missing file as no indexes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bfo-ix-'));
    try {
      const f = join(dir, 'firestore.indexes.json');
      const entry = composite([['status', 'ASCENDING'], ['createdAt', 'DESCENDING']]);
      writeFileSync(f, JSON.stringify({ indexes: [entry] }));
      assert.deepEqual(loadIndexes(f), { indexes: [entry], fieldOverrides: [] });
      assert.deepEqual(loadIndexes(join(dir, 'absent.json')), { indexes: [], fieldOverrides: [] });
      writeFileSync(f, '{ not json');
      assert.throws(() => loadIndexes(f));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the repository's firestore.indexes.json is well-formed", () => {
    const ix = loadIndexes(DEFAULT_INDEXES_FILE);
    assert.ok(Array.isArray(ix.indexes) && Array.isArray(ix.fieldOverrides));
    for (const entry of ix.indexes) {
      assert.equal(typeof entry.collectionGroup, 'string');
      assert.ok(entry.queryScope === 'COLLECTION' || entry.queryScope === 'COLLECTION_GROUP');
      assert.ok(entry.fields.length >= 2, 'a composite index has at least two fields');
    }
  });
});

describe('fieldSegments', () => {
  test('dots separate map keys; backticks quote a key containing dots', () => {
    assert.deepEqual(fieldSegments('a.b.c'), ['a', 'b', 'c']);
    assert.deepEqual(fieldSegments('`a.b`.c'), ['a.b', 'c']);
    assert.deepEqual(fieldSegments('amount'), ['amount']);
    for (const bad of ['', 'a..b', '.a', 'a.', '`open']) assert.throws(() => fieldSegments(bad), bad);
  });
});
