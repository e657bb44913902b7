import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get } from '../../http.ts';
import { invoiceDoc, putInvoices, reading, seedIssuer } from './helpers.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('lists every tool, hidden ones too, with cadence and invoice count, sorted by name', async () => {
  const b = h.owner.businessId;
  const { store } = h.app.services;
  const zoom = await seedIssuer(store, b, { name: 'Zoom', email: 'billing@zoom.example' }, { count: 2 });
  const adobe = await seedIssuer(store, b, { name: 'adobe', vatId: '526262626' }, { count: 1 });
  await h.call('supplierSuggestionToSoftware', { id: zoom.id });
  await h.call('supplierSuggestionToSoftware', { id: adobe.id });
  await h.call('softwareUpdate', { id: zoom.id, hidden: true, cadence: 'monthly' });
  // An upload after the move carries softwareId; it counts too.
  await putInvoices(store, [invoiceDoc(b, reading({ name: 'Zoom', email: 'billing@zoom.example' }), { softwareId: zoom.id })]);

  assert.deepEqual(await h.call('softwareList'), {
    items: [
      { id: adobe.id, name: 'adobe', vendorKey: 'vat:526262626', hidden: false, cadence: 'auto', docCount: 1 },
      { id: zoom.id, name: 'Zoom', vendorKey: 'email:billing@zoom.example', hidden: true, cadence: 'monthly', docCount: 3 },
    ],
    total: 2,
  });
});

test('another business has its own list; GET works (read-only)', async () => {
  const other = await h.newBusiness('Other Co');
  assert.deepEqual(await h.call('softwareList', {}, other), { items: [], total: 0 });
  const origin = await h.listen();
  const res = await get(origin, '/v1/softwareList', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.total, 2);
  await assert.rejects(h.call('softwareList', { hidden: true }), { code: 'invalid-argument', message: /^hidden: / });
});
