import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeIta, itaEnv, approveConsent, FAKE_CLIENT, type FakeIta } from '../../fakes/ita.ts';
import { itaConsentPath, oauthStatePath, type ItaConsentRecord } from '../../../functions/src/domain/invoices/ita.ts';
import { unseal } from '../../../functions/src/core/secrets.ts';
import type { Logger } from '../../../functions/src/core/logger.ts';
import type { HttpResponse } from '../../../functions/src/surfaces/http/types.ts';

const DAY = 24 * 60 * 60 * 1000;
let h: Harness;
let fake: FakeIta;
let now = Date.parse('2026-05-10T09:00:00Z');
const logs: string[] = [];
const logger: Logger = Object.fromEntries(['debug', 'info', 'warn', 'error'].map((l) => [l, (m: string, f?: object) => logs.push(`${m} ${JSON.stringify(f ?? {})}`)])) as unknown as Logger;

before(async () => {
  fake = await startFakeIta(FAKE_CLIENT);
  h = await createHarness({ env: itaEnv(fake), overrides: { clock: { now: () => now }, logger } });
});
after(async () => {
  await h.close();
  await fake.close();
});

const get = (path: string, query = '', method = 'GET') => h.http({ method, path, query, headers: {}, body: undefined });
const consent = async (businessId = h.owner.businessId) => (await h.app.services.store.get(itaConsentPath(businessId)))?.data as ItaConsentRecord | undefined;
const start = async () => (await h.call('itaConnectStart')).url as string;

/** An error page: HTML, the status, no stack, no JSON envelope. */
function assertErrorPage(res: HttpResponse, status: number, text: RegExp) {
  assert.equal(res.status, status);
  assert.match(res.headers['content-type'], /^text\/html/);
  const body = String(res.body);
  assert.match(body, /<html lang="he" dir="rtl">/);
  assert.match(body, text);
  assert.doesNotMatch(body, /\bat .+\.ts:\d+|Error:|"ok":false/);
}

