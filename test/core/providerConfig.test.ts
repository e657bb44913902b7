import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../functions/src/config.ts';

test('provider time limits: 20 s by default, PROVIDER_TIMEOUT_MS for all, <NAME>_TIMEOUT_MS for one; garbage is ignored', () => {
  const d = loadConfig({});
  assert.deepEqual(d.providerTimeoutMs, { usbank: 20_000, fxwallet: 20_000, gateway: 20_000, cardproc: 20_000, market: 20_000, chat: 20_000, mailbox: 20_000, whatsapp: 20_000 });
  assert.equal(d.itaTimeoutMs, 20_000);
  const c = loadConfig({ PROVIDER_TIMEOUT_MS: '9000', USBANK_TIMEOUT_MS: '1500', ITA_TIMEOUT_MS: '4000', FXWALLET_TIMEOUT_MS: 'soon', GATEWAY_TIMEOUT_MS: '-5' });
  assert.equal(c.providerTimeoutMs.usbank, 1500);
  assert.equal(c.providerTimeoutMs.fxwallet, 9000);
  assert.equal(c.providerTimeoutMs.gateway, 9000);
  assert.equal(c.providerTimeoutMs.mailbox, 9000);
  assert.equal(c.providerTimeoutMs.whatsapp, 9000);
  assert.equal(loadConfig({ WHATSAPP_TIMEOUT_MS: '700' }).providerTimeoutMs.whatsapp, 700);
  assert.equal(c.itaTimeoutMs, 4000);
});

test('the Wise sandbox is the host Wise\'s current docs name', () => {
  assert.equal(loadConfig({}).fxwalletSandboxBaseUrl, 'https://api.wise-sandbox.com');
});
