import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { fillBank, pdfFile, skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { mailText } from '../fakes/smtp.ts';

/**
 * The owner's dashboard in a browser against the server `npm start` runs, signed in through the Firebase Auth
 * emulator: the nine flows of issue 22, axe on every screen, screenshots at 360 and 1280 px in test-artifacts/,
 * and no console error or failed request anywhere.
 */
const BANK = { code: '12', branch: '345', account: '678901', beneficiary: 'דנה כהן' };
const reading = (name: string, number: string, total: number) => ({
  issuer: { name, vatId: '', email: '', phone: '' },
  docType: 'tax_invoice',
  number,
  date: '2026-03-10',
  total,
  currency: 'ILS',
  vat: 0,
  payMethod: '',
  cardEnding: '',
  lineItems: [],
  bank: null,
  allocationNumber: '',
});

async function mailTo(env: DashboardEnv, to: string, text: RegExp): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const found = env.smtp.mails.map((m) => ({ to: m.to, text: mailText(m.raw) })).filter((m) => m.to.includes(to) && text.test(m.text));
    if (found.length) return found[found.length - 1].text;
    if (Date.now() > until) throw new Error(`no mail to ${to} matching ${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens a screen, waits for it to settle, then axe and the screenshots. */
async function screen(page: Page, origin: string, path: string, name: string, ready: () => Promise<unknown>) {
  if (path) await page.goto(origin + path);
  await ready();
  // Lets late parts of the screen (the other queries) render before axe looks; a PDF preview keeps the network busy, so no networkidle.
  await page.waitForLoadState('load');
  await page.waitForTimeout(300);
  await axe(page, name);
  await shoot(page, name);
}

describe('the owner\'s dashboard (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  let paymentId = '';
  const problems: string[][] = [];

  before(async () => {
    env = await dashboardEnv();
    owner = await env.context();
    problems.push(owner.problems);
  });
  after(async () => {
    await env?.close();
  });
  const noProblems = () => assert.deepEqual(problems.flat(), [], 'console errors or failed requests');

  test('1. sign in through the email link; the sign-in page and the home pass axe', async () => {
    const { page } = owner;
    await page.goto(env.origin + '/');
    await page.getByRole('button', { name: 'שליחת קישור כניסה' }).waitFor();
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    await axe(page, 'sign-in');
    await shoot(page, 'sign-in');
    await env.signIn(page, env.owner.email);
    await screen(page, env.origin, '', 'home', () => page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor());
    assert.match(await page.textContent('header') ?? '', /Studio Dana/);
    noProblems();
  });

  test('2. create a payment: "1,250.50" becomes 125050 agorot, the preview shows it with VAT', async () => {
    const { page } = owner;
    await screen(page, env.origin, '/payments/new', 'payment-new', () => page.getByRole('heading', { name: 'בקשת תשלום חדשה' }).waitFor());
    await page.getByLabel('שם הספק').fill('Dana Cohen');
    await page.getByLabel('דוא"ל של הספק').fill('supplier@example.com');
    await page.getByLabel('על מה התשלום').fill('Kitchen shelves');
    await page.getByLabel('סכום').first().fill('1,250.50');
    const preview = page.getByTestId('preview');
    await preview.getByText('1,250.50').waitFor();
    assert.match(await preview.textContent() ?? '', /190\.75/, 'VAT of an amount that includes it: 125050 × 18/118');
    // Before VAT: the figure is what will be paid (₪1,475.59), as the supplier's page shows it.
    await page.getByRole('switch', { name: 'כולל מע"מ' }).uncheck({ force: true });
    await preview.getByText('1,475.59').waitFor();
    // In dollars no Israeli VAT applies by default: no VAT line, the amount is the figure.
    await page.getByText('USD', { exact: true }).click();
    await preview.getByText('ללא מע"מ').waitFor();
    assert.doesNotMatch(await preview.textContent() ?? '', /225\.09|1,475\.59/);
    await page.getByText('ILS', { exact: true }).click();
    await page.getByRole('switch', { name: 'כולל מע"מ' }).check({ force: true });
    await preview.getByText('190.75').waitFor();
    await page.getByRole('button', { name: 'יצירה ושליחה' }).click();
    await page.waitForURL(/\/payments\/(?!new$)[^/]+$/);
    paymentId = new URL(page.url()).pathname.split('/').pop()!;
    await screen(page, env.origin, '', 'payment', () => page.getByRole('heading', { name: 'תשלום לDana Cohen' }).waitFor());
    const stored = await fetch(`${env.origin}/v1/paymentGet?paymentId=${paymentId}`, { headers: { authorization: `Bearer ${env.owner.apiKey}` } }).then((r) => r.json() as Promise<any>);
    assert.equal(stored.result.amountAgorot, 125050);
    assert.equal(stored.result.currency, 'ILS');
    noProblems();
  });

  test('3 and 4. the supplier fills the link in a second context; home shows the payment ready without a reload', async () => {
    const { page } = owner;
    const link = await page.getByTestId('supplier-link').getAttribute('href');
    await page.goto(env.origin + '/');
    await page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
    // The supplier's invoice is read as ₪606.00 against a ₪1,250.50 payment (issue 34 B8).
    env.gemini.answer((r) => r.inline.length > 0, { text: JSON.stringify(reading('Dana Cohen', '17', 606)) });
    const supplier = await env.context();
    await supplier.page.goto(link!);
    await fillBank(supplier.page, BANK);
    await supplier.page.setInputFiles('#invoice', pdfFile('חשבונית 17.pdf'));
    await Promise.all([supplier.page.waitForNavigation(), supplier.page.click('form button[type=submit]')]);
    await supplier.context.close();
    // The home polls: the same page, never reloaded, shows the payment under "ready" with its total.
    const ready = page.getByTestId('ready');
    await ready.getByText('Dana Cohen').waitFor({ timeout: 20_000 });
    assert.match(await ready.textContent() ?? '', /1,250\.50/);
    // Once read, the card and the home say the invoice does not match the payment.
    await ready.getByText('החשבונית לא תואמת').waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId('reading-mismatch').textContent() ?? '', /תשלומים שהחשבונית שלהם לא תואמת את הסכום או את המטבע: 1\./);
    // The supplier's invoice is listed by its Hebrew name with "17.pdf" kept in order (a left-to-right island):
    // plain isolation would show "pdf.17 חשבונית".
    const name = page.locator('bdi[dir=rtl]', { hasText: 'חשבונית' }).first();
    await name.waitFor();
    assert.equal(await name.locator('bdi[dir=ltr]').textContent(), '17.pdf');
    await axe(page, 'home with a ready payment');
    await shoot(page, 'home-ready');
    noProblems();
  });

  test('9. the "ready to be paid" email links to the payment\'s page', async () => {
    const text = await mailTo(env, env.owner.email, /התשלום אל .* מוכן/);
    const url = /(http\S+\/payments\/\S+)/.exec(text)![1];
    assert.equal(url, `${env.origin}/payments/${paymentId}`);
    const { page } = owner;
    await page.goto(url);
    await page.getByRole('heading', { name: 'תשלום לDana Cohen' }).waitFor();
    assert.match(await page.getByTestId('payout').textContent() ?? '', /•••901/, 'the account is masked until revealed');
    assert.match(await page.getByTestId('reading-mismatch').textContent() ?? '', /הסכום שנקרא בחשבונית שונה מסכום התשלום/);
    assert.doesNotMatch(await page.getByTestId('reading-mismatch').textContent() ?? '', /המטבע/);
    await page.getByRole('button', { name: 'הצגת הפרטים' }).click();
    assert.match(await page.getByTestId('payout').textContent() ?? '', /678901/);
    noProblems();
  });

  test('5. mark it paid with a proof', async () => {
    const { page } = owner;
    await page.getByRole('button', { name: 'סימון כשולם' }).click();
    await page.getByRole('dialog').waitFor();
    await axe(page, 'mark-paid dialog');
    await page.getByRole('dialog').locator('input[type=file]').setInputFiles(pdfFile('transfer.pdf'));
    await page.getByRole('dialog').getByRole('button', { name: 'סימון כשולם' }).click();
    await page.getByText('שולם', { exact: true }).first().waitFor();
    await page.getByRole('link', { name: 'transfer.pdf' }).waitFor();
    const stored = await fetch(`${env.origin}/v1/paymentGet?paymentId=${paymentId}`, { headers: { authorization: `Bearer ${env.owner.apiKey}` } }).then((r) => r.json() as Promise<any>);
    assert.equal(stored.result.status, 'paid');
    assert.equal(stored.result.proof.fileName, 'transfer.pdf');
    noProblems();
  });

  test('6. upload three invoices, one a duplicate: the readings and the duplicate show', async () => {
    const { page } = owner;
    env.gemini.answer(
      (r) => r.inline.length > 0,
      (r) => {
        const tag = r.inline[0].bytes.toString('latin1');
        return { text: JSON.stringify(tag.includes('electric') ? reading('Israel Electric', '501', 420) : reading('Bezeq', '777', 99.9)) };
      },
    );
    await screen(page, env.origin, '/invoices', 'invoices', () => page.getByRole('heading', { name: 'חשבוניות', level: 1 }).waitFor());
    await page.getByTestId('upload-input').setInputFiles([pdfFile('electric.pdf', 'electric'), pdfFile('bezeq.pdf', 'bezeq'), pdfFile('electric-again.pdf', 'electric')]);
    const rows = page.getByTestId('upload-row');
    // Polled from here: the page's CSP allows no string evaluation inside it.
    let states: (string | null)[] = [];
    for (const until = Date.now() + 30_000; Date.now() < until; await page.waitForTimeout(100)) {
      states = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')));
      if (states.length === 3 && states.every((s) => s === 'done' || s === 'duplicate' || s === 'failed')) break;
    }
    assert.deepEqual(states, ['done', 'done', 'duplicate']);
    await page.getByText('electric-again.pdf כפול של מסמך קיים').waitFor();
    await page.getByTestId('invoices-list').getByText('Israel Electric').waitFor();
    await axe(page, 'invoices after upload');
    await page.getByTestId('invoices-list').getByText('Israel Electric').click();
    await screen(page, env.origin, '', 'invoice', () => page.getByTestId('reading').getByText('Israel Electric').waitFor());
    assert.match(await page.getByTestId('reading').textContent() ?? '', /501/);
    assert.match(await page.getByTestId('reading').textContent() ?? '', /420\.00/);
    noProblems();
  });

  test('7. create an API key (shown once) and call whoami with it', async () => {
    const { page } = owner;
    await screen(page, env.origin, '/settings/api', 'settings-api', () => page.getByLabel('שם המפתח').waitFor());
    await page.getByLabel('שם המפתח').fill('CLI');
    await page.getByRole('button', { name: 'יצירת מפתח' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    assert.match(key, /^bfo_/);
    const me = await fetch(`${env.origin}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json() as Promise<any>);
    assert.equal(me.result.businessId, env.owner.businessId);
    assert.equal(me.result.keyName, 'CLI');
    await page.getByText('לא נעשה בו שימוש').first().waitFor();
    noProblems();
  });

  test('8. invite a member; the invite link from the email opens the dashboard and the invitee joins', async () => {
    const { page } = owner;
    await screen(page, env.origin, '/settings/team', 'settings-team', () => page.getByLabel('דוא"ל להזמנה').waitFor());
    await page.getByLabel('דוא"ל להזמנה').fill('accountant@example.com');
    await page.getByRole('button', { name: 'שליחת הזמנה' }).click();
    await page.getByText('accountant@example.com').waitFor();
    const text = await mailTo(env, 'accountant@example.com', /\/invite\/[A-Za-z0-9_-]+/);
    const url = /(http\S+\/invite\/[A-Za-z0-9_-]+)/.exec(text)![1];
    assert.ok(url.startsWith(env.origin + '/invite/'), url);
    const invitee = await env.context();
    problems.push(invitee.problems);
    await env.signIn(invitee.page, 'accountant@example.com', url.slice(env.origin.length));
    await invitee.page.getByText('הוזמנתם להצטרף אל Studio Dana בתפקיד משתמש.').waitFor();
    await axe(invitee.page, 'invite');
    await shoot(invitee.page, 'invite');
    await invitee.page.getByRole('button', { name: 'הצטרפות' }).click();
    await invitee.page.getByRole('heading', { name: 'הצטרפתם אל Studio Dana.' }).waitFor();
    await invitee.page.getByRole('link', { name: 'ללוח הבקרה' }).click();
    await invitee.page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
    // Used once: the same link now has its own page.
    await invitee.page.goto(url);
    await invitee.page.getByRole('heading', { name: 'ההזמנה כבר נוצלה' }).waitFor();
    await invitee.context.close();
    noProblems();
  });

  test('every other screen: axe clean, no sideways scrolling at 360 px, screenshots', async () => {
    const { page } = owner;
    const h1 = (name: string) => () => page.getByRole('heading', { name, level: 1 }).waitFor();
    const screens: [string, string, () => Promise<unknown>][] = [
      ['/payments', 'payments', () => page.getByTestId('payments-list').waitFor()],
      ['/payments/incoming', 'payments-incoming', h1('תשלומים אליכם')],
      ['/suppliers', 'suppliers', h1('ספקים')],
      ['/invoices/folders', 'folders', () => page.getByRole('tree').waitFor()],
      ['/invoices/categories', 'categories', () => page.getByRole('heading', { name: 'קטגוריות', level: 2 }).waitFor()],
      ['/invoices/software', 'software', h1('חשבוניות')],
      ['/settings/profile', 'settings-profile', () => page.getByLabel('שם העסק').waitFor()],
      ['/settings/link', 'settings-link', () => page.getByLabel('הכתובת של הקישור').waitFor()],
      ['/settings/apps', 'settings-apps', () => page.getByLabel('חשבוניות').waitFor()],
      ['/settings/integrations', 'settings-integrations', () => page.getByText('רשות המסים', { exact: true }).waitFor()],
      ['/settings/notifications', 'settings-notifications', () => page.getByLabel('דוא"ל כשספק מוסר פרטים').waitFor()],
      ['/activity', 'activity', h1('פעילות')],
      ['/no-such-screen', 'not-found', h1('לא נמצא.')],
    ];
    for (const [path, name, ready] of screens) await screen(page, env.origin, path, name, ready);
    await page.goto(env.origin + '/suppliers');
    await page.getByText('Dana Cohen').first().click();
    await screen(page, env.origin, '', 'supplier', () => page.getByRole('heading', { name: 'כרטיס הספק' }).waitFor());
    // English is one click away, left to right.
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Supplier card' }).waitFor();
    assert.equal(await page.getAttribute('html', 'dir'), 'ltr');
    await screen(page, env.origin, '/', 'home-en', () => page.getByRole('heading', { name: 'What needs you' }).waitFor());
    await page.getByRole('button', { name: 'עברית' }).click();
    noProblems();
  });

  test('sign-out, and an email that belongs to no business gets its own page', async () => {
    const stranger = await env.context();
    problems.push(stranger.problems);
    await env.signIn(stranger.page, 'nobody@example.com');
    await stranger.page.getByRole('heading', { name: 'הכתובת nobody@example.com אינה שייכת לאף עסק' }).waitFor();
    await axe(stranger.page, 'no business');
    await shoot(stranger.page, 'no-business');
    await stranger.page.getByRole('button', { name: 'כניסה בכתובת אחרת' }).click();
    await stranger.page.getByRole('button', { name: 'שליחת קישור כניסה' }).waitFor();
    await stranger.context.close();
    noProblems();
  });
});