test('the return page exchanges the code, stores the tokens sealed with a 90-day expiry and says so in Hebrew and English', async () => {
  const url = await start();
  const { res, back, body } = await approveConsent(h.http, url);
  assert.equal(back.origin + back.pathname, 'https://app.example.com/oauth/ita/callback');
  assert.equal(res.status, 200);
  assert.match(res.headers['content-type'], /^text\/html; charset=utf-8/);
  assert.match(body, /<html lang="he" dir="rtl">/);
  assert.match(body, /החיבור לרשות המסים הושלם/);
  assert.match(body, /You can close this window/);
  assert.match(body, /Test Business is connected/);
  assert.match(body, /2026-08-08/);
  // Self-contained: no scripts, no external resources.
  assert.doesNotMatch(body, /<script|<link|src=|url\(|https?:\/\//);
  assert.match(res.headers['content-security-policy'], /default-src 'none'/);
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  assert.equal(res.headers['cache-control'], 'no-store');

  // The token exchange: form-encoded, the client in HTTP Basic as the ITA's sample does it, the code and the same redirect_uri.
  const exchange = fake.requests.find((r) => r.path.endsWith('/oauth2/token'))!;
  assert.match(String(exchange.headers['content-type']), /^application\/x-www-form-urlencoded/);
  assert.equal(exchange.headers.authorization, `Basic ${Buffer.from(`${FAKE_CLIENT.clientId}:${FAKE_CLIENT.clientSecret}`).toString('base64')}`);
  assert.deepEqual(exchange.form, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code'),
    redirect_uri: 'https://app.example.com/oauth/ita/callback',
    scope: 'scope',
  });

  const c = (await consent())!;
  assert.equal(c.grantedAt, new Date(now).toISOString());
  assert.equal(c.expiresAt, new Date(now + 90 * DAY).toISOString());
  assert.equal(c.grantedBy, h.owner.userId);
  const [access] = fake.issued.accessTokens;
  const [refresh] = fake.issued.refreshTokens;
  assert.doesNotMatch(JSON.stringify(c), new RegExp(`${access}|${refresh}`));
  assert.deepEqual(unseal(c.sealed, h.app.services.config.credentialsKey), { accessToken: access, refreshToken: refresh });

  const b = await h.call('getBusiness');
  assert.deepEqual(b.ita, { connected: true, expiresAt: c.expiresAt });

  const { items } = await h.call('listActivity');
  const row = items.find((r: any) => r.operation === 'itaConnectCallback');
  assert.equal(row.actorUserId, h.owner.userId);
  assert.match(row.summary, /valid until 2026-08-08/);

  // Write-only: no result, activity row or log line holds a token or the code.
  const leaks = new RegExp([access, refresh, back.searchParams.get('code'), FAKE_CLIENT.clientSecret].join('|'));
  assert.doesNotMatch(JSON.stringify([b, items]), leaks);
  assert.doesNotMatch(logs.join('\n'), leaks);
});

test('a used state gives a 400 page and changes nothing', async () => {
  const url = await start();
  const { back } = await approveConsent(h.http, url);
  const before = await consent();
  const again = await get(back.pathname, back.search.slice(1));
  assertErrorPage(again, 400, /already used/);
  assert.deepEqual(await consent(), before);
});

test('an unknown or missing state gives a 400 page', async () => {
  assertErrorPage(await get('/oauth/ita/callback', 'state=not-a-state&code=abc'), 400, /not recognised/);
  assertErrorPage(await get('/oauth/ita/callback', 'code=abc'), 400, /no state/);
  assertErrorPage(await get('/oauth/ita/callback', `state=${'x'.repeat(500)}&code=abc`), 400, /no state/);
});

test('a state older than 15 minutes gives a 400 page', async () => {
  const url = await start();
  const state = new URL(url).searchParams.get('state')!;
  now += 15 * 60_000 + 1;
  const calls = fake.requests.length;
  assertErrorPage(await get('/oauth/ita/callback', `state=${state}&code=whatever`), 400, /expired/);
  assert.equal(fake.requests.length, calls, 'no token exchange is attempted');
});

test('a declined consent gives a 400 page and spends the state', async () => {
  const url = await start();
  fake.decline();
  const { res, back } = await approveConsent(h.http, url);
  assertErrorPage(res, 400, /consent was not given/);
  assert.equal(back.searchParams.get('error'), 'access_denied');
  const state = back.searchParams.get('state')!;
  assert.ok((await h.app.services.store.get(oauthStatePath(state)))!.data.usedAt);
});

test('a code the ITA refuses gives a 400 page and stores nothing', async () => {
  const other = await h.newBusiness();
  const url = (await h.call('itaConnectStart', {}, other)).url;
  fake.refuseNextCode();
  const { res } = await approveConsent(h.http, url);
  assertErrorPage(res, 400, /refused the authorization code/);
  assert.equal(await consent(other.businessId), undefined);
});

test('the ITA token endpoint down gives a 503 page and stores nothing', async () => {
  const other = await h.newBusiness();
  const url = (await h.call('itaConnectStart', {}, other)).url;
  const r = await fetch(url, { redirect: 'manual' });
  const back = new URL(r.headers.get('location')!);
  fake.failNext(1, 502);
  assertErrorPage(await get(back.pathname, back.search.slice(1)), 503, /not answering/);
  assert.equal(await consent(other.businessId), undefined);
});

test('a member removed since the start cannot complete the consent', async () => {
  const member = await h.addMember('user');
  const url = (await h.call('itaConnectStart', {}, member)).url;
  await h.app.services.store.delete(`businesses/${member.businessId}/members/${member.userId}`);
  const { res } = await approveConsent(h.http, url);
  assertErrorPage(res, 400, /no longer a member/);
});

test('reconnecting replaces the tokens and starts a new 90 days', async () => {
  const first = (await consent())!;
  now += 10 * DAY;
  const { res } = await approveConsent(h.http, await start());
  assert.equal(res.status, 200);
  const second = (await consent())!;
  assert.notEqual(second.grantId, first.grantId);
  assert.equal(second.expiresAt, new Date(now + 90 * DAY).toISOString());
});

test('other paths and methods under /oauth are HTML pages too', async () => {
  assertErrorPage(await get('/oauth/nope/callback'), 404, /no page/);
  assertErrorPage(await get('/oauth/ita/other'), 404, /no page/);
  const head = await get('/oauth/ita/callback', 'state=x&code=y', 'POST');
  assertErrorPage(head, 405, /GET only/);
  assert.equal(head.headers.allow, 'GET');
});

test('text from the business profile is escaped on the page', async () => {
  await h.call('updateBusiness', { businessName: '<script>alert(1)</script> & Co' });
  const { body } = await approveConsent(h.http, await start());
  assert.match(body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; Co is connected/);
  assert.doesNotMatch(body, /<script/);
});

test('the return page is served over a real HTTP server', async () => {
  const origin = await h.listen();
  const res = await fetch(`${origin}/oauth/ita/callback?state=unknown&code=x`);
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.match(res.headers.get('x-request-id')!, /^req_/);
  assert.match(await res.text(), /not recognised/);
});

test('the consent\'s last day is Israel\'s: granted at 01:30 on May 11 in Israel (22:30 UTC on May 10), valid until August 9', async () => {
  const was = now;
  now = Date.parse('2026-05-10T22:30:00Z');
  try {
    const { res, body } = await approveConsent(h.http, await start());
    assert.equal(res.status, 200);
    assert.match(body, /valid until 2026-08-09\./);
    assert.match(body, /בתוקף עד 2026-08-09\./);
    const { items } = await h.call('listActivity');
    assert.ok(items.some((r: any) => r.operation === 'itaConnectCallback' && /valid until 2026-08-09$/.test(r.summary)));
  } finally {
    now = was;
  }
});
