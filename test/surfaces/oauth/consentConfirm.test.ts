import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startFakeGmail, gmailEnv, type FakeGmail } from '../../fakes/gmail.ts';
import { startFakeSlack, slackEnv, type FakeSlack } from '../../fakes/slack.ts';
import { startFakeUpwork, upworkEnv, type FakeUpwork } from '../../fakes/upwork.ts';
import { startFakeIta, itaEnv, FAKE_CLIENT, type FakeIta } from '../../fakes/ita.ts';
import { confirmToken, postConfirm } from '../../consent.ts';
import { CHROMIUM, skipBrowser } from '../pages/browserEnv.ts';
import { mailboxesPath } from '../../../functions/src/domain/mail/mailboxes.ts';
import { chatConnectionPath } from '../../../functions/src/domain/people/chat.ts';
import { itaConsentPath } from '../../../functions/src/domain/invoices/ita.ts';
import { accountsPath } from '../../../functions/src/domain/statements/statements.ts';
import type { HttpResponse } from '../../../functions/src/surfaces/http/types.ts';

/**
 * OAuth login CSRF (issue 20 item 10): someone's consent URL, approved in another person's browser, must not link that
 * person's mailbox, workspace or tax account into their business. The return page names the business, the account and
 * who started it, and connects nothing until the person confirms with the page's form (a POST with a one-time token).
 */

let h: Harness;
let gmail: FakeGmail;
let slack: FakeSlack;
let upwork: FakeUpwork;
let ita: FakeIta;
let now = Date.now();

before(async () => {
  [gmail, slack, upwork, ita] = await Promise.all([startFakeGmail({ email: 'victim.books@example.co.il' }), startFakeSlack(), startFakeUpwork(), startFakeIta(FAKE_CLIENT)]);
  upwork.organizations.push({ id: 'org-victim', title: 'Victim Studio', aceId: 'ace-v' });
  h = await createHarness({ env: { ...gmailEnv(gmail), ...slackEnv(slack), ...upworkEnv(upwork), ...itaEnv(ita) }, overrides: { clock: { now: () => now } } });
});
after(async () => {
  await h.close();
  await Promise.all([gmail.close(), slack.close(), upwork.close(), ita.close()]);
});

/** The browser's trip: the provider approves and redirects to our return page, which answers. */
async function openReturn(url: string): Promise<{ res: HttpResponse; body: string; path: string; back: URL }> {
  const r = await fetch(url, { redirect: 'manual' });
  const back = new URL(r.headers.get('location')!);
  const res = await h.http({ method: 'GET', path: back.pathname, query: back.search.slice(1), headers: {}, body: undefined });
  return { res, body: String(res.body), path: back.pathname, back };
}

/** Stored state of each provider's connection for a business: nothing means nothing was connected. */
async function connected(user: TestUser) {
  const { store } = h.app.services;
  return {
    mailboxes: (await store.query({ collection: mailboxesPath(user.businessId) })).length,
    chat: (await store.get(chatConnectionPath(user.businessId))) !== null,
    market: (await store.query({ collection: accountsPath(user.businessId) })).length,
    ita: (await store.get(itaConsentPath(user.businessId))) !== null,
  };
}
const NOTHING = { mailboxes: 0, chat: false, market: 0, ita: false };

/** The raw bytes of the local store's files, to check a secret never lands there in clear. */
const storeBytes = () =>
  Buffer.concat(readdirSync(h.config.dataDir).filter((n) => n.startsWith('store.sqlite')).map((n) => readFileSync(join(h.config.dataDir, n))));

test("an attacker's mailbox consent link opened in the victim's browser: the page names the business, the mailbox and the starter; nothing is connected", async () => {
  const attacker = await h.newBusiness('Bad Actor Ltd');
  const { url } = await h.call('mailboxConnectStart', {}, attacker);
  const before = gmail.refreshTokens.length;
  const page = await openReturn(url);
  assert.equal(page.res.status, 200);
  assert.match(page.body, /Confirm the connection/);
  assert.match(page.body, /לאשר את החיבור/);
  assert.match(page.body, /Bad Actor Ltd/, 'whose business');
  assert.match(page.body, /victim\.books@example\.co\.il/, 'which mailbox');
  assert.ok(page.body.includes(attacker.email), 'who started it');
  assert.match(page.body, /If you did not start it, or this is not your business, do not connect/);
  // The form posts back here only; the page cannot be framed (a click cannot be stolen).
  assert.match(page.res.headers['content-security-policy'], /form-action 'self'/);
  assert.equal(page.res.headers['x-frame-options'], 'DENY');
  const token = confirmToken(page.body);
  assert.ok(token);
  // The code was exchanged, but no mailbox is connected, and the grant is held sealed, never in clear.
  assert.equal(gmail.refreshTokens.length, before + 1);
  assert.deepEqual(await connected(attacker), NOTHING);
  assert.equal(storeBytes().indexOf(gmail.refreshTokens.at(-1)!), -1, 'the refresh token is not in the store in clear');

  // The victim cancels: nothing stored, the token is spent.
  const cancelled = await postConfirm(h.http, page.path, token, 'cancel');
  assert.equal(cancelled.status, 200);
  assert.match(String(cancelled.body), /nothing was stored/);
  const late = await postConfirm(h.http, page.path, token);
  assert.equal(late.status, 400);
  assert.match(String(late.body), /already used/);
  assert.deepEqual(await connected(attacker), NOTHING);
});

