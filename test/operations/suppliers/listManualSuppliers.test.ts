import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { get } from '../../http.ts';
import { registry } from '../../../functions/src/operations/index.ts';
import { supplierKeyOf } from '../../../functions/src/domain/contacts.ts';
import { recordPaymentToSupplier, suppliersPath, type SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

async function payTo(user: TestUser, name: string, phone: string | null, email: string | null) {
  const key = supplierKeyOf({ phone, email });
  await h.app.services.store.runTransaction(async (tx) => {
    const doc = await tx.get(suppliersPath(user.businessId, key));
    recordPaymentToSupplier(tx, user.businessId, (doc?.data ?? null) as SupplierRecord | null, { supplierKey: key, supplierName: name, supplierPhone: phone, supplierEmail: email }, new Date().toISOString());
  });
}

test('empty at first', async () => {
  assert.deepEqual(await h.call('listManualSuppliers'), { suppliers: [], freelancerKeys: [] });
});

test('lists hand-created suppliers without payments, not those derived from payments', async () => {
  await h.call('createSupplier', { name: 'Manual B', phone: '050-1234567' });
  await h.call('createSupplier', { name: 'Manual A', email: 'a@example.com', kind: 'freelancer' });
  await payTo(h.owner, 'Derived', '+972529999999', null);
  const r = await h.call('listManualSuppliers');
  assert.deepEqual(r.suppliers.map((s: any) => [s.name, s.key, s.manual, s.paymentCount]), [
    ['Manual A', 'a@example.com', true, 0],
    ['Manual B', '+972501234567', true, 0],
  ]);
  assert.deepEqual(r.freelancerKeys, ['a@example.com']);
});

test('a hand-created supplier drops off the list once it has a payment', async () => {
  await payTo(h.owner, 'Manual B', '+972501234567', null);
  const r = await h.call('listManualSuppliers');
  assert.deepEqual(r.suppliers.map((s: any) => s.key), ['a@example.com']);
  const row = (await h.call('suppliersList')).items.find((s: any) => s.key === '+972501234567');
  assert.equal(row.manual, true);
  assert.equal(row.paymentCount, 1);
});

test('kind changes are reflected in freelancerKeys, for derived and manual suppliers alike', async () => {
  await h.call('saveSupplierContact', { supplierKey: '052-9999999', kind: 'freelancer' });
  await h.call('saveSupplierContact', { supplierKey: '0501234567', kind: 'freelancer' });
  assert.deepEqual((await h.call('listManualSuppliers')).freelancerKeys, ['+972501234567', '+972529999999', 'a@example.com']);
  await h.call('saveSupplierContact', { supplierKey: 'A@example.com', kind: 'supplier' });
  await h.call('saveSupplierContact', { supplierKey: '+972529999999', fullName: 'Kind untouched' });
  const r = await h.call('listManualSuppliers');
  assert.deepEqual(r.freelancerKeys, ['+972501234567', '+972529999999']);
  assert.equal(r.suppliers[0].kind, 'supplier');
});

test('another business sees nothing', async () => {
  const other = await h.newBusiness('Other Co');
  assert.deepEqual(await h.call('listManualSuppliers', {}, other), { suppliers: [], freelancerKeys: [] });
});

test('over HTTP as GET', async () => {
  const origin = await h.listen();
  const res = await get(origin, '/v1/listManualSuppliers', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.result.freelancerKeys, ['+972501234567', '+972529999999']);
});

test('a supplier first paid through createPayment is not manual', { skip: !registry.has('createPayment') && 'createPayment is not in the registry yet' }, async () => {
  const biz = await h.newBusiness('Payer');
  await h.call('createSupplier', { name: 'Will Be Paid', phone: '054-4444444' }, biz);
  await h.call('createSupplier', { name: 'Never Paid', phone: '054-5555555' }, biz);
  await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: false, description: 'Work', supplierName: 'Will Be Paid', supplierPhone: '0544444444', channel: 'link' }, biz);
  await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: false, description: 'Work', supplierName: 'Fresh', supplierEmail: 'fresh@example.com', channel: 'link' }, biz);
  assert.deepEqual((await h.call('listManualSuppliers', {}, biz)).suppliers.map((s: any) => s.name), ['Never Paid']);
});
