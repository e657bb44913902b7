import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { itaConsentPath } from '../../../functions/src/domain/invoices/ita.ts';

let h: Harness;
before(async () => (h = await createHarness()));
after(() => h.close());

test('getBusiness returns the full profile with defaults, apps, integrations and the caller role', async () => {
  const b = await h.call('getBusiness');
  assert.equal(b.id, h.owner.businessId);
  assert.equal(b.businessName, 'Test Business');
  assert.equal(b.businessType, '');
  assert.deepEqual(b.priceList, []);
  assert.equal(b.role, 'admin');
  assert.equal(b.apps.payments, true);
  assert.equal(b.apps.invoices, true);
  assert.deepEqual(b.integrations, []);
  assert.deepEqual(b.ita, { connected: false, expiresAt: null });
  assert.equal(b.publicLink, null);
});

test('getBusiness shows the tax authority consent expiry, connected only until then, never its tokens', async () => {
  const path = itaConsentPath(h.owner.businessId);
  const later = Date.now() + 60_000;
  const consent = { provider: 'ita', grantId: 'g1', sealed: 'v1.SEALED-TOKENS', accessExpiresAtMs: 0, grantedAt: '', grantedAtMs: 0, grantedBy: h.owner.userId, updatedAt: '' };
  await h.app.services.store.set(path, { ...consent, expiresAt: new Date(later).toISOString(), expiresAtMs: later });
  const b = await h.call('getBusiness');
  assert.deepEqual(b.ita, { connected: true, expiresAt: new Date(later).toISOString() });
  assert.doesNotMatch(JSON.stringify(b), /SEALED-TOKENS/);
  const past = Date.now() - 1;
  await h.app.services.store.set(path, { ...consent, expiresAt: new Date(past).toISOString(), expiresAtMs: past });
  assert.deepEqual((await h.call('getBusiness')).ita, { connected: false, expiresAt: new Date(past).toISOString() });
  await h.app.services.store.delete(path);
});

test('getBusiness shows connected integrations but never their credentials', async () => {
  await h.call('saveBusinessIntegration', { provider: 'greeninvoice', apiKey: 'KEY-123456', apiSecret: 'SECRET-abcdef', note: 'main account' });
  const b = await h.call('getBusiness');
  assert.deepEqual(
    b.integrations.map((i: any) => ({ ...i, connectedAt: undefined, updatedAt: undefined })),
    [{ provider: 'greeninvoice', connected: true, note: 'main account', hasApiKey: true, hasApiSecret: true, connectedAt: undefined, updatedAt: undefined }],
  );
  assert.doesNotMatch(JSON.stringify(b), /KEY-123456|SECRET-abcdef/);
});

test('getBusiness reports the role of the caller', async () => {
  const m = await h.addMember('user');
  assert.equal((await h.call('getBusiness', {}, m)).role, 'user');
});
