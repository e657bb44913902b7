import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { recordPaymentToSupplier, suppliersPath, type SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';

let h: Harness;
const KEY = '+972501234567';
before(async () => {
  h = await createHarness();
  await h.call('createSupplier', { name: 'Dana Design', phone: '050-1234567' });
});
after(() => h.close());

test('only the fields sent change; the result is the whole card', async () => {
  const first = await h.call('saveSupplierContact', { supplierKey: KEY, fullName: 'Dana Levi', companyName: 'Dana Design Ltd', address: 'Herzl 1' });
  assert.equal(first.fullName, 'Dana Levi');
  assert.equal(first.notes, '');
  await h.call('saveSupplierContact', { supplierKey: '050-1234567', notes: 'prefers bit', addressCity: 'Haifa' });
  const c = await h.call('getSupplierContact', { supplierKey: KEY });
  assert.equal(c.fullName, 'Dana Levi');
  assert.equal(c.companyName, 'Dana Design Ltd');
  assert.equal(c.address, 'Herzl 1');
  assert.equal(c.addressCity, 'Haifa');
  assert.equal(c.notes, 'prefers bit');
  assert.equal(c.kind, 'supplier');
  assert.equal(c.name, 'Dana Design');
});

test('an empty string clears a field', async () => {
  const c = await h.call('saveSupplierContact', { supplierKey: KEY, address: '' });
  assert.equal(c.address, '');
  assert.equal(c.fullName, 'Dana Levi');
});

test('phones are normalised to E.164 and emails lower-cased', async () => {
  const c = await h.call('saveSupplierContact', { supplierKey: KEY, phone2: '052-7654321', bitPhone: '+972 54 111 2222', personalEmail: ' Dana@Gmail.COM ', companyEmail: 'Office@Dana.co.il' });
  assert.equal(c.phone2, '+972527654321');
  assert.equal(c.bitPhone, '+972541112222');
  assert.equal(c.personalEmail, 'dana@gmail.com');
  assert.equal(c.companyEmail, 'office@dana.co.il');
});

test('invalid phones and emails are refused naming the field, and nothing changes', async () => {
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, notes: 'changed', phone2: '12345' }), { code: 'invalid-argument', message: /^phone2: / });
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, bitPhone: '050-12' }), { code: 'invalid-argument', message: /^bitPhone: / });
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, personalEmail: 'nope' }), { code: 'invalid-argument', message: /^personalEmail: / });
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, companyEmail: 'a@' }), { code: 'invalid-argument', message: /^companyEmail: / });
  assert.equal((await h.call('getSupplierContact', { supplierKey: KEY })).notes, 'prefers bit');
});

test('bank numbers: digits only, code 2, branch up to 3, account 2 to 9; spaces and hyphens dropped', async () => {
  const c = await h.call('saveSupplierContact', { supplierKey: KEY, bankCode: '12', bankBranch: '60', bankAccount: '12-345 678', bankBeneficiary: 'Dana Levi' });
  assert.deepEqual([c.bankCode, c.bankBranch, c.bankAccount, c.bankBeneficiary], ['12', '60', '12345678', 'Dana Levi']);
  const bad: [string, string][] = [
    ['bankCode', '1'], ['bankCode', '123'], ['bankCode', 'ab'],
    ['bankBranch', '1234'], ['bankBranch', '6a0'],
    ['bankAccount', '1234567890'], ['bankAccount', '1'], ['bankAccount', '12.34'],
  ];
  for (const [field, value] of bad) {
    await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, [field]: value }), { code: 'invalid-argument', message: new RegExp(`^${field}: `) }, `${field}=${value}`);
  }
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, bankCode: 12 }), { code: 'invalid-argument', message: /^bankCode: expected string/ });
});

