import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Google sign-in on the dashboard, through the Firebase Auth emulator's google.com provider. Firebase's popup
 * needs Google's gapi script from apis.google.com even against the emulator (its account page answers through
 * it), which this machine cannot reach; so on `npm start` the Google button asks for the Google account in the
 * page and signs in with the unsigned Google ID token the emulator accepts (signInWithIdp, provider google.com).
 * The test checks the emulator recorded a google.com account and the dashboard lands on the home screen.
 */
describe('Google sign-in (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  before(async () => {
    // Its own emulator: on the shared one the owner's address already has an email-link account from other files, and a Google sign-in would meet it.
    env = await dashboardEnv({ ownEmulator: true });
  });
  after(async () => {
    await env?.close();
  });

  test('the Google button signs the owner in through the emulator\'s google.com provider and lands on the home screen', async () => {
    const { context, page, problems } = await env.context();
    await page.goto(env.origin + '/');
    await page.getByRole('button', { name: 'כניסה עם Google' }).click();
    await page.getByLabel('כתובת חשבון Google').fill(env.owner.email);
    await axe(page, 'Google sign-in through the emulator');
    await page.getByRole('button', { name: 'המשך עם Google' }).click();
    await page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
    assert.match((await page.textContent('header')) ?? '', /Studio Dana/);
    assert.equal(new URL(page.url()).pathname, '/');
    // The emulator recorded a google.com account for the owner: the sign-in really went through that provider.
    const users = (await (
      await fetch(`${env.authOrigin}/identitytoolkit.googleapis.com/v1/projects/${env.project}/accounts:query`, {
        method: 'POST',
        headers: { authorization: 'Bearer owner', 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { userInfo?: { email: string; providerUserInfo?: { providerId: string }[] }[] };
    const owner = users.userInfo?.find((u) => u.email === env.owner.email);
    assert.deepEqual(owner?.providerUserInfo?.map((p) => p.providerId), ['google.com']);
    await axe(page, 'home after Google sign-in');

    // Signed in for the API as well: a reload keeps the session and the API answers for this business.
    await page.reload();
    await page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
    assert.deepEqual(problems, [], 'console errors or failed requests');
    await context.close();
  });
});
