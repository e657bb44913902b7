import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 9: a `user` member on Settings > Team gets no invite form and no remove buttons, the role pickers
 * are disabled, and the screen says why; an admin has them all. At 360 and 1280 px, axe clean, no console errors.
 */
describe('team settings follow the role (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  const userEmail = 'noa@example.com';
  before(async () => {
    env = await dashboardEnv();
    const res = await fetch(`${env.origin}/v1/inviteMember`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: userEmail, role: 'user' }),
    });
    const { result } = (await res.json()) as any;
    await env.admin('accept-invite', '--invite', result.inviteId, '--email', userEmail);
  });
  after(async () => {
    await env?.close();
  });

  const sizes = [
    { width: 360, height: 780 },
    { width: 1280, height: 800 },
  ];

  test('a user: no invite form, no remove, role pickers disabled, and the reason in Hebrew', async () => {
    const { page, problems, context } = await env.context(sizes[0]);
    await env.signIn(page, userEmail, '/settings/team');
    for (const size of sizes) {
      await page.setViewportSize(size);
      const reason = page.getByTestId('team-admin-only');
      await reason.waitFor();
      assert.match(await reason.innerText(), /רק מנהל של העסק יכול להזמין אנשים, להסיר אותם או לשנות את תפקידם/);
      await page.getByText(env.owner.email).first().waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getByLabel('דוא"ל להזמנה').count(), 0, 'no invite form');
      assert.equal(await page.getByRole('button', { name: 'שליחת הזמנה' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: `הסרה ${env.owner.email}` }).count(), 0, 'no remove button');
      assert.equal(await page.getByRole('combobox', { name: `תפקיד: ${env.owner.email}` }).isDisabled(), true, 'the owner’s role cannot be changed');
      await axe(page, `team as user at ${size.width}px`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an admin: the invite form, remove and role pickers are there, no reason shown', async () => {
    const { page, problems, context } = await env.context(sizes[1]);
    await env.signIn(page, env.owner.email, '/settings/team');
    for (const size of [...sizes].reverse()) {
      await page.setViewportSize(size);
      await page.getByRole('button', { name: `הסרה ${userEmail}` }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getByLabel('דוא"ל להזמנה').count(), 1);
      assert.equal(await page.getByRole('button', { name: 'שליחת הזמנה' }).count(), 1);
      assert.equal(await page.getByRole('combobox', { name: `תפקיד: ${userEmail}` }).isDisabled(), false);
      assert.equal(await page.getByTestId('team-admin-only').count(), 0);
      await axe(page, `team as admin at ${size.width}px`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
});
