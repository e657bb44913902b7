import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPayRule, categoryRuleQueries, changeRule, checkCategory, checkVendorKey, RULE_BATCH, vendorRulesPath } from '../../../functions/src/domain/invoices/vendorRules.ts';
import { openSqliteStore } from '../../../functions/src/adapters/sqlite/sqliteStore.ts';
import { loadIndexes, missingIndex } from '../../../functions/src/adapters/indexCoverage.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { newInvoiceDoc } from '../../../functions/src/domain/invoices/invoiceDocs.ts';
import type { DocStore } from '../../../functions/src/ports/store.ts';

test('keys: vat:, email:, phone: or name: with a value, trimmed', () => {
  assert.equal(checkVendorKey(' vat:515 '), 'vat:515');
  for (const bad of ['acme', 'vat:', 'VAT:1', 'iban:1', '']) assert.throws(() => checkVendorKey(bad), { code: 'invalid-argument', message: /^key:/ });
  assert.equal(checkCategory(''), '');
  assert.equal(checkCategory('rent'), 'rent');
  assert.throws(() => checkCategory('yachts'), { code: 'invalid-argument', message: /^category:/ });
});

test('changeRule keeps the other rule and the name; forgetting both removes the record', () => {
  const at = '2025-01-01T00:00:00.000Z';
  const a = changeRule(null, 'vat:1', { payRule: 'card', name: 'Acme' }, at)!;
  assert.deepEqual(a, { key: 'vat:1', name: 'Acme', payRule: 'card', category: '', updatedAt: at });
  const b = changeRule(a, 'vat:1', { category: 'rent' }, at)!;
  assert.deepEqual([b.payRule, b.category, b.name], ['card', 'rent', 'Acme']);
  const c = changeRule(b, 'vat:1', { payRule: '' }, at)!;
  assert.deepEqual([c.payRule, c.category], ['', 'rent']);
  assert.equal(changeRule(c, 'vat:1', { category: '' }, at), null);
  assert.equal(changeRule(null, 'name:corner shop', {}, at), null);
  assert.equal(changeRule(null, 'name:corner shop', { category: 'rent' }, at)!.name, 'corner shop');
});

test('keys with "/" and ":" are stored under an encoded id', () => {
  assert.equal(vendorRulesPath('b', 'name:a/b'), 'businesses/b/vendorRules/name%3Aa%2Fb');
});

test('the sweeps issue only queries the indexes can serve', () => {
  const indexes = loadIndexes();
  for (const category of ['', 'rent']) for (const q of categoryRuleQueries('b', 'vat:1', category)) assert.equal(missingIndex(q, indexes), null);
});

let dir: string;
let store: DocStore;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'bfo-rules-'));
  store = openSqliteStore({ file: join(dir, 'db.sqlite'), strictIndexes: true });
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('applyPayRule works in bounded batches, reports what it did not reach, and a repeated call finishes', async () => {
  const n = RULE_BATCH + 50;
  let batch = store.batch();
  for (let i = 0; i < n; i++) {
    const doc = newInvoiceDoc({ docId: `d${i}`, businessId: 'b', fileId: 'f', fileName: 'x', contentType: 'application/pdf', size: 1, sha256: `s${i}`, source: 'upload', createdAtMs: i }, { vendorKey: 'vat:1' });
    batch.set(invoicesPath('b', doc.docId), { ...doc });
    if (i % 400 === 399) {
      await batch.commit();
      batch = store.batch();
    }
  }
  await batch.commit();
  const first = await applyPayRule(store, 'b', 'vat:1', 'card', 'now', RULE_BATCH);
  assert.deepEqual(first, { updated: RULE_BATCH, remaining: 50 });
  const second = await applyPayRule(store, 'b', 'vat:1', 'card', 'now', RULE_BATCH);
  assert.deepEqual(second, { updated: 50, remaining: 0 });
  const marks = (await store.query({ collection: invoicesPath('b') })).map((d) => d.data.effectivePayMark);
  assert.ok(marks.every((m) => m === 'paid_card'));
  assert.deepEqual(await applyPayRule(store, 'b', 'vat:1', 'card', 'now'), { updated: 0, remaining: 0 });
});
