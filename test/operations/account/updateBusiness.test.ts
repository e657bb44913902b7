import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('only the fields sent change', async () => {
  await h.call('updateBusiness', { city: 'Tel Aviv', businessType: 'murshe' });
  await h.call('updateBusiness', { street: 'Herzl 1' });
  const b = await h.call('getBusiness');
  assert.equal(b.city, 'Tel Aviv');
  assert.equal(b.businessType, 'murshe');
  assert.equal(b.street, 'Herzl 1');
  assert.equal(b.businessName, 'Test Business');
});

test('priceList items need both title and amountAgorot', async () => {
  await assert.rejects(h.call('updateBusiness', { priceList: [{ title: 'Consulting hour' }] }), { code: 'invalid-argument', message: /priceList\.0\.amountAgorot: is required/ });
  await assert.rejects(h.call('updateBusiness', { priceList: [{ amountAgorot: 100 }] }), { code: 'invalid-argument', message: /priceList\.0\.title/ });
  await assert.rejects(h.call('updateBusiness', { priceList: [{ title: 'x', amountAgorot: 10.5 }] }), { message: /priceList\.0\.amountAgorot: expected an integer/ });
  await h.call('updateBusiness', { priceList: [{ title: 'Consulting hour', amountAgorot: 45000 }] });
  assert.deepEqual((await h.call('getBusiness')).priceList, [{ title: 'Consulting hour', amountAgorot: 45000 }]);
});

test('a refused update changes nothing', async () => {
  const before = await h.call('getBusiness');
  await assert.rejects(h.call('updateBusiness', { city: 'Eilat', businessType: 'llc' }), { code: 'invalid-argument', message: /businessType/ });
  assert.equal((await h.call('getBusiness')).city, before.city);
});

test('the notification flags and doc fields round-trip', async () => {
  await h.call('updateBusiness', { notifyUploadWhatsApp: false, notifyLateInvoiceEmail: false, docCustomFields: [{ label: 'VAT file', value: '123' }], myName: 'Dana', myNameEn: 'Dana' });
  const b = await h.call('getBusiness');
  assert.equal(b.notifyUploadWhatsApp, false);
  assert.equal(b.notifyLateInvoiceEmail, false);
  assert.deepEqual(b.docCustomFields, [{ label: 'VAT file', value: '123' }]);
  assert.equal(b.myName, 'Dana');
});

test('the update is in the activity log with the fields named', async () => {
  await h.call('updateBusiness', { zip: '6100000' });
  const { items } = await h.call('listActivity');
  assert.equal(items[0].operation, 'updateBusiness');
  assert.match(items[0].summary, /zip/);
});
