import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('switches an app off and on', async () => {
  assert.equal((await h.call('setBusinessApp', { app: 'software', enabled: false })).apps.software, false);
  assert.equal((await h.call('getBusiness')).apps.software, false);
  assert.equal((await h.call('setBusinessApp', { app: 'software', enabled: true })).apps.software, true);
});

test('the payments app requires the invoices app, both ways', async () => {
  await assert.rejects(h.call('setBusinessApp', { app: 'invoices', enabled: false }), { code: 'failed-precondition', message: /payments app requires the invoices app/ });
  await h.call('setBusinessApp', { app: 'payments', enabled: false });
  await h.call('setBusinessApp', { app: 'invoices', enabled: false });
  await assert.rejects(h.call('setBusinessApp', { app: 'payments', enabled: true }), { code: 'failed-precondition', message: /enable invoices first/ });
  const apps = (await h.call('getBusiness')).apps;
  assert.equal(apps.payments, false);
  assert.equal(apps.invoices, false);
});

test('is admin only', async () => {
  const m = await h.addMember('user');
  await assert.rejects(h.call('setBusinessApp', { app: 'software', enabled: false }, m), { code: 'permission-denied' });
});
