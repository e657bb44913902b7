import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { startFakeGmail, gmailEnv, approveMailboxConsent, type FakeGmail } from '../../fakes/gmail.ts';
import { startFakeSlack, slackEnv, type FakeSlack } from '../../fakes/slack.ts';
import { startFakeUpwork, upworkEnv, approveMarketConsent, type FakeUpwork } from '../../fakes/upwork.ts';
import { oauthStatePath } from '../../../functions/src/domain/oauthState.ts';

/**
 * The consent start's `origin` is shown on the service's own page as "Back to the dashboard": only the configured
 * origins are taken (issue 20 item 9). Here the dashboard is https://dash.example.com and ALLOWED_ORIGINS adds one more.
 */

let h: Harness;
let gmail: FakeGmail;
let slack: FakeSlack;
let upwork: FakeUpwork;

before(async () => {
  [gmail, slack, upwork] = await Promise.all([startFakeGmail(), startFakeSlack(), startFakeUpwork()]);
  h = await createHarness({
    env: { ...gmailEnv(gmail), ...slackEnv(slack), ...upworkEnv(upwork), DASHBOARD_URL: 'https://dash.example.com/app/', ALLOWED_ORIGINS: 'https://admin.example.com' },
  });
});
after(async () => {
  await h.close();
  await Promise.all([gmail.close(), slack.close(), upwork.close()]);
});

const states = async () => (await h.app.services.store.query({ collection: 'oauthStates' })).length;
/** The origin stored with the consent URL's state: where its return page links back to. */
const originOfState = async (url: string) => ((await h.app.services.store.get(oauthStatePath(new URL(url).searchParams.get('state')!)))?.data.extra as { origin?: string }).origin;

for (const op of ['mailboxConnectStart', 'chatConnectStart', 'marketConnectStart']) {
  test(`${op}: an origin that is not configured is refused naming the field, and no consent is started`, async () => {
    const before = await states();
    for (const origin of ['https://evil.example', 'https://dash.example.com.evil.example', 'http://dash.example.com', 'https://admin.example.com:8443']) {
      await assert.rejects(h.call(op, { origin }), (e: any) => {
        assert.equal(e.code, 'invalid-argument', origin);
        assert.match(e.message, /^origin: /);
        assert.match(e.message, /not one of this service's configured origins/);
        assert.match(e.message, /https:\/\/dash\.example\.com/, 'the answer says which origins are taken');
        return true;
      });
    }
    assert.equal(await states(), before, 'nothing stored');
    // The dashboard's origin (a path is dropped), an ALLOWED_ORIGINS one, or none (the dashboard) are taken.
    for (const [origin, want] of [
      ['https://dash.example.com/settings', 'https://dash.example.com'],
      ['https://admin.example.com', 'https://admin.example.com'],
      [undefined, 'https://dash.example.com'],
    ] as const) {
      const r = await h.call(op, origin === undefined ? {} : { origin });
      assert.equal(await originOfState(r.url), want, String(origin));
    }
  });
}

/** The "back" link of a return page: the href of its last link. */
const backLink = (body: string) => [...body.matchAll(/<a href="([^"]+)"/g)].at(-1)?.[1];

test('the mailbox and Upwork return pages link back to their own dashboard screens, under DASHBOARD_URL\'s path', async () => {
  for (const [op, approve, view] of [
    ['mailboxConnectStart', approveMailboxConsent, 'mailboxes'],
    ['marketConnectStart', approveMarketConsent, 'statements'],
  ] as const) {
    const dash = await approve(h.http, (await h.call(op, {})).url);
    // The fake Upwork user has no organization: its failure page carries the same link.
    if (view === 'mailboxes') assert.equal(dash.res.status, 200);
    assert.equal(backLink(dash.body), `https://dash.example.com/app/${view}`, op);
    // Another configured app's origin keeps its own root: the dashboard's path is not its.
    const other = await approve(h.http, (await h.call(op, { origin: 'https://admin.example.com' })).url);
    assert.equal(backLink(other.body), `https://admin.example.com/${view}`, op);
  }
});
