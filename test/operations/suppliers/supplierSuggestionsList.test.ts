import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get } from '../../http.ts';
import { seedIssuer } from '../software/helpers.ts';
import { suggestionsPath } from '../../../functions/src/domain/invoices/issuers.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('lists open suggestions with contacts and invoice counts, most invoices first, ties by name', async () => {
  const { store } = h.app.services;
  const b = h.owner.businessId;
  const few = await seedIssuer(store, b, { name: 'Beta Print', phone: '03-5551234' }, { count: 1 });
  const many = await seedIssuer(store, b, { name: 'Gamma Parts', vatId: '515151515', email: 'Sales@Gamma.example' }, { count: 4 });
  const tie = await seedIssuer(store, b, { name: 'alpha prints' }, { count: 1 });
  const gone = await seedIssuer(store, b, { name: 'Dismissed Co', vatId: '516161616' }, { count: 9 });
  await store.update(suggestionsPath(b, gone.id), { status: 'dismissed' });

  const list = await h.call('supplierSuggestionsList');
  assert.equal(list.total, 3);
  assert.deepEqual(list.items.map((s: any) => s.id), [many.id, tie.id, few.id]);
  assert.deepEqual(list.items[0], {
    id: many.id, name: 'Gamma Parts', phone: null, email: 'sales@gamma.example', vatId: '515151515',
    vendorKey: 'vat:515151515', status: 'open', docCount: 4,
  });
  assert.deepEqual(list.items[2], { id: few.id, name: 'Beta Print', phone: '03-5551234', email: null, vatId: null, vendorKey: few.vendorKey, status: 'open', docCount: 1 });
});

test('the count comes from the invoices, so it goes past the 500 ids a suggestion keeps', async () => {
  const other = await h.newBusiness('Big Co');
  const s = await seedIssuer(h.app.services.store, other.businessId, { name: 'Huge Vendor', vatId: '517171717' }, { count: 520 });
  const list = await h.call('supplierSuggestionsList', {}, other);
  assert.deepEqual(list.items.map((x: any) => [x.id, x.docCount]), [[s.id, 520]]);
});

test('another business sees only its own suggestions; GET works (read-only)', async () => {
  const other = await h.newBusiness('Empty Co');
  assert.deepEqual(await h.call('supplierSuggestionsList', {}, other), { items: [], total: 0 });
  const origin = await h.listen();
  const res = await get(origin, '/v1/supplierSuggestionsList', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.total, 3);
  assert.equal(res.headers.get('x-doc-writes'), '0');
});
