import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { mercuryUuid, startFakeMercury, type FakeMercury } from '../../fakes/mercury.ts';
import { startFakeWise, type FakeWise } from '../../fakes/wise.ts';
import { startFakeCardcom, type FakeCardcom } from '../../fakes/cardcom.ts';
import { addMonths, currentMonth } from '../../../functions/src/domain/months.ts';

// Issue 18 A3: a provider's refusal (4xx) is a failed connect/sync with the provider's own message; only network
// failures, timeouts and 5xx are `unavailable`. Issue 20 item 8: credentials with characters no provider issues are
// refused naming the field, before any provider is called.

let h: Harness;
let origin: string;
let mercury: FakeMercury;
let wise: FakeWise;
let cardcom: FakeCardcom;
const TOKEN = 'secret-token:mercury_production_refusals';
const ACC = mercuryUuid('refusals-checking');
const last = addMonths(currentMonth(Date.now()), -1);

before(async () => {
  mercury = await startFakeMercury();
  mercury.tokens.add(TOKEN);
  mercury.accounts.push({ id: ACC, name: 'Checking', status: 'active', kind: 'checking' });
  mercury.statements.set(ACC, new Map([[last, Buffer.from('%PDF-1.4 last')]]));
  wise = await startFakeWise();
  cardcom = await startFakeCardcom();
  h = await createHarness({ env: { USBANK_BASE_URL: mercury.baseUrl, FXWALLET_BASE_URL: wise.baseUrl, GATEWAY_BASE_URL: cardcom.baseUrl } });
  origin = await h.listen();
});
after(async () => {
  await h.close();
  await Promise.all([mercury.close(), wise.close(), cardcom.close()]);
});

test('Mercury refusing a request at connect is failed-precondition with Mercury\'s message, not "could not be reached"', async () => {
  mercury.failNext(1, 400, 'Invalid `start`: expected YYYY-MM-DD');
  await assert.rejects(h.call('usbankConnect', { token: TOKEN }), (e: any) => e.code === 'failed-precondition' && /Mercury refused/.test(e.message) && /Invalid `start`/.test(e.message) && !/reached/.test(e.message));
  assert.deepEqual((await h.call('usbankListAccounts')).accounts, []);
});

test('Mercury answering 5xx at connect is unavailable, naming the status; nothing is stored', async () => {
  mercury.failNext(1, 502);
  await assert.rejects(h.call('usbankConnect', { token: TOKEN }), (e: any) => e.code === 'unavailable' && /Mercury answered 502/.test(e.message));
  assert.deepEqual((await h.call('usbankListAccounts')).accounts, []);
});

test('a sync Mercury refuses fails at once with Mercury\'s message; a 5xx stays pending for a retry', async () => {
  const { accounts } = await h.call('usbankConnect', { token: TOKEN });
  const acc = accounts[0];

  mercury.failNext(1, 400, 'The range between `start` and `end` cannot exceed 3 months');
  await h.call('usbankSync', { accountId: acc.id, month: last });
  await h.app.queue!.drain();
  const refused = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acc.id);
  assert.equal(refused.status, 'failed');
  assert.match(refused.reason, /Mercury refused .*cannot exceed 3 months/);

  mercury.failNext(1, 503);
  await h.call('usbankSync', { accountId: acc.id, month: last });
  await h.app.queue!.drain();
  const transient = (await h.call('statementsList')).statements.find((s: any) => s.accountId === acc.id);
  assert.equal(transient.status, 'pending');
  const task = (await h.app.services.store.query({ collection: '_tasks', where: [['state', '==', 'queued']] })).find((d) => d.data.queue === 'statementSync');
  assert.match(String(task?.data.lastError), /Mercury answered 503/);
});

test('tokens with non-Latin or control characters are 400 naming the field; the provider is never called', async () => {
  const before = { mercury: mercury.requests.length, wise: wise.requests.length, cardcom: cardcom.requests.length };
  const cases: [string, Record<string, unknown>, string][] = [
    ['usbankConnect', { token: 'secret-token:מפתח' }, 'token'],
    ['usbankConnect', { token: 'secret\u0000token' }, 'token'],
    ['fxwalletConnect', { token: 'abc\u0007def' }, 'token'],
    ['fxwalletConnect', { token: 'токен-123' }, 'token'],
    ['cardprocConnect', { apiKey: 'rk_test_51מפתח' }, 'apiKey'],
    ['gatewayConnect', { username: 'api\nuser', password: 'p', sandbox: false }, 'username'],
    ['gatewayConnect', { username: 'api', password: 'p\u0000', sandbox: false }, 'password'],
  ];
  for (const [op, body, field] of cases) {
    const r = await post(origin, `/v1/${op}`, body, h.owner.apiKey);
    assert.equal(r.status, 400, `${op} ${JSON.stringify(body)}`);
    assert.equal(r.body.error.code, 'invalid-argument');
    assert.match(r.body.error.message, new RegExp(`^${field}:`));
    assert.doesNotMatch(r.body.error.message, /ByteString|TypeError|at /);
  }
  assert.deepEqual({ mercury: mercury.requests.length, wise: wise.requests.length, cardcom: cardcom.requests.length }, before);
});
