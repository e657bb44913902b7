import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from '../harness.ts';
import { startSmtp } from '../fakes/smtp.ts';
import { sweepExpired } from '../../functions/src/core/ttlSweep.ts';
import { consumeQuota } from '../../functions/src/core/quota.ts';
import { loadIndexes } from '../../functions/src/adapters/indexCoverage.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('records that only grow get an expiry and the local sweep deletes them once it passes; live records stay', async () => {
  const smtp = await startSmtp();
  let now = Date.now();
  const h = await createHarness({ env: { SMTP_URL: smtp.url, ITA_CLIENT_ID: 'c', ITA_CLIENT_SECRET: 's' }, overrides: { clock: { now: () => now } } });
  cleanups.push(() => smtp.close(), () => h.close());
  const { store } = h.app.services;
  await h.call('itaConnectStart');
  await h.call('inviteMember', { email: 'ttl@example.com', role: 'user' });
  await h.app.queue!.drain(); // delivered: final
  await h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'D', supplierEmail: 'd@example.com' }); // stays pending (not drained)
  await h.app.services.store.runTransaction(async () => undefined);
  const count = async (collection: string, group = false) => (await store.query({ collection, group })).length;
  assert.equal(await count('oauthStates'), 1);
  assert.equal(await count('outbox', true), 2);
  await consumeQuota(store, { emails: 100 }, h.owner.businessId, 'emails', 1, now);
  assert.equal(await count('quotas', true), 2, 'today\'s quota counters (emails, and the messages sent above)');
  assert.equal(await sweepExpired(store, now), 0, 'nothing is due yet');
  now += 100 * 86_400_000;
  const removed = await sweepExpired(store, now);
  assert.ok(removed >= 3, `removed ${removed}`);
  assert.equal(await count('oauthStates'), 0, 'the spent OAuth state is gone');
  assert.equal(await count('quotas', true), 0, 'past days\' quota counters are gone');
  const outbox = (await store.query({ collection: 'outbox', group: true })).map((d) => d.data.status);
  assert.deepEqual(outbox, ['pending'], 'the delivered record is gone, the pending one stays');
  assert.equal((await store.query({ collection: '_tasks', where: [['state', '==', 'done']] })).length, 0, 'finished tasks are gone');
});

test('the TTL policies are declared in firestore.indexes.json for every collection the sweep clears', () => {
  const { fieldOverrides = [] } = loadIndexes();
  for (const cg of ['oauthStates', 'rateLimits', 'quotas', 'outbox']) {
    assert.ok(fieldOverrides.some((o) => o.collectionGroup === cg && o.fieldPath === 'expireAt' && o.ttl === true), cg);
  }
});
