import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { recordPaymentToSupplier, suppliersPath, type SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('a phone becomes the key, normalised to E.164; the supplier is manual with no payments', async () => {
  const s = await h.call('createSupplier', { name: 'Dana Design', phone: '050-1234567' });
  assert.deepEqual(s, { key: '+972501234567', name: 'Dana Design', phone: '+972501234567', email: null, kind: 'supplier', manual: true, paymentCount: 0, lastPaymentAt: null });
});

test('with both contacts the phone is the key; with an email only the lower-cased email is', async () => {
  const both = await h.call('createSupplier', { name: 'Both', phone: '+972 52-765-4321', email: 'Both@Example.COM', kind: 'freelancer' });
  assert.equal(both.key, '+972527654321');
  assert.equal(both.email, 'both@example.com');
  assert.equal(both.kind, 'freelancer');
  const mail = await h.call('createSupplier', { name: 'Mail Only', email: ' Mail.Only@Example.com ', phone: '' });
  assert.equal(mail.key, 'mail.only@example.com');
  assert.equal(mail.phone, null);
});

test('a phone or an email is required', async () => {
  await assert.rejects(h.call('createSupplier', { name: 'Nobody' }), { code: 'invalid-argument', message: /^phone: a phone or an email is required/ });
  await assert.rejects(h.call('createSupplier', { name: 'Nobody', phone: '', email: '  ' }), { code: 'invalid-argument', message: /^phone: / });
});

test('invalid contacts and names are refused naming the field', async () => {
  await assert.rejects(h.call('createSupplier', { name: 'X', phone: '050-12' }), { code: 'invalid-argument', message: /^phone: "050-12" is not a valid phone/ });
  await assert.rejects(h.call('createSupplier', { name: 'X', email: 'not-an-email' }), { code: 'invalid-argument', message: /^email: / });
  await assert.rejects(h.call('createSupplier', { phone: '0541111111' }), { code: 'invalid-argument', message: /^name: is required/ });
  await assert.rejects(h.call('createSupplier', { name: '   ', phone: '0541111111' }), { code: 'invalid-argument', message: /^name: must not be empty/ });
  await assert.rejects(h.call('createSupplier', { name: 'X', phone: '0541111111', kind: 'vendor' }), { code: 'invalid-argument', message: /^kind: / });
});

test('a duplicate key, in any accepted form, is already-exists and changes nothing', async () => {
  for (const phone of ['0501234567', '+972-50-123-4567', '+972501234567']) {
    await assert.rejects(h.call('createSupplier', { name: 'Other', phone }), { code: 'already-exists', message: /\+972501234567/ });
  }
  await assert.rejects(h.call('createSupplier', { name: 'Other', email: 'MAIL.ONLY@example.com' }), { code: 'already-exists' });
  const list = await h.call('suppliersList');
  assert.equal(list.items.find((s: any) => s.key === '+972501234567').name, 'Dana Design');
});

test('a supplier already known from a payment is already-exists', async () => {
  const { store } = h.app.services;
  await store.runTransaction(async (tx) => {
    const existing = await tx.get(suppliersPath(h.owner.businessId, '+972549999999'));
    recordPaymentToSupplier(tx, h.owner.businessId, (existing?.data ?? null) as SupplierRecord | null, { supplierKey: '+972549999999', supplierName: 'Paid Before', supplierPhone: '+972549999999', supplierEmail: null }, new Date().toISOString());
  });
  await assert.rejects(h.call('createSupplier', { name: 'Again', phone: '054-9999999' }), { code: 'already-exists' });
});

test('the same key in another business is a separate supplier', async () => {
  const other = await h.newBusiness('Other Co');
  const s = await h.call('createSupplier', { name: 'Dana at Other', phone: '0501234567' }, other);
  assert.equal(s.key, '+972501234567');
  assert.equal((await h.call('suppliersList', {}, other)).total, 1);
});

test('two parallel creations of one key: exactly one succeeds', async () => {
  const results = await Promise.allSettled([1, 2, 3].map((i) => h.call('createSupplier', { name: `Racer ${i}`, phone: '053-5555555' })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  for (const r of results) if (r.status === 'rejected') assert.equal(r.reason.code, 'already-exists');
});

test('writes one activity row naming the key', async () => {
  await h.call('createSupplier', { name: 'Logged', email: 'logged@example.com' });
  const { items } = await h.call('listActivity');
  const row = items.find((r: any) => r.operation === 'createSupplier' && r.targetIds[0] === 'logged@example.com');
  assert.ok(row);
  assert.equal(row.summary, 'created supplier Logged');
});

test('over HTTP with the API key', async () => {
  const origin = await h.listen();
  const res = await post(origin, '/v1/createSupplier', { name: 'Over HTTP', phone: '058-1212121' }, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.key, '+972581212121');
  const dup = await post(origin, '/v1/createSupplier', { name: 'Over HTTP', phone: '+972581212121' }, h.owner.apiKey);
  assert.equal(dup.status, 409);
  assert.equal(dup.body.error.code, 'already-exists');
});
