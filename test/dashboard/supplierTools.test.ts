import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 5 at 360 and 1280 px: the payment form says whose a typed phone is and fills the supplier in one
 * click, completes known suppliers as the owner types, and the supplier card opens a prefilled form and merges.
 */
/** Polls `ok` until it holds (a filled input has no text to wait for). */
async function until(ok: () => Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    assert.ok(Date.now() < end, `timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('supplier tools on the payment form and the supplier card (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let session: Awaited<ReturnType<DashboardEnv['context']>>;
  const api = async (op: string, body: unknown) => {
    const r = (await (await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
    assert.ok(r.result, `${op}: ${JSON.stringify(r)}`);
    return r.result;
  };
  before(async () => {
    env = await dashboardEnv();
    session = await env.context();
    await env.signIn(session.page, env.owner.email, '/');
    await api('createSupplier', { name: 'דנה עיצוב', phone: '052-111-0001', email: 'dana@studio.example' });
    await api('createSupplier', { name: 'Moshe Print', email: 'moshe@print.example' });
    await api('createSupplier', { name: 'דנה (כפול)', email: 'old@studio.example' });
  });
  after(async () => {
    await session?.context.close();
    await env?.close();
  });

  test('at 360 and 1280 px', async () => {
    const { page, problems } = session;
    const name = () => page.getByRole('textbox', { name: 'שם הספק', exact: true });
    const phone = () => page.getByRole('textbox', { name: 'טלפון של הספק', exact: true });
    const email = () => page.getByRole('textbox', { name: 'דוא"ל של הספק', exact: true });
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });

      // A phone that belongs to a known supplier: said on the form, and one click fills the supplier in.
      await page.goto(`${env.origin}/payments/new`);
      await phone().fill('052-111-0001');
      const known = page.getByTestId('known-phone');
      await known.getByText('הטלפון הזה שייך לספק דנה עיצוב').waitFor();
      await axe(page, `known phone at ${width}`);
      if (width === 360) await shoot(page, 'supplier-known-phone');
      await known.getByRole('button', { name: 'שימוש בספק הזה' }).click();
      assert.equal(await name().inputValue(), 'דנה עיצוב');
      assert.equal(await email().inputValue(), 'dana@studio.example');
      // The supplier is in the form now: the hint stays, its button goes.
      assert.equal(await known.getByRole('button').count(), 0);

      // Completion as the owner types a name.
      await page.goto(`${env.origin}/payments/new`);
      await name().pressSequentially('mosh');
      const matches = page.getByRole('navigation', { name: 'ספקים קיימים שמתאימים' });
      await matches.getByRole('button', { name: /Moshe Print/ }).waitFor();
      assert.equal(await matches.getByRole('button').count(), 1);
      await axe(page, `completion at ${width}`);
      if (width === 360) await shoot(page, 'supplier-completion');
      await matches.getByRole('button', { name: /Moshe Print/ }).click();
      assert.deepEqual([await name().inputValue(), await email().inputValue(), await phone().inputValue()], ['Moshe Print', 'moshe@print.example', '']);
      assert.equal(await matches.count(), 0, 'the list closes once a supplier is picked');

      // The supplier card opens the form with the supplier filled in.
      await page.goto(`${env.origin}/suppliers/${encodeURIComponent('+972521110001')}`);
      await page.getByRole('link', { name: 'תשלום חדש לספק הזה' }).click();
      await page.waitForURL(/\/payments\/new\?supplier=/);
      await until(async () => (await name().inputValue()) === 'דנה עיצוב', 'the form is prefilled');
      assert.deepEqual([await phone().inputValue(), await email().inputValue()], ['+972521110001', 'dana@studio.example']);
      await axe(page, `prefilled form at ${width}`);
    }

    // An admin merges the duplicate into the real record from its card, and lands on the one that stays.
    await page.goto(`${env.origin}/suppliers/${encodeURIComponent('old@studio.example')}`);
    await page.getByRole('button', { name: 'מיזוג לתוך…' }).click();
    const dialog = page.getByRole('dialog', { name: 'מיזוג דנה (כפול) לתוך ספק אחר' });
    await dialog.getByLabel('הספק שנשאר').click();
    await page.getByRole('option', { name: /דנה עיצוב/ }).click();
    await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished)).then(() => true)');
    await axe(page, 'merge dialog');
    await shoot(page, 'supplier-merge');
    await dialog.getByRole('button', { name: 'מיזוג', exact: true }).click();
    await until(async () => decodeURIComponent(new URL(page.url()).pathname) === '/suppliers/+972521110001', 'the page moves to the supplier that stays');
    assert.deepEqual((await api('suppliersList', {})).items.map((s: any) => s.name).sort(), ['Moshe Print', 'דנה עיצוב']);
    // Its email is the kept supplier's now: the form says so.
    await page.goto(`${env.origin}/payments/new`);
    await email().fill('old@studio.example');
    await page.getByTestId('known-email').getByText('כתובת הדוא"ל הזו שייכת לספק דנה עיצוב').waitFor();
    assert.deepEqual(problems, []);
  });
});
