import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { startFakeGmail, gmailEnv, type FakeGmail } from '../fakes/gmail.ts';

/**
 * Issue 35 items 8 and 13: built-in folders, categories and Gmail's system labels read in the chosen language
 * (a folder the owner renamed stays as typed), and the invoicing software is chosen from a list. One server.
 */
describe('names in the chosen language; invoicing software from a list (browser, npm start, fake Gmail)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let gmail: FakeGmail;
  let page: Page;
  let problems: string[];
  const api = async (op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.result;
  };
  /** axe at both widths, back at 360 px. */
  const both = async (name: string) => {
    await axe(page, `${name} at 360 px`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page, `${name} at 1280 px`);
    await page.setViewportSize({ width: 360, height: 780 });
  };

  before(async () => {
    gmail = await startFakeGmail();
    // Gmail lists its system labels with their ids as names (users.labels.list, type "system").
    gmail.labels.push({ id: 'CATEGORY_PERSONAL', name: 'CATEGORY_PERSONAL', type: 'system' });
    const { ALLOWED_ORIGINS: _, ...mailbox } = gmailEnv(gmail);
    env = await dashboardEnv({ env: mailbox });
    await api('foldersList', {});
    // A built-in the owner renamed: their name stays in both languages.
    await api('folderRename', { id: 'petty-cash', name: 'Cash box' });
    ({ page, problems } = await env.context());
    await env.signIn(page, env.owner.email, '/mailboxes');
    await page.getByRole('button', { name: 'חיבור תיבת דואר' }).first().click();
    await page.getByRole('button', { name: 'חיבור · Connect' }).click();
    await page.getByRole('link', { name: 'חזרה אל לוח הבקרה' }).click();
    await page.waitForURL(env.origin + '/mailboxes');
  });
  after(async () => {
    await env?.close();
    await gmail?.close();
  });

  for (const lang of ['he', 'en'] as const) {
    const w =
      lang === 'he'
        ? { general: 'כללי', office: 'ציוד משרדי', label: 'תווית', inbox: 'דואר נכנס', primary: 'ראשי', software: 'תוכנת החשבוניות', icount: 'iCount', other: 'תוכנה אחרת', key: 'מפתח API', connect: 'חיבור' }
        : { general: 'General', office: 'Office supplies', label: 'Label', inbox: 'Inbox', primary: 'Primary', software: 'Invoicing software', icount: 'iCount', other: 'Other software', key: 'API key', connect: 'Connect' };

    test(`${lang}: built-in folder and category, Gmail system labels, the software list`, async () => {
      if (lang === 'en') {
        await page.getByRole('button', { name: 'English' }).click();
        await page.locator('html[lang="en"]').waitFor({ state: 'attached' });
      }
      await page.goto(`${env.origin}/invoices/folders`);
      const tree = page.getByRole('tree');
      await tree.getByText(new RegExp(`^${w.general} \\(`)).waitFor();
      await tree.getByText(/^Cash box \(/).waitFor();
      await both(`folders (${lang})`);

      await page.goto(`${env.origin}/invoices/categories`);
      await page.getByText(w.office, { exact: true }).waitFor();
      await both(`categories (${lang})`);

      await page.goto(`${env.origin}/mailboxes`);
      const box = page.getByTestId('mailbox');
      await box.getByLabel(w.label).click();
      await page.getByRole('option', { name: w.inbox, exact: true }).waitFor();
      await page.getByRole('option', { name: w.primary, exact: true }).waitFor();
      assert.equal(await page.getByRole('option', { name: /^(INBOX|SENT|CATEGORY_PERSONAL)$/ }).count(), 0, 'a system label shown as its id');
      await page.keyboard.press('Escape');
      await both(`mailboxes (${lang})`);

      await page.goto(`${env.origin}/settings/integrations`);
      const add = page.getByRole('form', { name: lang === 'he' ? 'חיבור תוכנה חדשה' : 'Connect new software' });
      await add.getByLabel(w.software).click();
      await page.getByRole('option', { name: w.other }).waitFor();
      if (lang === 'en') {
        await page.getByRole('option', { name: w.icount }).click();
        await add.getByLabel(w.key).fill('icount-key-1');
        await add.getByRole('button', { name: w.connect }).click();
        await page.getByTestId('integration-icount').getByText('iCount', { exact: true }).waitFor();
        assert.deepEqual((await api('getBusiness', {})).integrations.map((i: any) => [i.provider, i.hasApiKey]), [['icount', true]]);
      } else {
        await page.keyboard.press('Escape');
      }
      await both(`integrations (${lang})`);
      assert.deepEqual(problems, []);
    });
  }
});