test('kind can change, and other input is validated', async () => {
  assert.equal((await h.call('saveSupplierContact', { supplierKey: KEY, kind: 'freelancer' })).kind, 'freelancer');
  assert.equal((await h.call('getSupplierContact', { supplierKey: KEY })).fullName, 'Dana Levi');
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, kind: 'employee' }), { code: 'invalid-argument', message: /^kind: / });
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, nickname: 'D' }), { code: 'invalid-argument', message: /^nickname: unknown field/ });
  await assert.rejects(h.call('saveSupplierContact', { notes: 'x' }), { code: 'invalid-argument', message: /^supplierKey: is required/ });
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, notes: 'x'.repeat(2001) }), { code: 'invalid-argument', message: /^notes: at most 2000 characters/ });
});

test('an unknown supplier is not-found and no supplier is created', async () => {
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: '053-0000000', notes: 'x' }), { code: 'not-found' });
  assert.equal((await h.call('suppliersList')).items.some((s: any) => s.key === '+972530000000'), false);
});

test("the card is private: another business with the same supplier key neither sees nor changes it", async () => {
  const other = await h.newBusiness('Other Co');
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, notes: 'theirs' }, other), { code: 'not-found' });
  await h.call('createSupplier', { name: 'Dana for Other', phone: KEY }, other);
  const theirs = await h.call('saveSupplierContact', { supplierKey: KEY, notes: 'theirs' }, other);
  assert.equal(theirs.fullName, '');
  assert.equal(theirs.bankAccount, '');
  assert.equal(theirs.kind, 'supplier');
  const mine = await h.call('getSupplierContact', { supplierKey: KEY });
  assert.equal(mine.notes, 'prefers bit');
  assert.equal(mine.bankAccount, '12345678');
});

test('a later payment to the supplier keeps the card', async () => {
  const b = h.owner.businessId;
  await h.app.services.store.runTransaction(async (tx) => {
    const doc = await tx.get(suppliersPath(b, KEY));
    recordPaymentToSupplier(tx, b, (doc?.data ?? null) as SupplierRecord | null, { supplierKey: KEY, supplierName: 'Dana Design', supplierPhone: KEY, supplierEmail: null }, new Date().toISOString());
  });
  const c = await h.call('getSupplierContact', { supplierKey: KEY });
  assert.equal(c.fullName, 'Dana Levi');
  assert.equal(c.kind, 'freelancer');
  assert.equal((await h.call('suppliersList')).items.find((s: any) => s.key === KEY).paymentCount, 1);
});

test('the activity row names the key and the fields, never their values', async () => {
  await h.call('saveSupplierContact', { supplierKey: KEY, bankAccount: '7654321', bankBeneficiary: 'Secret Name' });
  const { items } = await h.call('listActivity');
  const row = items.find((r: any) => r.operation === 'saveSupplierContact');
  assert.deepEqual(row.targetIds, [KEY]);
  assert.match(row.summary, /bankAccount, bankBeneficiary/);
  assert.doesNotMatch(JSON.stringify(items), /7654321|Secret Name|12345678/);
});

test('over HTTP as POST', async () => {
  const origin = await h.listen();
  const res = await post(origin, '/v1/saveSupplierContact', { supplierKey: '050-1234567', companyId: '515151515' }, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.companyId, '515151515');
  const bad = await post(origin, '/v1/saveSupplierContact', { supplierKey: KEY, phone2: 'call me' }, h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^phone2: /);
  assert.equal(bad.headers.get('x-doc-writes'), '0');
});

test('the card says whether the supplier is an exempt dealer (businessType), in the profile\'s words only', async () => {
  assert.equal((await h.call('saveSupplierContact', { supplierKey: KEY, businessType: 'patur' })).businessType, 'patur');
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: KEY, businessType: 'exempt' }), { code: 'invalid-argument', message: /^businessType/ });
  assert.equal((await h.call('getSupplierContact', { supplierKey: KEY })).businessType, 'patur');
  assert.equal((await h.call('saveSupplierContact', { supplierKey: KEY, businessType: '' })).businessType, '', '"" clears');
});
