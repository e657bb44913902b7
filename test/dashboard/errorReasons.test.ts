import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 6, at 360 and 1280 px: the API's refusal of the payment form reaches the owner in Hebrew, under
 * the field it names (the phone), with the value they typed isolated, and no English on the form.
 */
describe('API errors in the user language under their field (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let session: Awaited<ReturnType<DashboardEnv['context']>>;
  before(async () => {
    env = await dashboardEnv();
    session = await env.context();
    await env.signIn(session.page, env.owner.email, '/');
  });
  after(async () => {
    await session?.context.close();
    await env?.close();
  });

  test('a bad phone on the Hebrew payment form', async () => {
    const { page, problems } = session;
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${env.origin}/payments/new`);
      await page.getByRole('textbox', { name: 'שם הספק', exact: true }).fill('דנה כהן');
      await page.getByRole('textbox', { name: 'על מה התשלום', exact: true }).fill('צילום מוצרים');
      await page.getByRole('textbox', { name: 'סכום', exact: true }).fill('250');
      const phone = page.getByRole('textbox', { name: 'טלפון של הספק', exact: true });
      await phone.fill('12');
      const refused = page.waitForResponse((r) => r.url().endsWith('/v1/createPayment'));
      await page.getByRole('button', { name: 'יצירה ושליחה' }).click();
      assert.equal((await refused).status(), 400);
      // The phone input is marked invalid and described by the Hebrew reason, the typed value isolated in it.
      await page.getByText('אינו מספר טלפון תקין').waitFor();
      assert.equal(await phone.getAttribute('aria-invalid'), 'true');
      const described = await phone.evaluate((el: any) =>
        String(el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
      assert.match(described, /\u206812\u2069 אינו מספר טלפון תקין/);
      // No English anywhere on the form (the currency codes are the only Latin letters it shows).
      const text = (await page.locator('form').innerText()).replace(/\b(ILS|USD|EUR)\b/g, '');
      assert.doesNotMatch(text, /[A-Za-z]{2,}/, `English on the form: ${text}`);
      assert.equal(await page.getByRole('alert').count(), 0, 'the refusal is under its field, not in a general alert');
      await axe(page, `payment form refusal at ${width}`);
      if (width === 360) await shoot(page, 'payment-form-reason');
    }
    // The refusals were the point of the test; anything else in the console or the network is a failure.
    const unexpected = problems.filter((p) => !/^HTTP 400: POST .*\/v1\/createPayment$/.test(p) && !/console error: Failed to load resource: the server responded with a status of 400/.test(p));
    assert.deepEqual(unexpected, []);
  });
});
