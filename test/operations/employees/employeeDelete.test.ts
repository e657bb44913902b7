import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('deletes the employee; a second delete is not-found', async () => {
  const e = await h.call('employeeCreate', { name: 'Leaving Soon' });
  const keep = await h.call('employeeCreate', { name: 'Staying' });
  assert.deepEqual(await h.call('employeeDelete', { id: e.id }), { id: e.id, name: 'Leaving Soon', deleted: true });
  const ids = (await h.call('employeesList')).items.map((x: any) => x.id);
  assert.deepEqual(ids, [keep.id]);
  await assert.rejects(h.call('employeeDelete', { id: e.id }), { code: 'not-found', message: new RegExp(e.id) });
  const { items } = await h.call('listActivity');
  assert.ok(items.some((r: any) => r.operation === 'employeeDelete' && r.summary === 'deleted employee Leaving Soon'));
});

test('another business cannot delete an employee', async () => {
  const e = await h.call('employeeCreate', { name: 'Protected' });
  const other = await h.newBusiness('Other Co');
  await assert.rejects(h.call('employeeDelete', { id: e.id }, other), { code: 'not-found' });
  assert.ok((await h.call('employeesList')).items.some((x: any) => x.id === e.id));
});

test('an id is required and checked', async () => {
  await assert.rejects(h.call('employeeDelete', {}), { code: 'invalid-argument', message: /^id: / });
  await assert.rejects(h.call('employeeDelete', { id: 'a/b' }), { code: 'invalid-argument', message: /^id: / });
});

test('is flagged dangerous', () => {
  assert.equal(h.registry.get('employeeDelete')!.flags.dangerous, true);
});
