import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 10, the payment form at 360 and 1280 px: the link-only choice says a contact is still needed, a
 * link-only request reads "link created" (not "sent") on its page and in the list, and "undo paid" says why it
 * is disabled and asks before it runs.
 */
describe('the payment form: link-only and undoing paid (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let session: Awaited<ReturnType<DashboardEnv['context']>>;
  before(async () => {
    env = await dashboardEnv();
    // One sign-in; each width resizes the same page.
    session = await env.context();
    await env.signIn(session.page, env.owner.email, '/');
  });
  after(async () => {
    await session?.context.close();
    await env?.close();
  });

  test('at 360 and 1280 px', async () => {
    // One page, one width after the other (tests in a describe may run together).
    for (const width of [360, 1280]) {
      const api = async (op: string, body: unknown) => {
          const r = (await (await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
          assert.ok(r.result, `${op}: ${JSON.stringify(r)}`);
          return r.result;
        };
      const { page, problems } = session;
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${env.origin}/payments/new`);
      const supplier = `ספק ${width}`;
      await page.getByRole('textbox', { name: 'שם הספק', exact: true }).fill(supplier);
      await page.getByRole('textbox', { name: 'על מה התשלום', exact: true }).fill('צילום מוצרים');
      await page.getByRole('textbox', { name: 'סכום', exact: true }).fill('250');
      await page.getByRole('radio', { name: 'רק ליצור קישור (אשלח בעצמי)' }).check();
      // The hint says a contact is still required, and without one nothing can be created.
      await page.getByText('עדיין צריך טלפון או דוא"ל של הספק').waitFor();
      await page.getByText('הם נדרשים גם כשרק יוצרים קישור').waitFor();
      const create = page.getByRole('button', { name: 'יצירת הקישור' });
      assert.equal(await create.isDisabled(), true);
      await axe(page, `link-only form at ${width}`);
      await page.getByRole('textbox', { name: 'דוא"ל של הספק', exact: true }).fill(`s${width}@example.com`);
      await create.click();
      await page.waitForURL(/\/payments\/(?!new$)[^/]+$/);
      const id = new URL(page.url()).pathname.split('/').at(-1)!;
      await page.getByText('נוצר קישור', { exact: true }).waitFor();
      assert.equal(await page.getByText('נשלח', { exact: true }).count(), 0, 'nothing says sent');
      await page.goto(`${env.origin}/payments`);
      await page.locator('.pay-card', { hasText: supplier }).getByText('נוצר קישור', { exact: true }).waitFor();

      assert.equal((await api('markPaid', { paymentId: id })).status, 'paid');
      await page.goto(`${env.origin}/payments/${id}`);
      const undo = page.getByRole('button', { name: 'ביטול הסימון "שולם"' });
      await undo.waitFor();
      assert.equal(await undo.isDisabled(), true);
      await page.getByText('בחרו קודם לאיזה מצב להחזיר את התשלום').waitFor();
      await axe(page, `undo paid disabled at ${width}`);
      await page.getByPlaceholder('להחזיר למצב').click();
      await page.getByRole('option', { name: 'נשלח' }).click();
      await undo.click();
      const dialog = page.getByRole('dialog', { name: 'לבטל את הסימון "שולם"?' });
      await dialog.getByText('ספק שקיבל בדוא"ל הודעה שהתשלום בוצע יקבל הודעת תיקון').waitFor();
      // The dialog fades in; axe measures contrast through a half-transparent button until the transition ends.
      await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished)).then(() => true)');
      await axe(page, `undo paid confirmation at ${width}`);
      // shoot takes both widths; from the 360 pass, since a dialog laid out at 1280 keeps that width when the window shrinks.
      if (width === 360) await shoot(page, 'undo-paid');
      // Not undone until confirmed.
      assert.equal((await api('paymentGet', { paymentId: id })).status, 'paid');
      await dialog.getByRole('button', { name: 'ביטול הסימון "שולם"' }).click();
      await page.getByText('נוצר קישור', { exact: true }).waitFor();
      assert.equal((await api('paymentGet', { paymentId: id })).status, 'sent');
      assert.deepEqual(problems, []);
    }
  });
});
