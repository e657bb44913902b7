import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeIta, itaEnv, approveConsent, FAKE_CLIENT, type FakeIta } from '../../fakes/ita.ts';
import { itaConsentPath } from '../../../functions/src/domain/invoices/ita.ts';

let h: Harness;
let fake: FakeIta;
before(async () => {
  fake = await startFakeIta(FAKE_CLIENT);
  h = await createHarness({ env: itaEnv(fake) });
});
after(async () => {
  await h.close();
  await fake.close();
});

test('forgets the consent: the tokens are deleted and getBusiness shows it disconnected', async () => {
  const { res } = await approveConsent(h.http, (await h.call('itaConnectStart')).url);
  assert.equal(res.status, 200);
  assert.equal((await h.call('getBusiness')).ita.connected, true);

  assert.deepEqual(await h.call('itaDisconnect'), { connected: false, removed: true });
  assert.equal(await h.app.services.store.get(itaConsentPath(h.owner.businessId)), null);
  assert.deepEqual((await h.call('getBusiness')).ita, { connected: false, expiresAt: null });
  const { items } = await h.call('listActivity');
  const row = items.find((r: any) => r.operation === 'itaDisconnect');
  assert.equal(row.summary, 'disconnected the tax authority');
});

test('when not connected it is not an error: removed is false', async () => {
  assert.deepEqual(await h.call('itaDisconnect'), { connected: false, removed: false });
});

test('touches only the caller business', async () => {
  const other = await h.newBusiness();
  await approveConsent(h.http, (await h.call('itaConnectStart', {}, other)).url);
  assert.deepEqual(await h.call('itaDisconnect'), { connected: false, removed: false });
  assert.equal((await h.call('getBusiness', {}, other)).ita.connected, true);
});

test('is flagged dangerous and idempotent', () => {
  const op = h.registry.get('itaDisconnect')!;
  assert.equal(op.flags.dangerous, true);
  assert.equal(op.flags.idempotent, true);
});
