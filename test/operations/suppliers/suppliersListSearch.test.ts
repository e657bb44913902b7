import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { get } from '../../http.ts';

// suppliersList's q: what the new-payment form completes from as the owner types a name, a phone or an email.
let h: Harness;
before(async () => {
  h = await createHarness();
  await h.call('createSupplier', { name: 'דנה עיצוב גרפי', phone: '052-111-0001' });
  await h.call('createSupplier', { name: 'Dana Print', email: 'print@dana.example' });
  await h.call('createSupplier', { name: 'Moshe Builders', phone: '+972 54 777 0002', email: 'office@moshe.example' });
  await h.call('createSupplier', { name: 'Old Moshe', email: 'moshe.old@mail.example' });
});
after(() => h.close());

const keys = async (q: string) => (await h.call('suppliersList', { q })).items.map((s: any) => s.key);

test('q matches word beginnings of the name, in Hebrew and English, case ignored', async () => {
  assert.deepEqual(await keys('dan'), ['print@dana.example']);
  assert.deepEqual(await keys('עיצ'), ['+972521110001']);
  assert.deepEqual(await keys('moshe bu'), ['+972547770002']);
  assert.deepEqual(await keys('moshe'), ['+972547770002', 'moshe.old@mail.example']);
  assert.deepEqual(await keys('zzz'), []);
});

test('q matches a phone as typed (local with 0, spaces, +972) and part of an email', async () => {
  assert.deepEqual(await keys('052-111'), ['+972521110001']);
  assert.deepEqual(await keys('+97254777'), ['+972547770002']);
  assert.deepEqual(await keys('office@mo'), ['+972547770002']);
  assert.deepEqual(await keys('0'), []);
});

test('exact names the supplier a full phone or email belongs to, a merged one included; no q, no exact', async () => {
  assert.equal((await h.call('suppliersList', { q: '0521110001' })).exact, '+972521110001');
  assert.equal((await h.call('suppliersList', { q: 'OFFICE@moshe.example' })).exact, '+972547770002');
  assert.equal((await h.call('suppliersList', { q: '052-111' })).exact, null);
  assert.equal('exact' in (await h.call('suppliersList')), false);
  await h.call('supplierMerge', { from: 'moshe.old@mail.example', into: '0547770002' });
  const merged = await h.call('suppliersList', { q: 'moshe.old@mail.example' });
  assert.equal(merged.exact, '+972547770002');
  assert.deepEqual(merged.items.map((s: any) => s.name), ['Moshe Builders']);
});

test('over HTTP as GET with q', async () => {
  const origin = await h.listen();
  const res = await get(origin, `/v1/suppliersList?q=${encodeURIComponent('דנה')}`, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.result.items.map((s: any) => s.key), ['+972521110001']);
  const bad = await get(origin, `/v1/suppliersList?q=${'x'.repeat(121)}`, h.owner.apiKey);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^q: /);
});
