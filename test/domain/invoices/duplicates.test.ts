import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duplicateReason, findDuplicate, invoiceHashPath, type DupFields } from '../../../functions/src/domain/invoices/duplicates.ts';
import { openSqliteStore } from '../../../functions/src/adapters/sqlite/sqliteStore.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import type { DocStore } from '../../../functions/src/ports/store.ts';

const doc = (sha256: string, vendorKey: string | null, number: string | null, date: string | null, totalMinor: number | null): DupFields => ({
  sha256,
  vendorKey,
  reading: { number, date, totalMinor },
});

test('the three rules: same bytes, same issuer and number, same issuer, date and total', () => {
  assert.equal(duplicateReason(doc('a', null, null, null, null), doc('a', 'vat:1', '9', null, null)), 'sha256');
  assert.equal(duplicateReason(doc('a', 'vat:1', 'INV-7', null, null), doc('b', 'vat:1', 'INV-7', '2025-01-01', 5)), 'number');
  assert.equal(duplicateReason(doc('a', 'vat:1', '1', '2025-01-01', 500), doc('b', 'vat:1', '2', '2025-01-01', 500)), 'date_total');
});

test('issuer rules need the same issuer and real values', () => {
  assert.equal(duplicateReason(doc('a', 'vat:1', 'INV-7', null, null), doc('b', 'vat:2', 'INV-7', null, null)), null);
  assert.equal(duplicateReason(doc('a', null, 'INV-7', null, null), doc('b', null, 'INV-7', null, null)), null);
  assert.equal(duplicateReason(doc('a', 'vat:1', '  ', null, null), doc('b', 'vat:1', '  ', null, null)), null, 'a blank number counts for nothing');
  assert.equal(duplicateReason(doc('a', 'vat:1', null, '2025-01-01', null), doc('b', 'vat:1', null, '2025-01-01', null)), null);
  assert.equal(duplicateReason(doc('a', 'vat:1', null, '2025-01-01', 0), doc('b', 'vat:1', null, '2025-01-01', 0)), 'date_total', 'a zero total is a total');
  assert.equal(duplicateReason(doc('a', 'vat:1', null, '2025-01-01', 500), doc('b', 'vat:1', null, '2025-01-02', 500)), null);
});

let dir: string;
let store: DocStore;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'bfo-dup-'));
  store = openSqliteStore({ file: join(dir, 'db.sqlite'), strictIndexes: true });
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('findDuplicate: a live marker wins, a stale one is reported, copies of the document itself do not count', async () => {
  const b = 'b1';
  const put = (id: string, data: Record<string, unknown>) => store.set(invoicesPath(b, id), { docId: id, sha256: 'x', vendorKey: null, reading: null, duplicateOf: null, ...data });
  await put('orig', { sha256: 'h1', vendorKey: 'vat:1', reading: { number: 'N1', date: '2025-01-01', totalMinor: 100 } });
  await store.set(invoiceHashPath(b, 'h1'), { sha256: 'h1', docId: 'orig', createdAt: '' });
  assert.deepEqual(await findDuplicate(store, b, doc('h1', null, null, null, null)), { duplicateOf: 'orig', reason: 'sha256', marker: 'live' });
  assert.deepEqual(await findDuplicate(store, b, doc('h2', 'vat:1', 'N1', null, null)), { duplicateOf: 'orig', reason: 'number', marker: 'absent' });
  assert.deepEqual(await findDuplicate(store, b, doc('h2', 'vat:1', 'N2', '2025-01-01', 100)), { duplicateOf: 'orig', reason: 'date_total', marker: 'absent' });
  assert.deepEqual(await findDuplicate(store, b, doc('h1', 'vat:1', 'N1', null, null), 'orig'), { duplicateOf: null, reason: null, marker: 'self' });

  await put('copy', { sha256: 'h1', duplicateOf: 'orig', vendorKey: 'vat:1', reading: { number: 'N1', date: null, totalMinor: null } });
  assert.equal((await findDuplicate(store, b, doc('h1', 'vat:1', 'N1', null, null), 'orig')).duplicateOf, null, "the original is not a duplicate of its own copy");
  await store.delete(invoicesPath(b, 'orig'));
  assert.deepEqual(await findDuplicate(store, b, doc('h1', null, null, null, null)), { duplicateOf: 'copy', reason: 'sha256', marker: 'stale' });
});
