import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('an empty list, then every employee sorted by name with all the spec fields', async () => {
  assert.deepEqual(await h.call('employeesList'), { items: [], total: 0 });
  await h.call('employeeCreate', { name: 'Zohar', title: 'Driver' });
  await h.call('employeeCreate', { name: 'Avi', email: 'AVI@example.com', phone: '0541234567', status: 'inactive' });
  const { items, total } = await h.call('employeesList');
  assert.equal(total, 2);
  assert.deepEqual(items.map((e: any) => e.name), ['Avi', 'Zohar']);
  const avi = items[0];
  for (const k of ['id', 'name', 'email', 'phone', 'title', 'status', 'source']) assert.ok(k in avi, k);
  assert.deepEqual([avi.email, avi.phone, avi.status, avi.source], ['avi@example.com', '+972541234567', 'inactive', 'manual']);
});

test('refuses unknown input fields', async () => {
  await assert.rejects(h.call('employeesList', { status: 'active' }), { code: 'invalid-argument' });
});

test("lists only the caller's business", async () => {
  const other = await h.newBusiness('Other Co');
  assert.deepEqual(await h.call('employeesList', {}, other), { items: [], total: 0 });
});

test('is read-only', () => {
  assert.equal(h.registry.get('employeesList')!.flags.readOnly, true);
});
