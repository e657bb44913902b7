import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGmail, gmailEnv, approveMailboxConsent, connectMailbox, FAKE_GMAIL_CLIENT, type FakeGmail } from '../../fakes/gmail.ts';
import { mailboxesPath } from '../../../functions/src/domain/mail/mailboxes.ts';
import { oauthStatePath } from '../../../functions/src/domain/oauthState.ts';
import { unseal } from '../../../functions/src/core/secrets.ts';

let h: Harness;
let fake: FakeGmail;
before(async () => {
  fake = await startFakeGmail();
  h = await createHarness({ env: gmailEnv(fake) });
});
after(async () => {
  await h.close();
  await fake.close();
});

function dataDirBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? dataDirBytes(p) : readFileSync(p).toString('latin1');
  }
  return out;
}

test('consent URL: Google authorize endpoint with client id, gmail.readonly, offline access, our return page and a stored single-use state', async () => {
  const r = await h.call('mailboxConnectStart', { origin: 'https://app.example.com/x' });
  const url = new URL(r.url);
  assert.equal(url.origin + url.pathname, fake.authUrl);
  assert.equal(url.searchParams.get('client_id'), FAKE_GMAIL_CLIENT.clientId);
  assert.equal(url.searchParams.get('scope'), 'https://www.googleapis.com/auth/gmail.readonly');
  assert.equal(url.searchParams.get('access_type'), 'offline');
  assert.equal(url.searchParams.get('response_type'), 'code');
  assert.match(url.searchParams.get('redirect_uri')!, /\/oauth\/mailbox\/callback$/);
  const state = url.searchParams.get('state')!;
  const stored = await h.app.services.store.get(oauthStatePath(state));
  assert.equal(stored!.data.provider, 'mailbox');
  assert.equal(stored!.data.businessId, h.owner.businessId);
  assert.deepEqual(stored!.data.extra, { origin: 'https://app.example.com' });
  assert.doesNotMatch(r.url, new RegExp(FAKE_GMAIL_CLIENT.clientSecret));
});

test('consent → return page → code exchanged, refresh token stored only sealed and never answered', async () => {
  const { url } = await h.call('mailboxConnectStart', { origin: 'https://dash.example.com' });
  const { res, body, back } = await approveMailboxConsent(h.http, url);
  assert.equal(res.status, 200);
  assert.match(body, /תיבת הדואר חוברה/);
  assert.match(body, /The mailbox books@example\.co\.il is connected to Test Business/);
  assert.match(body, /href="https:\/\/dash\.example\.com\/mailboxes"/);
  // The exchange went to the token endpoint with our client and the same redirect_uri.
  const exchange = fake.requests.find((r) => r.path === '/token' && r.form?.get('grant_type') === 'authorization_code')!;
  assert.equal(exchange.form!.get('code'), back.searchParams.get('code'));
  const refresh = fake.refreshTokens.at(-1)!;
  const { items } = await h.call('mailboxListAccounts', {});
  assert.equal(items.length, 1);
  assert.equal(items[0].email, 'books@example.co.il');
  assert.equal(items[0].status, 'connected');
  assert.equal(items[0].automations, 0);
  assert.doesNotMatch(JSON.stringify(items), new RegExp(refresh.slice(5)));
  const rec = await h.app.services.store.get(mailboxesPath(h.owner.businessId, items[0].accountId));
  assert.equal(unseal(String(rec!.data.sealed), h.app.services.config.credentialsKey).refreshToken, refresh);
  assert.ok(!dataDirBytes(h.config.dataDir).includes(refresh), 'no plain refresh token in the local data');
  // The state was spent: the same return link is refused.
  const again = await h.http({ method: 'GET', path: back.pathname, query: back.search.slice(1), headers: {}, body: undefined });
  assert.equal(again.status, 400);
  assert.match(String(again.body), /already used/);
  // Connecting the same mailbox again keeps one account.
  await connectMailbox(h);
  assert.equal((await h.call('mailboxListAccounts', {})).items.length, 1);
});

test('labels come from labels.list through the refreshed access token', async () => {
  const accountId = await connectMailbox(h);
  const { items } = await h.call('mailboxListLabels', { accountId });
  assert.deepEqual(items.map((l: any) => l.name), ['INBOX', 'SENT', 'Receipts', 'חשבוניות']);
  const call = fake.requests.findLast((r) => r.path === '/gmail/v1/users/me/labels')!;
  assert.match(call.token!, /^ya29\./);
});

