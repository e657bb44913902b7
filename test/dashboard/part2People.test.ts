import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import JSZip from 'jszip';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { pdfFile, skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { FAKE_SLACK_CLIENT, startFakeSlack, type FakeSlack } from '../fakes/slack.ts';
import { hebrewFormPdf, PDF_FIELDS } from '../operations/signupDocs/forms.ts';

/**
 * Issue 19's people and paperwork screens in a browser against `npm start`, signed in through the Auth emulator,
 * with the fake Slack and the fake Gemini: flows 4 (import two chat members), 5 (fill a signup PDF and download it),
 * 6 (build the accountant template and download a ZIP) and 7 (the reports for last month, a figure followed to its
 * invoices). axe and screenshots at 360 and 1280 px on each screen; no console error or failed request anywhere.
 */

const pad = (n: number) => String(n).padStart(2, '0');
const today = new Date();
const lastMonthStart = new Date(today.getFullYear(), today.getMonth() - 1, 1);
const LAST_MONTH = `${lastMonthStart.getFullYear()}-${pad(lastMonthStart.getMonth() + 1)}`;
const day = (d: number) => `${LAST_MONTH}-${pad(d)}`;

const reading = (name: string, number: string, date: string, total: number, vat: number, currency = 'ILS') => ({
  issuer: { name, vatId: '', email: '', phone: '' },
  docType: 'tax_invoice',
  number,
  date,
  total,
  currency,
  vat,
  payMethod: '',
  cardEnding: '',
  lineItems: [],
  bank: null,
  allocationNumber: '',
});

/** Last month's invoices: two for software (ILS 118.00 with VAT 18.00, ILS 50.00), one rent (ILS 2,340.00), one software in USD. */
const INVOICES: [tag: string, r: ReturnType<typeof reading>, category: string][] = [
  ['figma', reading('Figma', 'F-1', day(3), 118, 18), 'software'],
  ['notion', reading('Notion', 'N-7', day(12), 50, 0), 'software'],
  ['landlord', reading('Dizengoff Properties', 'R-3', day(1), 2340, 340), 'rent'],
  ['github', reading('GitHub', 'G-9', day(20), 21, 0, 'USD'), 'software'],
];

/** Opens a screen, waits for it to settle, then axe and the screenshots. */
async function screen(page: Page, origin: string, path: string, name: string, ready: () => Promise<unknown>) {
  if (path) await page.goto(origin + path);
  await ready();
  await page.waitForLoadState('load');
  await page.waitForTimeout(300);
  await axe(page, name);
  await shoot(page, name);
}

describe("the owner's dashboard, part 2: employees, forms, the accountant and reports (browser, npm start)", { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let slack: FakeSlack;
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  let form: Buffer;
  const problems: string[][] = [];
  const api = async (op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, `${op}: ${JSON.stringify(json)}`);
    return json.result;
  };

  before(async () => {
    slack = await startFakeSlack({ members: 4 });
    env = await dashboardEnv({ env: { CHAT_AUTH_URL: slack.authUrl, CHAT_BASE_URL: slack.baseUrl, CHAT_CLIENT_ID: FAKE_SLACK_CLIENT.clientId, CHAT_CLIENT_SECRET: FAKE_SLACK_CLIENT.clientSecret } });
    form = await hebrewFormPdf();
    // The fake Gemini knows the test form by its bytes, and reads each test invoice by the tag at its end.
    env.gemini.answer(
      (r) => r.inline.length > 0 && !r.inline[0].bytes.equals(form),
      (r) => {
        const tag = r.inline[0].bytes.toString('latin1');
        const hit = INVOICES.find(([t]) => tag.endsWith(t));
        return hit ? { text: JSON.stringify(hit[1]) } : { status: 500, message: 'unknown test document' };
      },
    );
    env.gemini.answer((r) => Boolean(r.inline[0]?.bytes.equals(form)), {
      text: JSON.stringify({ fields: PDF_FIELDS.map((f) => ({ ...f, value: f.label === 'שם העסק' ? 'סטודיו דנה' : f.label === 'ח.פ.' ? '514512345' : '' })) }),
    });
    await api('updateBusiness', { businessName: 'סטודיו דנה', companyId: '514512345', myName: 'דנה כהן' });
    for (const [tag, , category] of INVOICES) {
      const f = pdfFile(`${tag}.pdf`, tag);
      const up = await api('uploadInvoiceDoc', { fileName: f.name, mimeType: f.mimeType, dataBase64: f.buffer.toString('base64') });
      await api('invoiceSetCategory', { docIds: [up.docId], category, remember: false });
    }
    owner = await env.context();
    problems.push(owner.problems);
    await env.signIn(owner.page, env.owner.email);
    await owner.page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
  });
  after(async () => {
    await env?.close();
    await slack?.close();
  });
  const noProblems = () => assert.deepEqual(problems.flat(), [], 'console errors or failed requests');

  test('4. connect Slack through its consent and the return page, then import two members; imported ones are marked', async () => {
    const { page } = owner;
    await screen(page, env.origin, '/employees', 'employees-empty', () => page.getByRole('button', { name: 'חיבור Slack' }).waitFor());
    await page.getByRole('button', { name: 'חיבור Slack' }).click();
    // The fake Slack approves at once and sends the browser to the service's return page, which asks to confirm.
    await page.getByRole('button', { name: /Connect/ }).click();
    await page.getByText('Acme Workspace').first().waitFor();
    await page.locator(`a[href="${env.origin}/employees"]`).first().click();
    await page.waitForURL(`${env.origin}/employees`);
    await page.getByText('מחובר לסביבת העבודה Acme Workspace', { exact: false }).waitFor();
    await page.getByRole('link', { name: 'בחירת חברים לייבוא' }).click();
    await screen(page, env.origin, '', 'employees-import', () => page.getByTestId('chat-members').getByText('Person 0001').waitFor());
    const members = page.getByTestId('chat-members');
    assert.equal(await members.getByRole('checkbox').count(), 4, 'people only: no bot, app, deactivated member or Slackbot');
    await members.getByRole('checkbox', { name: 'Person 0002' }).check();
    await members.getByRole('checkbox', { name: 'Person 0004' }).check();
    await page.getByRole('button', { name: 'ייבוא 2 נבחרים' }).click();
    await page.getByText('יובאו 2 חדשים, עודכנו 0.').waitFor();
    // The list is read again: the two are marked imported and cannot be picked twice.
    await members.locator('[data-imported="true"]').nth(1).waitFor();
    assert.equal(await members.locator('[data-imported="true"]').count(), 2);
    assert.ok(await members.getByRole('checkbox', { name: 'Person 0002' }).isDisabled());
    assert.ok(await members.getByRole('checkbox', { name: 'Person 0001' }).isEnabled());
    await axe(page, 'employees-import after import');

    await screen(page, env.origin, '/employees', 'employees', () => page.getByTestId('employees-list').getByText('Person 0004').waitFor());
    const stored = await api('employeesList', {});
    assert.deepEqual(stored.items.map((e: any) => [e.name, e.email, e.source]), [
      ['Person 0002', 'person0002@example.com', 'chat'],
      ['Person 0004', 'person0004@example.com', 'chat'],
    ]);

    // Edit the whole record: the title changes, the phone is cleared.
    await page.getByTestId('employees-list').getByText('Person 0002').click();
    await screen(page, env.origin, '', 'employee-edit', () => page.getByRole('heading', { name: 'עריכת עובד' }).waitFor());
    await page.getByLabel('תפקיד').fill('מעצבת');
    await page.getByLabel('טלפון').fill('');
    await page.getByRole('button', { name: 'שמירה' }).click();
    await page.waitForURL(`${env.origin}/employees`);
    const edited = (await api('employeesList', {})).items.find((e: any) => e.name === 'Person 0002');
    assert.equal(edited.title, 'מעצבת');
    assert.equal(edited.phone, null);
    assert.equal(edited.email, 'person0002@example.com');
    noProblems();
  });

  test('5. upload a signup PDF, see its fields boxed on the page images, edit a value, sign, generate, preview and download', async () => {
    const { page } = owner;
    await screen(page, env.origin, '/forms', 'forms', () => page.getByRole('heading', { name: 'טופסי הקמת ספק' }).waitFor());
    await page.getByTestId('form-input').setInputFiles({ name: 'טופס ספק.pdf', mimeType: 'application/pdf', buffer: form });
    await page.waitForURL(/\/forms\/[^/]+$/, { timeout: 30_000 });
    // Both pages drawn by pdf.js, each with the boxes of its fields (7 on the first page, 1 on the second).
    await page.getByTestId('form-page').nth(1).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('form-page').nth(0).getByTestId('field-box').count(), 7);
    assert.equal(await page.getByTestId('form-page').nth(1).getByTestId('field-box').count(), 1);
    // A box sits where its field is: the business name's box starts 15% down and 30% across the page.
    const pageBox = (await page.getByTestId('form-page').nth(0).boundingBox())!;
    const nameBox = (await page.getByRole('button', { name: 'שדה 1: שם העסק' }).boundingBox())!;
    assert.ok(Math.abs((nameBox.y - pageBox.y) / pageBox.height - 0.15) < 0.01, 'top at 150/1000');
    assert.ok(Math.abs((nameBox.x - pageBox.x) / pageBox.width - 0.3) < 0.01, 'left at 300/1000');
    await screen(page, env.origin, '', 'form-review', () => page.getByLabel('1. שם העסק').waitFor());
    assert.equal(await page.getByLabel('1. שם העסק').inputValue(), 'סטודיו דנה', 'the value the AI suggested');
    // A box moves the focus to its field.
    await page.getByRole('button', { name: 'שדה 3: כתובת' }).click();
    assert.equal(await page.evaluate('document.activeElement?.id'), 'field-2');
    await page.getByLabel('3. כתובת').fill('הרצל 12, תל אביב');
    await page.getByLabel('8. מספר חשבון').fill('778899');
    await page.getByRole('checkbox', { name: /אני מאשר/ }).check();
    await page.getByRole('checkbox', { name: 'ראשי תיבות בתחתית כל עמוד' }).check();
    await page.getByRole('button', { name: 'יצירת הטופס הממולא' }).click();
    const generated = page.getByTestId('generated');
    await generated.getByTestId('form-page').first().waitFor({ timeout: 30_000 });
    await axe(page, 'form-review with the filled preview');
    await shoot(page, 'form-filled');
    const [download] = await Promise.all([page.waitForEvent('download'), generated.getByTestId('download-filled').click()]);
    const file = join(mkdtempSync(join(tmpdir(), 'filled-')), 'filled.pdf');
    await download.saveAs(file);
    const bytes = readFileSync(file);
    rmSync(dirname(file), { recursive: true, force: true });
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    assert.match(download.suggestedFilename(), /filled/);
    // The values typed on the screen are in the downloaded file.
    const text = execFileSync('pdftotext', ['-layout', '-', '-'], { input: bytes }).toString();
    assert.match(text, /778899/);
    assert.match(text, /514512345/);
    const docs = await api('listSignupDocs', {});
    assert.equal(docs.docs[0].filled.length, 1);
    noProblems();
  });

  test('6. build the accountant template, move a folder by dragging it, and download a ZIP of last month', async () => {
    const { page } = owner;
    await page.goto(env.origin + '/accountant');
    await page.getByText('עדיין אין תיקיות', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'בניית העץ המומלץ' }).click();
    await page.getByText(/נוספו \d+ תיקיות/).waitFor();
    const tree = page.getByTestId('acc-tree');
    await tree.getByTestId('acc-folder').first().waitFor();
    const before = (await api('accountantFoldersList', {})).folders;
    assert.ok(before.length >= 3, 'the template made folders');
    await screen(page, env.origin, '', 'accountant', () => tree.getByTestId('acc-folder').first().waitFor());

    // Drag a top-level folder onto another: it moves below it.
    const tops = before.filter((f: any) => f.parentId === '');
    const [moving, target] = [tops[tops.length - 1], tops[0]];
    const handle = tree.locator(`[data-testid="acc-folder"][data-name="${moving.name}"]`).getByTestId('drag-handle');
    const onto = tree.locator(`[data-testid="acc-folder"][data-name="${target.name}"]`);
    // Tall enough that both folders are on screen at once (the mouse cannot reach outside the viewport).
    await page.setViewportSize({ width: 1280, height: 2400 });
    await page.evaluate('window.scrollTo(0, 0)');
    const from = (await handle.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + 10, { steps: 3 });
    const to = (await onto.boundingBox())!;
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.move(to.x + to.width / 2 + 2, to.y + to.height / 2, { steps: 2 });
    await page.mouse.up();
    await page.setViewportSize({ width: 360, height: 780 });
    await page
      .getByText(`${moving.name} הועברה אל ${target.name}.`)
      .waitFor()
      .catch(async (e) => assert.fail(`${e.message}\n${await page.locator('#main').textContent()}`));
    const after = (await api('accountantFoldersList', {})).folders;
    assert.equal(after.find((f: any) => f.id === moving.id).parentId, target.id);

    // A statements folder limited to one account (set through the API) keeps that limit when renamed on the screen,
    // and shows the account, by its id once it is no longer connected, so saving never widens it to every account.
    const stmts = after.find((f: any) => f.source?.kind === 'statements');
    assert.ok(stmts, 'the template has a statements folder');
    await api('accFolderSetSource', { id: stmts.id, source: { kind: 'statements', accountIds: ['acct_gone'] } });
    await page.reload();
    const row = tree.locator(`[data-testid="acc-folder"][data-name="${stmts.name}"]`);
    await row.getByText('1 חשבונות').waitFor();
    await row.getByRole('button', { name: 'עריכה' }).click();
    await row.getByText('acct_gone').waitFor();
    await row.getByLabel('שם התיקייה').fill(`${stmts.name} 2026`);
    await row.getByRole('button', { name: 'שמירה' }).click();
    await tree.locator(`[data-testid="acc-folder"][data-name="${stmts.name} 2026"]`).waitFor();
    const renamed = (await api('accountantFoldersList', {})).folders.find((f: any) => f.id === stmts.id);
    assert.deepEqual(renamed.source.accountIds, ['acct_gone']);

    // The ZIP of last month, with its progress while it is made, then its download link.
    await page.getByLabel('מחודש').fill(LAST_MONTH);
    await page.getByLabel('עד חודש').fill(LAST_MONTH);
    await page.getByRole('button', { name: 'הכנת ZIP' }).click();
    await page.getByTestId('zip-ready').waitFor({ timeout: 60_000 });
    await axe(page, 'accountant with a ZIP');
    await shoot(page, 'accountant-zip');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('zip-link').click()]);
    const file = join(mkdtempSync(join(tmpdir(), 'acczip-')), 'acc.zip');
    await download.saveAs(file);
    const zipBytes = readFileSync(file);
    rmSync(dirname(file), { recursive: true, force: true });
    const zip = await JSZip.loadAsync(zipBytes);
    const names = Object.keys(zip.files);
    assert.ok(names.some((n) => n.endsWith('README.txt')), names.join('\n'));
    assert.ok(names.some((n) => /Figma/i.test(n)), `the Figma invoice is in the ZIP:\n${names.join('\n')}`);
    // The moved folder is nested in the ZIP as in the tree.
    assert.ok(names.some((n) => n.startsWith(`${target.name}/${moving.name}/`)) || !names.some((n) => n.startsWith(`${moving.name}/`)), names.join('\n'));

    // And mailed to the accountant.
    await page.getByLabel('נמענים').fill('cpa@example.com');
    await page.getByRole('button', { name: 'שליחה', exact: true }).click();
    await page.getByText('נשלח אל cpa@example.com', { exact: false }).waitFor({ timeout: 60_000 });
    noProblems();
  });

  test('7. the reports for last month: totals per currency, bars per month, and a figure followed to its invoices', async () => {
    const { page } = owner;
    await screen(page, env.origin, '/reports', 'reports', () => page.getByTestId('spend-table').waitFor());
    assert.equal(await page.getByRole('button', { name: 'החודש הקודם' }).getAttribute('aria-pressed'), 'true', 'last month by default');
    const totals = await page.getByTestId('totals').textContent();
    assert.match(totals ?? '', /2,508\.00/, 'ILS: 118 + 50 + 2,340');
    assert.match(totals ?? '', /21\.00/, 'USD apart, never converted');
    // One bar per currency for the month, a link with its figure in words.
    await page.getByTestId('chart-ILS').getByRole('link').first().waitFor();
    assert.equal(await page.getByTestId('chart-ILS').getByRole('link').count(), 1);
    // Software in ILS last month: 168.00 over 2 invoices; following it lists exactly those.
    const figure = page.getByTestId('spend-table').getByRole('link', { name: /168\.00.*2/ });
    await figure.click();
    await page.waitForURL(/\/invoices\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('category'), 'software');
    assert.equal(url.searchParams.get('from'), day(1));
    const list = page.getByTestId('invoices-list');
    await list.getByText('Figma', { exact: true }).waitFor();
    await list.getByText('Notion', { exact: true }).waitFor();
    await page.waitForTimeout(300);
    const shown = await list.textContent();
    assert.doesNotMatch(shown ?? '', /Dizengoff/, 'rent is not in the software list');

    // The CSV export of the same rows.
    await page.goto(env.origin + '/reports');
    await page.getByRole('button', { name: 'ייצוא CSV' }).click();
    const href = await page.getByTestId('csv-link').getAttribute('href');
    const csv = Buffer.from(await (await fetch(href!.replace(/^https?:\/\/[^/]+/, env.origin))).arrayBuffer());
    assert.deepEqual([...csv.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
    assert.match(csv.toString('utf8'), /software,.*,ILS,2,168\.00/);
    noProblems();
  });
});