test('confirming connects once; replays, forged tokens, other providers, GET and other encodings connect nothing', async () => {
  const { url } = await h.call('mailboxConnectStart', {});
  const page = await openReturn(url);
  const token = confirmToken(page.body)!;
  // Only the page's form: a GET, a JSON body or a token of another step are refused.
  const get = await h.http({ method: 'GET', path: '/oauth/mailbox/confirm', query: `token=${token}&decision=confirm`, headers: {}, body: undefined });
  assert.equal(get.status, 405);
  const json = await h.http({ method: 'POST', path: '/oauth/mailbox/confirm', query: '', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ token })) });
  assert.equal(json.status, 415);
  const noButton = await h.http({ method: 'POST', path: '/oauth/mailbox/confirm', query: '', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(`token=${token}`) });
  assert.equal(noButton.status, 400, 'a post without the Connect button is not a confirmation');
  assert.equal((await postConfirm(h.http, '/oauth/chat/callback', token)).status, 400, "another provider's confirm does not take it");
  assert.match(String((await postConfirm(h.http, page.path, 'x'.repeat(43))).body), /not recognised/);
  // The state itself is not a confirmation token.
  assert.equal((await postConfirm(h.http, page.path, page.back.searchParams.get('state')!)).status, 400);
  assert.deepEqual(await connected(h.owner), NOTHING);

  const ok = await postConfirm(h.http, page.path, token);
  assert.equal(ok.status, 200);
  assert.match(String(ok.body), /The mailbox victim\.books@example\.co\.il is connected to Test Business/);
  assert.equal((await connected(h.owner)).mailboxes, 1);
  const again = await postConfirm(h.http, page.path, token);
  assert.equal(again.status, 400);
  assert.equal((await connected(h.owner)).mailboxes, 1);
  const activity = await h.call('listActivity');
  assert.equal(activity.items.filter((r: any) => r.operation === 'mailboxConnectCallback').length, 1);
});

test('a confirmation page left open past 15 minutes connects nothing', async () => {
  const other = await h.newBusiness('Slow Co');
  const { url } = await h.call('mailboxConnectStart', {}, other);
  const page = await openReturn(url);
  now += 16 * 60_000;
  const res = await postConfirm(h.http, page.path, confirmToken(page.body)!);
  assert.equal(res.status, 400);
  assert.match(String(res.body), /expired/);
  assert.deepEqual(await connected(other), NOTHING);
});

test('the member who started it was removed before the confirmation: nothing is connected', async () => {
  const member = await h.addMember('admin');
  const { url } = await h.call('chatConnectStart', {}, member);
  const page = await openReturn(url);
  await h.call('removeMember', { email: member.email });
  const res = await postConfirm(h.http, page.path, confirmToken(page.body)!);
  assert.equal(res.status, 400);
  assert.match(String(res.body), /no longer a member/);
  assert.equal((await connected(h.owner)).chat, false);
});

test('Slack, Upwork and the tax authority ask the same way: the business and the account named, nothing stored until confirmed', async () => {
  const cases = [
    { op: 'chatConnectStart', account: /Slack workspace/, key: 'chat' as const, done: /is connected to the Slack workspace/ },
    { op: 'marketConnectStart', account: /Connect Upwork \(Victim Studio\) to/, key: 'market' as const, done: /connected to Upwork \(1 organizations: Victim Studio\)/ },
    { op: 'itaConnectStart', account: /Israel Tax Authority, with the account you just signed in with/, key: 'ita' as const, done: /Owner of ita is connected/ },
  ];
  for (const c of cases) {
    const biz = await h.newBusiness(`Owner of ${c.key}`);
    const { url } = await h.call(c.op, {}, biz);
    const page = await openReturn(url);
    assert.equal(page.res.status, 200, `${c.key}: ${page.body}`);
    assert.match(page.body, c.account, c.key);
    assert.match(page.body, new RegExp(`to Owner of ${c.key}\\?`), `${c.key} names the business`);
    assert.ok(page.body.includes(biz.email), `${c.key} names the starter`);
    assert.deepEqual(await connected(biz), NOTHING, `${c.key}: nothing before the confirmation`);
    const res = await postConfirm(h.http, page.path, confirmToken(page.body)!);
    assert.equal(res.status, 200, `${c.key}: ${String(res.body)}`);
    assert.match(String(res.body), c.done);
    const after = await connected(biz);
    assert.ok(after[c.key], `${c.key} connected after the confirmation`);
  }
});

test('in a real browser: the page shows what is connected, and its Connect button connects (the CSP lets the form post)', { skip: skipBrowser }, async () => {
  const origin = await h.listen();
  const biz = await h.newBusiness('Browser Co');
  const { url } = await h.call('mailboxConnectStart', {}, biz);
  const r = await fetch(url, { redirect: 'manual' });
  const back = new URL(r.headers.get('location')!);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on('console', (m) => m.type() === 'error' && blocked.push(m.text()));
    await page.goto(origin + back.pathname + back.search);
    assert.match(await page.locator('main').innerText(), /Connect the mailbox \(victim\.books@example\.co\.il\) to Browser Co\?/);
    assert.deepEqual(await connected(biz), NOTHING);
    await Promise.all([page.waitForURL(/\/oauth\/mailbox\/confirm$/), page.getByRole('button', { name: /Connect/ }).click()]);
    assert.match(await page.locator('main').innerText(), /is connected to Browser Co/);
    assert.deepEqual(blocked, [], 'no CSP violation');
    assert.equal((await connected(biz)).mailboxes, 1);
  } finally {
    await browser.close();
  }
});
