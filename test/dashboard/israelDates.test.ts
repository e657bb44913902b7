import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 34 B5: the dashboard's default report period is Israel's calendar month, whatever the browser's zone. At 00:30
 * on 1 December in Israel it is still 30 November in Los Angeles: "last month" is November, not October.
 */
describe("report periods follow Israel's calendar in a browser elsewhere (browser, npm start)", { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await dashboardEnv();
  });
  after(async () => {
    await env?.close();
  });

  test('the spend report opens on the month that just ended in Israel', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'he-IL', timezoneId: 'America/Los_Angeles' });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await env.signIn(page, env.owner.email, '/');
    await context.clock.setFixedTime(new Date('2026-11-30T22:30:00Z'));
    const asked = page.waitForRequest((r) => r.url().includes('/v1/spendSummary'));
    await page.goto(`${env.origin}/reports`);
    const req = await asked;
    const sent = decodeURIComponent(req.url()) + (req.postData() ?? '');
    assert.match(sent, /2026-11-01/, sent);
    assert.match(sent, /2026-11-30/, sent);
    await context.close();
  });
});
