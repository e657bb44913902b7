import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeSlack, slackEnv, approveChatConsent, FAKE_SLACK_CLIENT, type FakeSlack } from '../../fakes/slack.ts';
import { chatConnectionPath } from '../../../functions/src/domain/people/chat.ts';
import { oauthStatePath } from '../../../functions/src/domain/oauthState.ts';
import { unseal } from '../../../functions/src/core/secrets.ts';

let h: Harness;
let fake: FakeSlack;
before(async () => {
  fake = await startFakeSlack();
  h = await createHarness({ env: slackEnv(fake) });
});
after(async () => {
  await h.close();
  await fake.close();
});

/** Every byte the local store and files hold, to look for a plain token. */
function dataDirBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? dataDirBytes(p) : readFileSync(p).toString('latin1');
  }
  return out;
}

test('returns Slack\'s OAuth v2 consent URL with the client id, bot scopes, our return page and a single-use state', async () => {
  const r = await h.call('chatConnectStart', { origin: 'https://app.example.com', returnView: 'integrations' });
  const url = new URL(r.url);
  assert.equal(url.origin + url.pathname, fake.authUrl);
  assert.equal(url.searchParams.get('client_id'), FAKE_SLACK_CLIENT.clientId);
  assert.equal(url.searchParams.get('scope'), 'users:read,users:read.email');
  assert.equal(url.searchParams.get('redirect_uri'), 'https://app.example.com/oauth/chat/callback');
  const state = url.searchParams.get('state')!;
  assert.ok(state.length >= 20);
  const stored = await h.app.services.store.get(oauthStatePath(state));
  assert.equal(stored!.data.provider, 'chat');
  assert.equal(stored!.data.businessId, h.owner.businessId);
  assert.deepEqual(stored!.data.extra, { origin: 'https://app.example.com', returnView: 'integrations' });
  assert.ok(Date.parse(r.stateExpiresAt) > Date.now());
  assert.doesNotMatch(r.url, new RegExp(FAKE_SLACK_CLIENT.clientSecret));
});

test('consent → return page → token exchanged with oauth.v2.access and stored only sealed', async () => {
  const { url } = await h.call('chatConnectStart', { origin: 'https://dash.example.com/some/path', returnView: 'employees' });
  const { res, body, back } = await approveChatConsent(h.http, url);
  assert.equal(res.status, 200);
  assert.match(body, /<html lang="he" dir="rtl">/);
  assert.match(body, /Slack חובר/);
  assert.match(body, /Test Business is connected to the Slack workspace Acme Workspace/);
  // Says where to go next: the app's origin (path dropped) at the requested view.
  assert.match(body, /href="https:\/\/dash\.example\.com\/employees"/);
  assert.match(body, /Back to the Employees screen/);
  assert.match(body, /חזרה אל מסך העובדים/);

  const exchange = fake.requests.filter((r) => r.method === 'oauth.v2.access').at(-1)!;
  assert.equal(exchange.httpMethod, 'POST');
  assert.equal(exchange.params.code, back.searchParams.get('code'));
  assert.equal(exchange.params.redirect_uri, 'https://app.example.com/oauth/chat/callback');
  assert.equal(exchange.params.client_id, FAKE_SLACK_CLIENT.clientId);

  const token = fake.issuedTokens.at(-1)!;
  assert.match(token, /^xoxb-/);
  const doc = await h.app.services.store.get(chatConnectionPath(h.owner.businessId));
  assert.equal(doc!.data.teamName, 'Acme Workspace');
  assert.doesNotMatch(JSON.stringify(doc!.data), new RegExp(token));
  assert.deepEqual(unseal(String(doc!.data.sealed), h.config.credentialsKey), { accessToken: token });
  // Nowhere in the store's files, nowhere in an answer.
  const bytes = dataDirBytes(h.config.dataDir);
  assert.ok(bytes.includes(String(doc!.data.sealed)), 'the scan sees the stored connection');
  assert.equal(bytes.includes(token), false);
  assert.equal(body.includes(token), false);
  for (const op of ['chatStatus', 'chatListUsers']) assert.equal(JSON.stringify(await h.call(op)).includes(token), false, op);
  const { items } = await h.call('listActivity');
  assert.ok(items.some((r: any) => r.operation === 'chatConnectCallback' && /Acme Workspace/.test(r.summary)));
  assert.equal(JSON.stringify(items).includes(token), false);
});

test('the state works once: a replayed return is refused with a page, and the connection is unchanged', async () => {
  const { url } = await h.call('chatConnectStart', {});
  const { back } = await approveChatConsent(h.http, url);
  const again = await h.http({ method: 'GET', path: back.pathname, query: back.search.slice(1), headers: {}, body: undefined });
  assert.equal(again.status, 400);
  assert.match(String(again.body), /already used/);
  assert.match(String(again.body), /Slack לא חובר/);
  const bogus = await h.http({ method: 'GET', path: '/oauth/chat/callback', query: 'state=nope&code=x', headers: {}, body: undefined });
  assert.equal(bogus.status, 400);
  assert.match(String(bogus.body), /not recognised/);
});

test('a declined consent stores nothing and links back to start again', async () => {
  const other = await h.newBusiness('Declining Co');
  fake.decline();
  const { url } = await h.call('chatConnectStart', { origin: 'https://app.example.com', returnView: 'integrations' }, other);
  const { res, body } = await approveChatConsent(h.http, url);
  assert.equal(res.status, 400);
  assert.match(body, /not granted/);
  assert.match(body, /href="https:\/\/app\.example\.com\/integrations"/);
  assert.equal(await h.app.services.store.get(chatConnectionPath(other.businessId)), null);
  assert.equal((await h.call('chatStatus', {}, other)).connected, false);
});

test('connecting one business never connects another', async () => {
  const other = await h.newBusiness('Other Co');
  const { url } = await h.call('chatConnectStart', {}, other);
  await approveChatConsent(h.http, url);
  assert.ok(await h.app.services.store.get(chatConnectionPath(other.businessId)));
  const third = await h.newBusiness('Third Co');
  assert.equal((await h.call('chatStatus', {}, third)).connected, false);
});

test('origin and returnView are checked', async () => {
  await assert.rejects(h.call('chatConnectStart', { origin: 'javascript:alert(1)' }), { code: 'invalid-argument', message: /^origin: / });
  await assert.rejects(h.call('chatConnectStart', { origin: 'not a url' }), { code: 'invalid-argument', message: /^origin: / });
  await assert.rejects(h.call('chatConnectStart', { returnView: 'payments' }), { code: 'invalid-argument', message: /^returnView: / });
});

test('without client credentials the start answers failed-precondition naming the setting', async () => {
  const bare = await createHarness({ env: slackEnv(fake, { CHAT_CLIENT_SECRET: '' }) });
  try {
    await assert.rejects(bare.call('chatConnectStart', {}), { code: 'failed-precondition', message: /CHAT_CLIENT_SECRET/ });
  } finally {
    await bare.close();
  }
});
