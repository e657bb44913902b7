import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';

// Issue 17 item 12: a name given on a new payment names that payment; the supplier keeps its own
// name, which changes only through the supplier operations (saveSupplierContact).
let h: Harness;
before(async () => {
  h = await createHarness();
});
after(() => h.close());

const pay = (biz: TestUser, over: Record<string, unknown>) =>
  h.call('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'Design', channel: 'link', ...over }, biz);
const listed = async (biz: TestUser, key: string) => (await h.call('suppliersList', {}, biz)).items.find((s: any) => s.key === key);
const paymentName = async (biz: TestUser, paymentId: string) => (await h.call('paymentGet', { paymentId }, biz)).supplierName;

test('a second payment to the same phone under another name names that payment only; the supplier stays "דנה לוי"', async () => {
  const biz = await h.newBusiness('Names Co');
  const first = await pay(biz, { supplierPhone: '050-111-2233', supplierName: 'דנה לוי' });
  assert.deepEqual(first.supplier, { key: '+972501112233', name: 'דנה לוי' });

  const second = await pay(biz, { supplierPhone: '0501112233', supplierName: 'Test Phone' });
  // The answer says both names: the payment's, and the one the supplier record kept.
  assert.equal(second.supplierName, 'Test Phone');
  assert.deepEqual(second.supplier, { key: '+972501112233', name: 'דנה לוי' });

  const row = await listed(biz, '+972501112233');
  assert.deepEqual([row.name, row.paymentCount], ['דנה לוי', 2]);
  assert.equal((await h.call('getSupplierContact', { supplierKey: '050-111-2233' }, biz)).name, 'דנה לוי');
  assert.equal(await paymentName(biz, first.id), 'דנה לוי');
  assert.equal(await paymentName(biz, second.id), 'Test Phone');
  const rows = (await h.call('paymentsList', {}, biz)).items.map((p: any) => [p.id, p.supplierName]);
  assert.deepEqual(new Map(rows), new Map([[first.id, 'דנה לוי'], [second.id, 'Test Phone']]));
});

test('the same holds for a supplier known by email, and for a payment moved onto a known supplier', async () => {
  const biz = await h.newBusiness('Mail Names Co');
  await pay(biz, { supplierEmail: 'dana@studio.example', supplierName: 'Dana Studio' });
  const other = await pay(biz, { supplierEmail: 'Dana@Studio.example', supplierName: 'Accounts Payable' });
  assert.deepEqual(other.supplier, { key: 'dana@studio.example', name: 'Dana Studio' });
  assert.equal((await listed(biz, 'dana@studio.example')).name, 'Dana Studio');

  // A payment to someone new, then moved onto the known supplier's email: the supplier is not renamed.
  const moved = await pay(biz, { supplierEmail: 'someone@else.example', supplierName: 'Someone Else' });
  await h.call('updatePaymentSettings', { paymentId: moved.id, supplierEmail: 'dana@studio.example' }, biz);
  assert.equal((await listed(biz, 'dana@studio.example')).name, 'Dana Studio');
  assert.equal(await paymentName(biz, moved.id), 'Someone Else');
});

test("saveSupplierContact renames the supplier; payments keep their own names", async () => {
  const biz = await h.newBusiness('Rename Co');
  const p = await pay(biz, { supplierPhone: '052-333-4444', supplierName: 'דנה' });
  const saved = await h.call('saveSupplierContact', { supplierKey: '0523334444', name: 'דנה לוי עיצובים' }, biz);
  assert.equal(saved.name, 'דנה לוי עיצובים');
  assert.equal((await listed(biz, '+972523334444')).name, 'דנה לוי עיצובים');
  assert.equal(await paymentName(biz, p.id), 'דנה');
  await assert.rejects(h.call('saveSupplierContact', { supplierKey: '0523334444', name: '  ' }, biz), { code: 'invalid-argument', message: /^name/ });
  assert.equal((await listed(biz, '+972523334444')).name, 'דנה לוי עיצובים');
});
