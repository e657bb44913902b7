import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get } from '../../http.ts';
import { CARD_FIELDS, recordPaymentToSupplier, suppliersPath, type SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';

let h: Harness;
before(async () => {
  h = await createHarness();
  await h.call('createSupplier', { name: 'Dana Design', phone: '050-1234567', email: 'Dana@Example.com' });
});
after(() => h.close());

const emptyCard = Object.fromEntries(CARD_FIELDS.map((f) => [f, '']));

test("a new supplier's card: every field an empty string, with key, name, kind and no supplier side", async () => {
  assert.deepEqual(await h.call('getSupplierContact', { supplierKey: '+972501234567' }), {
    key: '+972501234567', name: 'Dana Design', phone: '+972501234567', email: 'dana@example.com', kind: 'supplier',
    ...emptyCard,
    supplierSide: null,
  });
});

test('the key is accepted in any accepted phone form', async () => {
  for (const supplierKey of ['050-1234567', '0501234567', '+972 50 123 4567', '+972-50-1234567']) {
    assert.equal((await h.call('getSupplierContact', { supplierKey })).key, '+972501234567', supplierKey);
  }
});

test('an email key is matched case-insensitively', async () => {
  await h.call('createSupplier', { name: 'Mail Only', email: 'mail@example.com' });
  assert.equal((await h.call('getSupplierContact', { supplierKey: 'MAIL@Example.com' })).key, 'mail@example.com');
});

test('an unknown key is not-found; a malformed one is invalid-argument naming supplierKey', async () => {
  await assert.rejects(h.call('getSupplierContact', { supplierKey: '052-0000000' }), { code: 'not-found', message: /\+972520000000/ });
  await assert.rejects(h.call('getSupplierContact', { supplierKey: 'nobody@example.com' }), { code: 'not-found' });
  await assert.rejects(h.call('getSupplierContact', { supplierKey: '12' }), { code: 'invalid-argument', message: /^supplierKey: / });
  await assert.rejects(h.call('getSupplierContact', { supplierKey: 'not an@email' }), { code: 'invalid-argument', message: /^supplierKey: / });
  await assert.rejects(h.call('getSupplierContact', {}), { code: 'invalid-argument', message: /^supplierKey: is required/ });
});

test("a supplier derived from a payment has a card, and shows what the supplier entered on their side", async () => {
  const { store } = h.app.services;
  const b = h.owner.businessId;
  const key = '+972527654321';
  await store.runTransaction(async (tx) => {
    const doc = await tx.get(suppliersPath(b, key));
    recordPaymentToSupplier(tx, b, (doc?.data ?? null) as SupplierRecord | null, { supplierKey: key, supplierName: 'Yossi', supplierPhone: key, supplierEmail: null }, new Date().toISOString());
  });
  assert.equal((await h.call('getSupplierContact', { supplierKey: '052-7654321' })).supplierSide, null);
  // As the supplier link page records a submission (domain/payments/supplierSubmission.ts).
  await store.update(suppliersPath(b, key), {
    supplierSide: { method: 'bank', bankCode: '12', bankBranch: '600', bankAccount: '123456', bankBeneficiary: 'Yossi Cohen', name: 'Yossi Cohen', submittedAt: '2025-05-01T09:00:00.000Z' },
  });
  await h.call('saveSupplierContact', { supplierKey: key, bankAccount: '999999' });
  const c = await h.call('getSupplierContact', { supplierKey: key });
  assert.deepEqual(c.supplierSide, {
    name: 'Yossi Cohen', method: 'bank', bankCode: '12', bankBranch: '600', bankAccount: '123456', bankBeneficiary: 'Yossi Cohen', bitPhone: '',
    iban: '', foreignAccount: '', swift: '', bankName: '', bankCountry: '', beneficiaryAddress: '', submittedAt: '2025-05-01T09:00:00.000Z',
  });
  // The business's own card is separate from what the supplier entered.
  assert.equal(c.bankAccount, '999999');
  assert.equal(c.bankCode, '');
  // A bit submission without a name: the missing fields read as "".
  await store.update(suppliersPath(b, key), { supplierSide: { method: 'bit', bitPhone: '+972527654321', submittedAt: '2025-06-01T09:00:00.000Z' } });
  const bit = (await h.call('getSupplierContact', { supplierKey: key })).supplierSide;
  assert.deepEqual([bit.method, bit.bitPhone, bit.name, bit.bankAccount], ['bit', '+972527654321', '', '']);
});

test('another business with the same supplier key sees its own (empty) card, or not-found', async () => {
  await h.call('saveSupplierContact', { supplierKey: '0501234567', notes: 'pays late', bankAccount: '123456' });
  const other = await h.newBusiness('Other Co');
  await assert.rejects(h.call('getSupplierContact', { supplierKey: '0501234567' }, other), { code: 'not-found' });
  await h.call('createSupplier', { name: 'Dana elsewhere', phone: '+972501234567' }, other);
  const theirs = await h.call('getSupplierContact', { supplierKey: '0501234567' }, other);
  assert.equal(theirs.name, 'Dana elsewhere');
  assert.equal(theirs.notes, '');
  assert.equal(theirs.bankAccount, '');
});

test('over HTTP as GET with a query string', async () => {
  const origin = await h.listen();
  const res = await get(origin, '/v1/getSupplierContact?supplierKey=%2B972501234567', h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.name, 'Dana Design');
  assert.equal(res.body.result.notes, 'pays late');
  assert.equal(res.headers.get('x-doc-writes'), '0');
  const local = await get(origin, '/v1/getSupplierContact?supplierKey=050-1234567', h.owner.apiKey);
  assert.equal(local.body.result.key, '+972501234567');
  const missing = await get(origin, '/v1/getSupplierContact?supplierKey=0520000000', h.owner.apiKey);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'not-found');
});
