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

/** What createPayment does to the supplier record, for as long as the payments operations may be absent. */
async function payTo(user: TestUser, name: string, phone: string | null, email: string | null, at: string) {
  const key = supplierKeyOf({ phone, email });
  await h.app.services.store.runTransaction(async (tx) => {
    const doc = await tx.get(suppliersPath(user.businessId, key));
    recordPaymentToSupplier(tx, user.businessId, (doc?.data ?? null) as SupplierRecord | null, { supplierKey: key, supplierName: name, supplierPhone: phone, supplierEmail: email }, at);
  });
}

test('an empty business has no suppliers', async () => {
  assert.deepEqual(await h.call('suppliersList'), { items: [], total: 0 });
});

test('lists suppliers from payments and hand-created ones, sorted by name: Hebrew collation, so Hebrew names first, case ignored', async () => {
  await payTo(h.owner, 'zeta Print', '+972501111111', null, '2025-01-01T10:00:00.000Z');
  await payTo(h.owner, 'Zeta Print Ltd', '+972501111111', 'zeta@example.com', '2025-02-01T10:00:00.000Z');
  await payTo(h.owner, 'alpha Cafe', null, 'alpha@example.com', '2025-03-01T10:00:00.000Z');
  await h.call('createSupplier', { name: 'Beta Studio', phone: '052-2222222', kind: 'freelancer' });
  await h.call('createSupplier', { name: 'דנה עיצוב', email: 'dana@example.com' });
  const list = await h.call('suppliersList');
  assert.equal(list.total, 4);
  // A later payment's name names that payment only: the supplier keeps its first name (issue 17).
  assert.deepEqual(list.items.map((s: any) => s.name), ['דנה עיצוב', 'alpha Cafe', 'Beta Studio', 'zeta Print']);
  assert.deepEqual(list.items[3], {
    key: '+972501111111', name: 'zeta Print', phone: '+972501111111', email: 'zeta@example.com',
    kind: 'supplier', manual: false, paymentCount: 2, lastPaymentAt: '2025-02-01T10:00:00.000Z',
  });
  assert.deepEqual(list.items[2], {
    key: '+972522222222', name: 'Beta Studio', phone: '+972522222222', email: null,
    kind: 'freelancer', manual: true, paymentCount: 0, lastPaymentAt: null,
  });
});

test("another business sees none of this business's suppliers", async () => {
  const other = await h.newBusiness('Other Co');
  assert.deepEqual(await h.call('suppliersList', {}, other), { items: [], total: 0 });
});

test('a member with the user role can list', async () => {
  const m = await h.addMember('user');
  assert.equal((await h.call('suppliersList', {}, m)).total, 4);
});

test('refuses unknown input fields', async () => {
  await assert.rejects(h.call('suppliersList', { kind: 'freelancer' }), { code: 'invalid-argument', message: /^kind: unknown field/ });
});

test('over HTTP as GET', async () => {
  const origin = await h.listen();
  const res = await get(origin, '/v1/suppliersList', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.total, 4);
  assert.equal(res.headers.get('x-doc-writes'), '0');
});

test('a payment made through createPayment lists its supplier', { skip: !registry.has('createPayment') && 'createPayment is not in the registry yet' }, async () => {
  const biz = await h.newBusiness('Payer');
  await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'Logo', supplierName: 'Via Payment', supplierPhone: '054-3333333', channel: 'link' }, biz);
  await h.call('createPayment', { amountAgorot: 5_000, vatIncluded: true, description: 'Flyer', supplierName: 'Via Payment', supplierPhone: '+972543333333', channel: 'link' }, biz);
  const { items } = await h.call('suppliersList', {}, biz);
  assert.equal(items.length, 1);
  assert.equal(items[0].key, '+972543333333');
  assert.equal(items[0].manual, false);
  assert.equal(items[0].paymentCount, 2);
  assert.ok(items[0].lastPaymentAt);
});
