import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { startSmtp } from '../fakes/smtp.ts';

/**
 * Issue 34 A1: a supplier link the outbox could not send (here SMTP is down through a short schedule, OUTBOX_RETRY_DELAYS=1
 * and OUTBOX_MAX_ATTEMPTS=2, standing in for the day-long one) shows on the home screen and on the payment as not sent,
 * with "send again"; once SMTP is back, the button sends it.
 */
describe('a supplier link not sent: the home screen and the payment offer to send it again (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let port = 0;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    const gone = await startSmtp();
    port = Number(new URL(gone.url).port);
    await gone.close();
    env = await dashboardEnv({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, OUTBOX_RETRY_DELAYS: '1', OUTBOX_MAX_ATTEMPTS: '2', SMTP_TIMEOUT_MS: '2000' } });
  });
  after(async () => {
    for (const c of closers) await c();
    await env?.close();
  });

  test('not sent → shown with send again → sent once SMTP is back', async () => {
    const api = env.api;
    const p = await api('createPayment', { amountAgorot: 45_000, vatIncluded: true, description: 'עיצוב לוגו', supplierName: 'נועה', supplierEmail: 'noa@example.com' });
    const until = Date.now() + 30_000;
    while ((await api('paymentGet', { paymentId: p.id })).messages[0]?.status !== 'undelivered') {
      assert.ok(Date.now() < until, 'the message ended not sent');
      await new Promise((r) => setTimeout(r, 250));
    }

    const { page, problems } = await env.context();
    await env.signIn(page, env.owner.email, '/');
    const failed = page.locator('section[aria-labelledby="failed"]');
    await failed.getByText('noa@example.com', { exact: false }).waitFor();
    const again = failed.getByRole('button', { name: 'שליחה חוזרת בדוא"ל' });
    await again.waitFor();
    await axe(page, 'home with a message not sent');
    await shoot(page, 'home-send-again');

    const smtp = await startSmtp({ port });
    closers.push(() => smtp.close());
    await again.click();
    await failed.getByRole('status').getByText('נשלחה שוב').waitFor();
    const mails = await smtp.waitFor(1, 20_000);
    assert.deepEqual(mails.map((m) => m.to.join()), ['noa@example.com']);

    await page.goto(`${env.origin}/payments/${p.id}`);
    await page.getByText('לא נשלחה').first().waitFor();
    await page.getByRole('button', { name: 'שליחה חוזרת בדוא"ל' }).first().waitFor();
    await shoot(page, 'payment-send-again');
    assert.deepEqual(problems, []);
  });
});
