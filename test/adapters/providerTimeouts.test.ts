import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHarness, type Harness } from '../harness.ts';
import { MarketError, MarketSession } from '../../functions/src/adapters/market/upwork.ts';
import { slackClient, SlackError } from '../../functions/src/adapters/chat/slackClient.ts';
import { MailboxError, openSession } from '../../functions/src/adapters/mailbox/gmail.ts';

// Issue 20 item 4: every provider call has a time limit. A provider that accepts the connection and never answers
// fails the call with a clear `unavailable` error once the (here shortened) limit passes. No wall-clock assertion:
// the test only shows that the call ends, how, and that the provider was asked.

let hang: Server;
let base: string;
let seen = 0;
let h: Harness;
const LIMIT = 150;

before(async () => {
  hang = createServer(() => {}); // accepts, never answers
  // Counted at the connection: on a loaded machine the client may give up before the request is parsed.
  hang.on('connection', () => seen++);
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
  h = await createHarness({
    env: {
      USBANK_BASE_URL: `${base}/api/v1`,
      FXWALLET_BASE_URL: base,
      GATEWAY_BASE_URL: `${base}/api/v11`,
      CARDPROC_BASE_URL: base,
      USBANK_TIMEOUT_MS: String(LIMIT),
      FXWALLET_TIMEOUT_MS: String(LIMIT),
      GATEWAY_TIMEOUT_MS: String(LIMIT),
      CARDPROC_TIMEOUT_MS: String(LIMIT),
    },
  });
});
after(async () => {
  await h.close();
  hang.closeAllConnections();
  await new Promise<void>((r) => hang.close(() => r()));
});

test('usbankConnect against a Mercury that never answers fails with unavailable naming the time limit; nothing stored', async () => {
  const asked = seen;
  await assert.rejects(h.call('usbankConnect', { token: 'secret-token:never-answered' }), (e: any) => e.code === 'unavailable' && /Mercury did not answer within 0\.2 s/.test(e.message));
  for (let i = 0; i < 100 && seen <= asked; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(seen > asked, 'Mercury was asked');
  assert.deepEqual((await h.call('usbankListAccounts')).accounts, []);
});

test('the other statement sources end the same way: Wise, Cardcom, Stripe', async () => {
  await assert.rejects(h.call('fxwalletConnect', { token: 'wise-never-answered' }), (e: any) => e.code === 'unavailable' && /Wise did not answer within/.test(e.message));
  await assert.rejects(h.call('gatewayConnect', { username: 'u', password: 'p', sandbox: false }), (e: any) => e.code === 'unavailable' && /Cardcom did not answer within/.test(e.message));
  await assert.rejects(h.call('cardprocConnect', { apiKey: 'rk_test_51NeverAnswered' }), (e: any) => e.code === 'unavailable' && /Stripe could not be reached or did not answer in time/.test(e.message));
});

test('Upwork, Slack and Gmail calls end too, each as its own client\'s unavailable', async () => {
  const session = new MarketSession(
    { clientId: 'c', clientSecret: 's', authUrl: `${base}/auth`, tokenUrl: `${base}/token`, baseUrl: `${base}/graphql`, timeoutMs: LIMIT },
    { accessToken: 'a', refreshToken: 'r', expiresAt: String(Date.now() + 3_600_000) },
    { nowMs: () => Date.now() },
  );
  await assert.rejects(session.query('query { companySelector { items { organizationId } } }'), (e: any) => e instanceof MarketError && e.failure === 'unavailable' && /Upwork did not answer within/.test(e.message));

  const slack = slackClient({ authUrl: `${base}/oauth`, baseUrl: `${base}/api/`, clientId: 'c', clientSecret: 's', timeoutMs: LIMIT });
  await assert.rejects(slack.authTest('xoxb-never-answered'), (e: any) => e instanceof SlackError && e.failure === 'unavailable');

  const gmail = await openSession({ clientId: 'c', clientSecret: 's', authUrl: `${base}/auth`, tokenUrl: `${base}/token`, baseUrl: base, timeoutMs: LIMIT }, 'refresh-token');
  await assert.rejects(gmail.profileEmail(), (e: any) => e instanceof MailboxError && e.failure === 'unavailable');
});

test('Gmail\u2019s per-mail calls (node:http) end at the time limit, and a dropped connection is unavailable too', async () => {
  // The token endpoint answers; the API never does, or drops the connection.
  const api = createServer((req, res) => {
    if (req.url === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'at', expires_in: 3600, token_type: 'Bearer' }));
    } else if (req.url?.includes('/attachments/')) req.socket.destroy();
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  const at = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  try {
    const gmail = await openSession({ clientId: 'c', clientSecret: 's', authUrl: `${at}/auth`, tokenUrl: `${at}/token`, baseUrl: at, timeoutMs: LIMIT }, 'refresh-token');
    const t = performance.now();
    await assert.rejects(gmail.getMessage('m1', 'full'), (e: any) => e instanceof MailboxError && e.failure === 'unavailable' && /did not answer in time/.test(e.message));
    assert.ok(performance.now() - t < 10_000, 'the configured limit applies, not the default 20 s');
    await assert.rejects(gmail.getAttachment('m1', 'a1'), (e: any) => e instanceof MailboxError && e.failure === 'unavailable' && /not answering/.test(e.message));
  } finally {
    api.closeAllConnections();
    await new Promise<void>((r) => api.close(() => r()));
  }
});
