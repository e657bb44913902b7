import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

const full = () => h.call('employeeCreate', { name: 'Noa Cohen', email: 'noa@example.com', phone: '052-765-4321', title: 'Designer', status: 'inactive' });

test('replaces the whole record: every field sent is stored, normalised', async () => {
  const e = await full();
  const u = await h.call('employeeUpdate', { id: e.id, name: 'Noa Cohen-Levi', email: 'NOA.CL@Example.com', phone: '+972 3 555 1234', title: 'Art director', status: 'active' });
  assert.deepEqual(
    { name: u.name, email: u.email, phone: u.phone, title: u.title, status: u.status, source: u.source, createdAt: u.createdAt },
    { name: 'Noa Cohen-Levi', email: 'noa.cl@example.com', phone: '+97235551234', title: 'Art director', status: 'active', source: 'manual', createdAt: e.createdAt },
  );
  const listed = (await h.call('employeesList')).items.find((x: any) => x.id === e.id);
  assert.deepEqual(listed, u);
});

test('a field left out is cleared, not kept', async () => {
  const e = await full();
  const u = await h.call('employeeUpdate', { id: e.id, name: 'Noa Only' });
  assert.equal(u.email, null);
  assert.equal(u.phone, null);
  assert.equal(u.title, null);
  // status left out falls back to its default (active), not the stored inactive.
  assert.equal(u.status, 'active');
  const listed = (await h.call('employeesList')).items.find((x: any) => x.id === e.id);
  assert.deepEqual([listed.name, listed.email, listed.phone, listed.title], ['Noa Only', null, null, null]);
});

test('bad input names the field and changes nothing', async () => {
  const e = await full();
  await assert.rejects(h.call('employeeUpdate', { id: e.id, email: 'x@example.com' }), { code: 'invalid-argument', message: /^name: / });
  await assert.rejects(h.call('employeeUpdate', { id: e.id, name: 'N', phone: '12' }), { code: 'invalid-argument', message: /^phone: / });
  await assert.rejects(h.call('employeeUpdate', { id: e.id, name: 'N', status: 'gone' }), { code: 'invalid-argument', message: /^status: / });
  await assert.rejects(h.call('employeeUpdate', { name: 'N' }), { code: 'invalid-argument', message: /^id: / });
  const listed = (await h.call('employeesList')).items.find((x: any) => x.id === e.id);
  assert.deepEqual(listed, e);
});

test('an unknown id is not-found', async () => {
  await assert.rejects(h.call('employeeUpdate', { id: 'nope', name: 'X' }), { code: 'not-found', message: /nope/ });
  await assert.rejects(h.call('employeeUpdate', { id: '../x', name: 'X' }), { code: 'invalid-argument', message: /^id: / });
});

test("another business cannot change an employee: not-found, and the record stays", async () => {
  const e = await full();
  const other = await h.newBusiness('Other Co');
  await assert.rejects(h.call('employeeUpdate', { id: e.id, name: 'Hijacked' }, other), { code: 'not-found' });
  assert.equal((await h.call('employeesList', {}, other)).total, 0);
  const listed = (await h.call('employeesList')).items.find((x: any) => x.id === e.id);
  assert.equal(listed.name, 'Noa Cohen');
});

test('writes an activity row', async () => {
  const e = await full();
  await h.call('employeeUpdate', { id: e.id, name: 'Renamed Person' });
  const { items } = await h.call('listActivity');
  assert.ok(items.some((r: any) => r.operation === 'employeeUpdate' && r.targetIds[0] === e.id && r.summary === 'updated employee Renamed Person'));
});
