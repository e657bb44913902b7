import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { fillBank, pdfFile, skipBrowser, submit } from '../surfaces/pages/browserEnv.ts';
import { mailText } from '../fakes/smtp.ts';

/**
 * Every link the service gives the owner opens a real dashboard screen: the links in the emails the SMTP test
 * server received during real flows (ready to be paid, late invoice, the public-link filing alert, the invite)
 * and the "back" links of the OAuth return pages, each opened in the signed-in dashboard. Then Settings →
 * integrations: credentials saved write-only, with the API's field-named errors under their inputs.
 */
const BANK = { code: '12', branch: '345', account: '678901', beneficiary: 'נועה לוי' };
const SERVICE = /^\/(v1|api\/v1|mcp|files|uploads|p|oauth)(\/|$)/;

describe('owner links and integrations (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  before(async () => {
    // Consent starts need a configured client; only the declined return is visited, so the values are never used.
    env = await dashboardEnv({ env: { MAILBOX_CLIENT_ID: 'test-client', MAILBOX_CLIENT_SECRET: 'test-secret', CHAT_CLIENT_ID: 'test-client', CHAT_CLIENT_SECRET: 'test-secret' } });
    owner = await env.context();
    await env.signIn(owner.page, env.owner.email);
    await owner.page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
  });
  after(async () => {
    await env?.close();
  });

  async function api(op: string, body: Record<string, unknown> = {}): Promise<any> {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, `${op}: ${JSON.stringify(json)}`);
    return json.result;
  }

  /** Dashboard links (not the service's own pages) in the mails to `to`. */
  const dashboardLinks = (to: string[]) =>
    env.smtp.mails
      .filter((m) => to.some((t) => m.to.includes(t)))
      .flatMap((m) => [...mailText(m.raw).matchAll(/https?:\/\/[^\s<>"')\]]+/g)].map((x) => x[0].replace(/[.,;]+$/, '')))
      .filter((u) => u.startsWith(env.origin) && !SERVICE.test(new URL(u).pathname));

  test('the links in the owner\'s emails and the OAuth return pages open real screens', async () => {
    const supplier = await env.context();
    const { page: sp } = supplier;
    // Ready to be paid: the supplier gives payout details and the invoice.
    const ready = await api('createPayment', { amountAgorot: 50_000, vatIncluded: true, description: 'Logo', supplierName: 'Noa Levi', supplierEmail: 'noa@example.com', channel: 'link' });
    await sp.goto(ready.link);
    await fillBank(sp, BANK);
    await sp.setInputFiles('#invoice', pdfFile('noa-1.pdf'));
    await submit(sp);
    // Late invoice: an invoice arrives on a payment already paid.
    const late = await api('createPayment', { amountAgorot: 20_000, vatIncluded: true, description: 'Print run', supplierName: 'Avi Print', supplierEmail: 'avi@example.com', channel: 'link' });
    await sp.goto(late.link);
    await fillBank(sp, { ...BANK, beneficiary: 'אבי' });
    await submit(sp);
    await api('markPaid', { paymentId: late.id });
    await sp.goto(late.link);
    await sp.setInputFiles('#invoice', pdfFile('avi-late.pdf'));
    await submit(sp);
    // A request filed by anyone through the standing public link: the alert email.
    await api('setMyPublicLink', { slug: 'studio-dana' });
    await sp.goto(`${env.origin}/p/link/studio-dana`);
    await sp.fill('#name', 'יוסי לוי');
    await sp.fill('#phone', '052-111-2222');
    await sp.fill('#amount', '800');
    await sp.fill('#description', 'תיקון מזגן');
    await fillBank(sp, { code: '10', branch: '800', account: '1234567', beneficiary: 'יוסי לוי' });
    await sp.setInputFiles('#invoice', pdfFile('yossi.pdf'));
    await submit(sp);
    await supplier.context.close();
    const filed = (await api('paymentsList', { q: 'יוסי' })).items[0];
    assert.ok(filed, 'the public filing made a payment');
    // The invite.
    await api('inviteMember', { email: 'bookkeeper@example.com', role: 'user' });

    // Every owner email arrived with its link to the dashboard.
    const want = [`/payments/${ready.id}`, `/payments/${late.id}`, `/payments/${filed.id}`];
    let links: string[] = [];
    for (const until = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 200))) {
      links = [...new Set(dashboardLinks([env.owner.email, 'bookkeeper@example.com']))];
      const paths = links.map((u) => new URL(u).pathname);
      if (want.every((w) => paths.includes(w)) && paths.some((p) => p.startsWith('/invite/'))) break;
      assert.ok(Date.now() < until, `owner emails: expected links to ${want.join(', ')} and an invite; found ${links.join(', ') || 'none'}`);
    }

    // The OAuth return pages' "back" links (a declined consent still links back to the dashboard).
    // Opened in a context of their own: a declined consent's page answers 400, as it should, and is the service's, not the app's.
    const consent = await env.context();
    const backLinks: string[] = [];
    for (const [op, body] of [['mailboxConnectStart', {}], ['chatConnectStart', { returnView: 'integrations' }]] as const) {
      const start = new URL((await api(op, body)).url);
      const back = new URL(start.searchParams.get('redirect_uri')!);
      back.searchParams.set('state', start.searchParams.get('state')!);
      back.searchParams.set('error', 'access_denied');
      const res = await consent.page.goto(back.href);
      assert.match(res!.headers()['content-type'] ?? '', /text\/html/);
      const hrefs = await consent.page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
      const mine = hrefs.filter((h) => h.startsWith(env.origin) && !SERVICE.test(new URL(h).pathname));
      assert.ok(mine.length > 0, `${op}: the return page links back to the dashboard (${hrefs.join(', ')})`);
      backLinks.push(...mine);
    }
    await consent.context.close();

    const all = [...new Set([...links, ...backLinks])];
    assert.ok(all.length >= 6, all.join(', '));
    const { page } = owner;
    for (const url of all) {
      const res = await page.goto(url);
      assert.equal(res!.status(), 200, url);
      assert.match(res!.headers()['content-type'] ?? '', /text\/html/, `${url} answers the app, not JSON`);
      // The screen's own title, past its loading state.
      const h1 = page.getByRole('heading', { level: 1 }).filter({ hasNotText: 'טוען…' }).first();
      await h1.waitFor();
      const title = (await h1.textContent())!.trim();
      assert.notEqual(title, 'לא נמצא.', `${url} opened the not-found screen`);
      assert.ok(!/^\s*[{[]/.test((await page.textContent('body')) ?? ''), `${url} shows JSON`);
      const path = new URL(page.url()).pathname;
      if (path === `/payments/${ready.id}`) assert.equal(title, 'תשלום לNoa Levi');
      if (path === `/payments/${late.id}`) assert.equal(title, 'תשלום לAvi Print');
      if (path === `/payments/${filed.id}`) assert.equal(title, 'תשלום ליוסי לוי');
      if (url.endsWith('/integrations')) assert.equal(path, '/settings/integrations');
    }
    assert.deepEqual(owner.problems, [], 'console errors or failed requests');
  });

  test('Settings → integrations: field-named errors, credentials saved write-only, edit and disconnect', async () => {
    const { page } = owner;
    await page.goto(env.origin + '/settings/integrations');
    const add = page.getByRole('form', { name: 'חיבור תוכנה חדשה' });
    // A software not in the list: "other" asks for its id.
    await add.getByLabel('תוכנת החשבוניות').click();
    await page.getByRole('option', { name: 'תוכנה אחרת' }).click();
    await add.getByLabel('מזהה התוכנה').fill('Green Invoice');
    await add.getByLabel('מפתח API').fill('key-secret-123');
    await add.getByRole('button', { name: 'חיבור' }).click();
    // The API's reason in Hebrew, under the input it names.
    await add.getByText('הערך אינו בפורמט הנכון').waitFor();
    assert.equal(await add.getByLabel('מזהה התוכנה').getAttribute('aria-invalid'), 'true');
    await add.getByLabel('מזהה התוכנה').fill('greeninvoice');
    await add.getByLabel('מפתח API').fill('');
    await add.getByRole('button', { name: 'חיבור' }).click();
    // Under the key's input now; the provider's input is no longer marked.
    await add.locator('.mantine-PasswordInput-root', { hasText: 'שדה חובה' }).waitFor();
    assert.notEqual(await add.getByLabel('מזהה התוכנה').getAttribute('aria-invalid'), 'true');

    await add.getByLabel('מפתח API').fill('key-secret-123');
    await add.getByLabel('הערה').fill('Main account');
    await add.getByRole('button', { name: 'חיבור' }).click();
    const card = page.getByTestId('integration-greeninvoice');
    await card.waitFor();
    assert.match((await card.textContent()) ?? '', /מפתח API:\s*שמור/);
    assert.match((await card.textContent()) ?? '', /סוד API:\s*לא הוגדר/);
    assert.match((await card.textContent()) ?? '', /Main account/);
    // Write-only: the value is nowhere on the page, not even in the emptied inputs.
    assert.equal(await add.getByLabel('מפתח API').inputValue(), '');
    assert.ok(!(await page.content()).includes('key-secret-123'), 'the stored key is shown back');
    await axe(page, 'settings-integrations with a provider');
    await shoot(page, 'settings-integrations-provider');

    // Edit: add the secret; the key stays as stored when its input is left empty.
    await card.getByRole('button', { name: 'עריכה greeninvoice' }).click();
    await card.getByLabel('סוד API').fill('secret-456');
    await card.getByRole('button', { name: 'שמירה' }).click();
    await card.getByText(/סוד API:\s*שמור/).waitFor();
    assert.ok(!(await page.content()).includes('secret-456'));
    const b = await api('getBusiness');
    assert.deepEqual(b.integrations.map((i: any) => [i.provider, i.hasApiKey, i.hasApiSecret, i.note]), [['greeninvoice', true, true, 'Main account']]);

    await card.getByRole('button', { name: 'ניתוק greeninvoice' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByText('עוד לא חוברה תוכנת הנהלת חשבונות.').waitFor();
    assert.deepEqual((await api('getBusiness')).integrations, []);
    // The two refusals above were asked for: their 400s (and Chromium's console line for each) are not failures.
    const refused = owner.problems.filter((p) => /HTTP 400: POST .*\/v1\/saveBusinessIntegration/.test(p)).length;
    assert.equal(refused, 2);
    let consoleLines = 0;
    const rest = owner.problems.filter((p) => !/HTTP 400: POST .*\/v1\/saveBusinessIntegration/.test(p) && !(/status of 400/.test(p) && ++consoleLines <= refused));
    assert.deepEqual(rest, [], 'console errors or failed requests');
  });
});
