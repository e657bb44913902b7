import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { unseal } from '../../../functions/src/core/secrets.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

const path = (provider: string) => `businesses/${h.owner.businessId}/integrations/${provider}`;

test('stores credentials encrypted and never returns them', async () => {
  const res = await h.call('saveBusinessIntegration', { provider: 'icount', apiKey: 'ak-live-999', apiSecret: 'sk-live-888' });
  assert.deepEqual(res, { provider: 'icount', connected: true, note: '', hasApiKey: true, hasApiSecret: true });
  const doc = await h.app.services.store.get(path('icount'));
  assert.doesNotMatch(JSON.stringify(doc!.data), /ak-live-999|sk-live-888/);
  assert.deepEqual(unseal(String(doc!.data.sealed), h.app.services.config.credentialsKey), { apiKey: 'ak-live-999', apiSecret: 'sk-live-888' });
  const log = await h.call('listActivity');
  assert.doesNotMatch(JSON.stringify(log), /ak-live-999|sk-live-888/);
});

test('a later save may change the note or one credential and keeps the rest', async () => {
  await h.call('saveBusinessIntegration', { provider: 'icount', note: 'books' });
  const doc = await h.app.services.store.get(path('icount'));
  assert.deepEqual(unseal(String(doc!.data.sealed), h.app.services.config.credentialsKey), { apiKey: 'ak-live-999', apiSecret: 'sk-live-888' });
  assert.equal(doc!.data.note, 'books');
});

test('connecting a new provider needs apiKey', async () => {
  await assert.rejects(h.call('saveBusinessIntegration', { provider: 'morning', note: 'x' }), { code: 'invalid-argument', message: /^apiKey: is required/ });
});

test('disconnect removes the credentials', async () => {
  const res = await h.call('saveBusinessIntegration', { provider: 'icount', action: 'disconnect' });
  assert.equal(res.connected, false);
  assert.equal(await h.app.services.store.get(path('icount')), null);
  assert.deepEqual((await h.call('getBusiness')).integrations, []);
  await assert.rejects(h.call('saveBusinessIntegration', { provider: 'icount', action: 'disconnect' }), { code: 'not-found' });
});

test('is admin only', async () => {
  const m = await h.addMember('user');
  await assert.rejects(h.call('saveBusinessIntegration', { provider: 'icount', apiKey: 'k' }, m), { code: 'permission-denied' });
});
