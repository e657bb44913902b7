import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('whoami names the business, the user, the key and the role', async () => {
  const me = await h.call('whoami');
  assert.deepEqual(me, { businessId: h.owner.businessId, businessName: 'Test Business', userId: h.owner.userId, email: h.owner.email, keyName: 'test key', role: 'admin' });
});

test('whoami of a user-role member says user', async () => {
  const m = await h.addMember('user');
  assert.equal((await h.call('whoami', {}, m)).role, 'user');
});

test('whoami writes no activity row (read-only)', async () => {
  await h.call('whoami');
  const { items } = await h.call('listActivity');
  assert.equal(items.filter((r: any) => r.operation === 'whoami').length, 0);
});
