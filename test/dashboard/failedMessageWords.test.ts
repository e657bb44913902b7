import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { startSmtp } from '../fakes/smtp.ts';

/**
 * Issue 34 A1: the home screen tells the owner, in Hebrew, which message was not sent and why (refused, or still failing
 * after the retries), instead of the activity log's English line, and where to send it again. OUTBOX_MAX_ATTEMPTS=1 stands in for the day of retries.
 */
describe('messages not sent: the home screen says so in Hebrew (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  before(async () => {
    smtp = await startSmtp({
      refuseRcpt: (to) => (to === 'gone@example.com' ? { code: 550, message: '5.1.1 No such user' } : to === 'busy@example.com' ? { code: 451, message: '4.3.2 Try again later' } : null),
    });
    env = await dashboardEnv({ env: { SMTP_URL: smtp.url, OUTBOX_MAX_ATTEMPTS: '1' } });
  });
  after(async () => {
    await env?.close();
    await smtp?.close();
  });

  test('a refused invitation and a supplier link that kept failing', async () => {
    const api = env.api;
    await api('inviteMember', { email: 'gone@example.com', role: 'user' });
    await api('createPayment', { amountAgorot: 45_000, vatIncluded: true, description: 'עיצוב', supplierName: 'נועה', supplierEmail: 'busy@example.com' });
    // A liveness bound, not a speed check: on a loaded machine the local queue can take a while to try each message.
    const until = Date.now() + 90_000;
    while ((await api('attention', {})).failedMessages.length < 2) {
      assert.ok(Date.now() < until, 'both messages ended not sent');
      await new Promise((r) => setTimeout(r, 250));
    }

    const { page, problems } = await env.context();
    await env.signIn(page, env.owner.email, '/');
    const failed = page.locator('section[aria-labelledby="failed"]');
    await failed.getByText('שירות השליחה דחה את ההזמנה לצוות בדוא"ל אל gone@example.com', { exact: false }).waitFor();
    await failed.getByText('לא הצלחנו לשלוח את הקישור לספק בדוא"ל אל busy@example.com', { exact: false }).waitFor();
    const text = await failed.innerText();
    assert.doesNotMatch(text, /was refused|was not sent|an email message/, text);
    // The invitation is sent again from the team screen, one click away.
    await failed.getByRole('link', { name: 'פתיחה לשליחה חוזרת' }).click();
    await page.waitForURL(/\/settings\/team$/);
    await page.getByRole('button', { name: 'שליחה חוזרת' }).first().waitFor();
    assert.deepEqual(problems, []);
  });
});
