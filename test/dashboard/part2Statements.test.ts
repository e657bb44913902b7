import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { startFakeGmail, gmailEnv, type FakeGmail } from '../fakes/gmail.ts';
import { invoicePdf } from '../fakes/pdfs.ts';
import { mailText } from '../fakes/smtp.ts';
import { addMonths, currentMonth } from '../../functions/src/domain/months.ts';

/**
 * The dashboard's part 2 (statements, mailboxes, automations) in a browser against the server `npm start` runs,
 * signed in through the Auth emulator, with the fake Stripe and the fake Gmail (its consent and our return page):
 * issue 19's flows 1, 2 and 3, axe on each screen and screenshots at 360 and 1280 px; no console error or failed request.
 */
const KEY = 'rk_test_51DashboardRestricted';
const MAILS = 40;
const last = addMonths(currentMonth(Date.now()), -1);

async function screen(page: Page, env: DashboardEnv, path: string, name: string, ready: () => Promise<unknown>) {
  if (path) await page.goto(env.origin + path);
  await ready();
  await page.waitForLoadState('load');
  await page.waitForTimeout(300);
  await axe(page, name);
  await shoot(page, name);
}

/** Polls a condition from here (the page's CSP allows no string evaluation inside it). */
async function until<T>(what: string, f: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('dashboard part 2: statements, mailboxes, automations (browser, npm start, provider fakes)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let stripe: FakeStripe;
  let gmail: FakeGmail;
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;

  before(async () => {
    [stripe, gmail] = await Promise.all([startFakeStripe(), startFakeGmail()]);
    stripe.keys.set(KEY, new Set(['reporting', 'account']));
    stripe.dataAvailable = { start: Date.parse(`${addMonths(last, -1)}-01T00:00:00Z`) / 1000, end: Date.parse(`${addMonths(last, 1)}-01T00:00:00Z`) / 1000 };
    // 40 mails of the last days, each with its own invoice PDF; every message answers after 250 ms, so the import takes a few seconds.
    const now = Date.now();
    for (let i = 0; i < MAILS; i++) {
      const bytes = await invoicePdf({ number: `M-${i}`, issuer: `Supplier ${i}` });
      gmail.add({ id: `mail${i}`, from: `Supplier ${i} <s${i}@supplier.example>`, subject: `Invoice M-${i}`, dateMs: now - (i + 1) * 3_600_000, body: { mimeType: 'multipart/mixed', parts: [{ mimeType: 'text/plain', data: Buffer.from('attached') }, { mimeType: 'application/pdf', data: bytes, filename: `m${i}.pdf` }] } });
    }
    gmail.delayMs = 250;
    // The dashboard itself is the consent's origin (DASHBOARD_URL defaults to the server's); the test origins are not needed.
    const { ALLOWED_ORIGINS: _, ...mailbox } = gmailEnv(gmail);
    env = await dashboardEnv({ env: { ...mailbox, CARDPROC_BASE_URL: stripe.baseUrl, MAILBOX_IMPORT_PARALLELISM: '2' } });
    let n = 0;
    env.gemini.answer(
      (r) => r.inline.length > 0,
      () => ({
        text: JSON.stringify({
          issuer: { name: `Supplier ${++n}`, vatId: '', email: '', phone: '' },
          docType: 'tax_invoice',
          number: `M-${n}`,
          date: new Date().toISOString().slice(0, 10),
          total: 117,
          currency: 'ILS',
          vat: 17,
          payMethod: '',
          cardEnding: '',
          lineItems: [],
          bank: null,
          allocationNumber: '',
        }),
      }),
    );
    owner = await env.context();
    await env.signIn(owner.page, env.owner.email);
    await owner.page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
  });
  after(async () => {
    await env?.close();
    await Promise.all([stripe?.close(), gmail?.close()]);
  });
  const noProblems = () => assert.deepEqual(owner.problems, [], 'console errors or failed requests');

  test('1. connect Stripe with a restricted key, sync the last closed month, download its ZIP', async () => {
    const { page } = owner;
    await screen(page, env, '/statements', 'statements-empty', () => page.getByText('עדיין לא חובר אף מקור').waitFor());
    await page.getByRole('link', { name: 'דפי חשבון' }).first().waitFor();
    await page.getByRole('button', { name: 'חיבור מקור' }).click();
    await page.waitForURL(/\/statements\/sources$/);
    const stripeCard = page.locator('#connect-cardproc');
    // What the credential is and where to get it, on the form itself.
    await stripeCard.getByText(/rk_live_… או rk_test_…/).waitFor();
    await stripeCard.getByText(/Create restricted key/).waitFor();
    // A secret key is refused with the API's reason, in the page, in Hebrew.
    await stripeCard.getByLabel('מפתח מוגבל').fill('sk_test_51Secret');
    await stripeCard.getByRole('button', { name: 'חיבור' }).click();
    await stripeCard.getByRole('alert').getByText(/מפתח סודי נותן גישה מלאה/).waitFor();
    // That refusal is the one failed request this test expects; any other still fails it.
    assert.deepEqual(owner.problems.splice(0), [`HTTP 400: POST ${env.origin}/v1/cardprocConnect`, 'console error: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await stripeCard.getByLabel('מפתח מוגבל').fill(KEY);
    await stripeCard.getByRole('button', { name: 'חיבור' }).click();
    await stripeCard.getByText('חובר: 1 חשבונות').waitFor();
    await page.getByTestId('account').getByText('Fake Shop · ILS').waitFor();
    assert.equal(await page.getByTestId('account').getAttribute('data-state'), 'connected');
    await screen(page, env, '', 'statements-sources', () => page.getByTestId('account').waitFor());

    await page.getByRole('tab', { name: 'חודשים' }).click();
    const month = page.locator(`[data-testid=month][data-month="${last}"]`);
    const cell = month.getByTestId('statement-cell');
    assert.equal(await cell.getAttribute('data-state'), 'none');
    await cell.getByRole('button', { name: 'סנכרון Fake Shop' }).click();
    // Pending while the reports run at Stripe, then ready with the three CSVs, without a reload.
    await until('the statement', () => cell.getAttribute('data-state'), (s) => s === 'ready');
    const files = await cell.getByRole('link').allTextContents();
    assert.equal(files.length, 3, files.join(', '));
    assert.ok(files.every((f) => f.endsWith('.csv')), files.join(', '));
    await cell.getByRole('button', { name: 'סנכרון מחדש Fake Shop' }).waitFor();

    await month.getByRole('button', { name: 'קובץ ZIP' }).click();
    const link = month.getByTestId('zip-link');
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.match(download.suggestedFilename(), /\.zip$/);
    const zip = readFileSync((await download.path())!);
    assert.equal(zip.subarray(0, 2).toString('latin1'), 'PK', 'a ZIP file');
    for (const f of files) assert.ok(zip.includes(Buffer.from(`${last}/${f}`)), `${f} of ${last} is in the ZIP`);
    await screen(page, env, '', 'statements', () => link.waitFor());
    await screen(page, env, '/statements/market', 'statements-market', () => page.getByText('Upwork לא מחובר').waitFor());
    noProblems();
  });

  test('2. connect the fake Gmail through its consent and our return page; import with a count first and a live progress bar', async () => {
    const { page } = owner;
    await screen(page, env, '/mailboxes', 'mailboxes-empty', () => page.getByText('עדיין לא חוברה תיבת דואר').waitFor());
    await page.getByRole('button', { name: 'חיבור תיבת דואר' }).first().click();
    // The provider approves and sends the browser to the service's return page, which asks before connecting.
    await page.getByRole('button', { name: 'חיבור · Connect' }).click();
    await page.getByRole('heading', { name: 'תיבת הדואר חוברה' }).waitFor();
    await page.getByRole('link', { name: 'חזרה אל לוח הבקרה' }).click();
    await page.waitForURL(env.origin + '/mailboxes');
    const box = page.getByTestId('mailbox');
    await box.getByRole('heading', { name: gmail.email }).waitFor();
    // The labels come from the mailbox.
    await box.getByLabel('תווית').click();
    await page.getByRole('option', { name: 'חשבוניות' }).waitFor();
    await page.keyboard.press('Escape');
    await screen(page, env, '', 'mailboxes', () => box.getByRole('button', { name: 'ייבוא חשבוניות' }).waitFor());

    await box.getByRole('button', { name: 'ייבוא חשבוניות' }).click();
    await box.getByTestId('import-estimate').getByText(`הייבוא יעבור על ${MAILS} מיילים.`).waitFor();
    await box.getByRole('button', { name: 'התחלת הייבוא' }).click();
    const progress = box.getByTestId('import');
    await progress.waitFor();
    // The bar moves while the page polls: some reading between none and all is seen before the end.
    const seen = new Set<number>();
    await until(
      'the import',
      async () => {
        const text = (await progress.getByTestId('import-count').textContent()) ?? '';
        const n = Number(/^(\d+)/.exec(text)?.[1] ?? -1);
        seen.add(n);
        return progress.getAttribute('data-status');
      },
      (s) => s !== 'running',
      120_000,
    );
    assert.equal(await progress.getAttribute('data-status'), 'done');
    assert.ok([...seen].some((n) => n > 0 && n < MAILS), `progress seen: ${[...seen].sort((a, b) => a - b).join(', ')}`);
    assert.match((await progress.textContent()) ?? '', new RegExp(`${MAILS} מתוך ${MAILS} מיילים`));
    assert.match((await progress.textContent()) ?? '', new RegExp(`חשבוניות: ${MAILS} `));
    await axe(page, 'mailboxes after the import');

    // The result per mail.
    await progress.getByRole('link', { name: 'התוצאה לכל מייל' }).click();
    await page.waitForURL(/\/mailboxes\/mails\?import=/);
    const mails = page.getByTestId('mails');
    await mails.getByText(`${MAILS} מיילים`).waitFor();
    // The import's own mails (mailsList's importId); "all mails" drops that filter.
    assert.match((await page.getByTestId('import-filter').textContent()) ?? '', /המיילים של ייבוא אחד/);
    assert.equal(await mails.locator('[data-testid=mail][data-result=imported]').count(), MAILS);
    await screen(page, env, '', 'mailboxes-mails', () => mails.waitFor());
    // A mail as the mailbox holds it: headers, its attachment, and the body in a sandboxed frame (no scripts run).
    const first = mails.locator('[data-testid=mail]').first();
    const subject = (await first.locator('bdi').first().textContent()) ?? '';
    await first.getByRole('button', { name: 'הצגת המייל' }).click();
    const view = page.getByRole('dialog').getByTestId('mail-view');
    await view.waitFor();
    assert.match((await view.textContent()) ?? '', /Supplier \d+ <s\d+@supplier\.example>/);
    assert.match((await view.textContent()) ?? '', /m\d+\.pdf/);
    const frame = view.locator('iframe');
    assert.equal(await frame.getAttribute('sandbox'), '', 'the body runs nothing');
    assert.equal(await frame.getAttribute('title'), subject);
    await page.frameLocator('iframe.mail-body').getByText('attached').waitFor();
    await axe(page, 'a mail');
    await page.keyboard.press('Escape');
    await view.waitFor({ state: 'detached' });
    noProblems();
  });

  test('3. the statements automation: recipients, run now for a month, the run in the history', async () => {
    const { page } = owner;
    await screen(page, env, '/automations', 'automations', () => page.getByTestId('statements-automation').waitFor());
    const auto = page.getByTestId('statements-automation');
    const recipients = auto.getByLabel('נמענים');
    await recipients.fill('accountant@example.com');
    await recipients.press('Enter');
    await auto.getByRole('button', { name: 'שמירת הנמענים' }).click();
    await until('the saved recipients', async () => (await fetch(`${env.origin}/v1/automationList`, { headers: { authorization: `Bearer ${env.owner.apiKey}` } }).then((r) => r.json() as Promise<any>)).result.items[0].config.recipients, (r: string[]) => r.includes('accountant@example.com'), 15_000);
    // The month's accountant ZIP goes out with the statements when the owner turns it on.
    // The switch shows the saved setting: it turns on once the update is stored and read back.
    const zipSwitch = auto.getByRole('switch', { name: 'לצרף קישור לתיק רואה החשבון של החודש' });
    await zipSwitch.click({ force: true });
    await until('the switch on screen', () => zipSwitch.isChecked(), (v) => v, 15_000);
    await until('the saved switch', async () => (await fetch(`${env.origin}/v1/automationList`, { headers: { authorization: `Bearer ${env.owner.apiKey}` } }).then((r) => r.json() as Promise<any>)).result.items[0].config.includeAccountantZip, (v: boolean) => v === true, 15_000);
    await auto.getByRole('button', { name: 'הרצה עכשיו' }).click();
    const run = page.getByTestId('runs').getByTestId('run').first();
    await run.waitFor();
    await until('the run', () => run.getAttribute('data-status'), (s) => s === 'done', 120_000);
    const text = (await run.textContent()) ?? '';
    assert.match(text, /ידני/, 'a manual run');
    assert.match(text, /Fake Shop/, 'the account it pulled');
    assert.match(text, /1 מתוך 1 חשבונות הסתיימו/);
    assert.match(text, /accountant@example\.com/, 'whom the package was mailed to');
    // The mail went out through the outbox to the recipient.
    const [mail] = await until('the package mail', async () => env.smtp.mails.filter((m) => m.to.includes('accountant@example.com')).map((m) => mailText(m.raw)), (t) => t.length > 0, 30_000);
    assert.match(mail, /החבילה לרואה החשבון של/, "the month's accountant ZIP is linked");
    await axe(page, 'automations with a run');
    await shoot(page, 'automations-run');
    noProblems();
  });
});