test('a revoked grant (invalid_grant) marks the mailbox needs_reconnect, reported by mailboxListAccounts, and later calls do not hit the provider', async () => {
  const other = await h.newBusiness('Revoked Co');
  const accountId = await connectMailbox(h, other);
  fake.revoke(fake.refreshTokens.at(-1)!);
  await assert.rejects(h.call('mailboxListLabels', { accountId }, other), (e: any) => e.code === 'failed-precondition' && /mailboxConnectStart/.test(e.message));
  const { items } = await h.call('mailboxListAccounts', {}, other);
  assert.equal(items[0].status, 'needs_reconnect');
  assert.match(items[0].statusReason, /invalid_grant/);
  const before = fake.requests.length;
  await assert.rejects(h.call('mailboxListLabels', { accountId }, other), (e: any) => e.code === 'failed-precondition' && /connected again/.test(e.message));
  assert.equal(fake.requests.length, before, 'no retry loop against the provider');
  // Connecting again restores it.
  await connectMailbox(h, other);
  assert.equal((await h.call('mailboxListAccounts', {}, other)).items[0].status, 'connected');
});

test('another business cannot see, use or disconnect the mailbox', async () => {
  const accountId = await connectMailbox(h);
  const stranger = await h.newBusiness('Stranger');
  assert.deepEqual((await h.call('mailboxListAccounts', {}, stranger)).items, []);
  await assert.rejects(h.call('mailboxListLabels', { accountId }, stranger), (e: any) => e.code === 'not-found');
  await assert.rejects(h.call('mailboxDisconnect', { accountId }, stranger), (e: any) => e.code === 'not-found');
  assert.equal((await h.call('mailboxListAccounts', {})).items.length, 1);
});

test('disconnect removes the mailbox, its sealed token and the automations built on it, not others', async () => {
  const biz = await h.newBusiness('Disconnect Co');
  const accountId = await connectMailbox(h, biz);
  const store = h.app.services.store;
  const autos = `businesses/${biz.businessId}/automations`;
  await store.set(`${autos}/a1`, { id: 'a1', type: 'mailbox_invoices', config: { accountId, labelId: null, labelName: '' } });
  await store.set(`${autos}/a2`, { id: 'a2', type: 'mailbox_invoices', config: { accountId, labelId: 'Label_1', labelName: 'x' } });
  await store.set(`${autos}/s1`, { id: 's1', type: 'statements', config: { recipients: [], onlyWhenComplete: false } });
  assert.equal((await h.call('mailboxListAccounts', {}, biz)).items[0].automations, 2);
  const r = await h.call('mailboxDisconnect', { accountId }, biz);
  assert.deepEqual(r, { accountId, removed: true, automationsRemoved: 2 });
  assert.equal(await store.get(mailboxesPath(biz.businessId, accountId)), null);
  assert.deepEqual((await store.query({ collection: autos })).map((d) => d.id), ['s1']);
  assert.deepEqual((await h.call('mailboxListAccounts', {}, biz)).items, []);
  await assert.rejects(h.call('mailboxDisconnect', { accountId }, biz), (e: any) => e.code === 'not-found');
});

test('without the client id the start answers failed-precondition naming the variables', async () => {
  const bare = await createHarness();
  try {
    await assert.rejects(bare.call('mailboxConnectStart', {}), (e: any) => e.code === 'failed-precondition' && /MAILBOX_CLIENT_ID/.test(e.message) && /MAILBOX_CLIENT_SECRET/.test(e.message));
  } finally {
    await bare.close();
  }
});

test('count lists ids with after: and the label, across pages, and opens no message', async () => {
  const biz = await h.newBusiness('Count Co');
  const accountId = await connectMailbox(h, biz);
  const t0 = Date.parse('2025-03-01T00:00:00Z');
  for (let i = 0; i < 12; i++) {
    fake.add({ id: `cnt${i}`, from: 'a@b.c', subject: 's', dateMs: t0 + (i - 2) * 86_400_000, labelIds: i % 3 === 0 ? ['INBOX', 'Label_2'] : ['INBOX'], body: { mimeType: 'text/plain', data: Buffer.from('x') } });
  }
  fake.pageSize = 4;
  try {
    const gets = fake.gets();
    const all = await h.call('mailboxImportCount', { accountId, since: t0 }, biz);
    assert.equal(all.count, fake.mails.size - 3, 'mails after since only');
    assert.equal(all.truncated, false);
    const list = fake.requests.filter((r) => r.path === '/gmail/v1/users/me/messages');
    assert.equal(list.at(-1)!.query.get('q'), `after:${t0 / 1000}`);
    assert.ok(list.filter((r) => r.query.get('pageToken')).length >= 2, 'followed nextPageToken');
    const labelled = await h.call('mailboxImportCount', { accountId, since: t0, labelId: 'Label_2' }, biz);
    assert.equal(labelled.count, 3);
    assert.equal(fake.requests.at(-1)!.query.get('labelIds'), 'Label_2');
    assert.equal(fake.gets(), gets, 'no messages.get');
  } finally {
    fake.pageSize = 500;
  }
});
