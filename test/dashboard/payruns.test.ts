import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { fillBank, skipBrowser, submit } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 36 §4, payment runs in the dashboard: "To pay" lists the ready payments by approval state with their due
 * dates; the home lists what is due this week; a selection holding a payment that still needs approval is refused
 * whole, the reason next to that payment and nothing created; without it the run is created with a pay date and a
 * note; the run's page shows the server's totals to the agora, its payments with masked accounts, and the MASAV file,
 * whose download is 128-character records agreeing with the totals; marking the run paid (confirmed) makes the
 * payments paid. At 360 px, axe clean, in Hebrew and English, no console error or failed request.
 */
const israelDay = (plusDays = 0) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem' }).format(new Date(Date.now() + plusDays * 86_400_000));

describe('payment runs in the dashboard (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  const ids: Record<string, string> = {};
  // The owner signs in once for the file (a second email-link sign-in of the same address waits for a link in vain).
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  before(async () => {
    env = await dashboardEnv();
    await env.api('updateBusiness', { masavInstitutionId: '12345678', masavSenderId: '54321' });
    // Payments of 5,000.00 and more need an admin's approval.
    await env.api('approvalPolicySet', { thresholdAgorot: 500_000, approvalsRequired: 1 });
    const payments = [
      { key: 'noa', supplierName: 'נועה לוי', amountAgorot: 45_000, supplierPhone: '0521111111', bank: { code: '12', branch: '345', account: '678901', beneficiary: 'נועה לוי' } },
      { key: 'avi', supplierName: 'Avi Print', amountAgorot: 123_456, supplierPhone: '0522222222', dueDate: israelDay(3), bank: { code: '10', branch: '800', account: '555012', beneficiary: 'Avi Print' } },
      { key: 'dana', supplierName: 'דנה עיצובים', amountAgorot: 30_000, supplierPhone: '0523333333', bank: { code: '11', branch: '101', account: '123456789', beneficiary: 'דנה כהן' } },
      { key: 'yossi', supplierName: 'יוסי שיפוצים', amountAgorot: 700_000, supplierPhone: '0524444444', bank: { code: '20', branch: '555', account: '998877', beneficiary: 'יוסי לוי' } },
    ];
    const s = await env.context();
    for (const p of payments) {
      const made = await env.api('createPayment', { amountAgorot: p.amountAgorot, vatIncluded: true, description: 'עבודה לנובמבר', supplierName: p.supplierName, supplierPhone: p.supplierPhone, channel: 'link', invoiceRequired: false, ...(p.dueDate ? { dueDate: p.dueDate } : {}) });
      ids[p.key] = made.id;
      await s.page.goto(made.link);
      await fillBank(s.page, p.bank);
      await submit(s.page);
    }
    await s.context.close();
    // Unpaid and past its due date (the supplier has not filled the link yet): overdue on the home screen.
    ids.late = (await env.api('createPayment', { amountAgorot: 80_000, vatIncluded: true, description: 'קייטרינג', supplierName: 'ליאת קייטרינג', supplierPhone: '0526666666', channel: 'link', dueDate: israelDay(-2) })).id;
    for (const k of Object.keys(ids).filter((k) => k !== 'late')) assert.equal((await env.api('paymentGet', { paymentId: ids[k] })).status, 'ready', k);
    owner = await env.context();
    await env.signIn(owner.page, env.owner.email, '/');
  });
  after(async () => {
    await env?.close();
  });

  test('home → To pay → all-or-nothing refusal → run → MASAV file → marked paid', async () => {
    const { page, problems } = owner;
    // Due this week, on the home screen, with the way to "To pay".
    const week = page.getByTestId('due-week');
    await week.getByText('Avi Print').waitFor();
    // The overdue one first, in red words; then what is due this week.
    const lines = await week.locator('p').allInnerTexts();
    assert.match(lines[0], /^באיחור: היה לתשלום עד /);
    assert.match(lines[1], /^לתשלום עד /);
    await axe(page, 'home with payments due');
    await week.getByRole('link', { name: 'לדף "לתשלום"' }).click();
    await page.waitForURL(/\/pay$/);

    const pending = page.getByTestId('group-pending');
    const approved = page.getByTestId('group-approved');
    await pending.getByText('יוסי שיפוצים').waitFor();
    assert.equal(await approved.getByTestId('pay-row').count(), 3);
    assert.match(await approved.locator('[data-payment="' + ids.avi + '"]').getByTestId('due').innerText(), /^לתשלום עד /);
    await axe(page, 'To pay');
    await shoot(page, 'pay');

    // Every approved one (select all, from the keyboard) and the one awaiting approval: refused whole.
    const all = approved.getByRole('checkbox', { name: 'בחירת כל התשלומים בקבוצה "מאושרים או לא דורשים אישור"' });
    await all.focus();
    await page.keyboard.press('Space');
    assert.equal(await all.isChecked(), true);
    await pending.getByRole('checkbox', { name: 'בחירת התשלום ליוסי שיפוצים' }).check();
    const create = page.getByTestId('create-run');
    assert.match(await create.getByTestId('selection').innerText(), /נבחרו 4/);
    await create.getByRole('button', { name: 'יצירת האצווה' }).click();
    await create.getByTestId('run-refused').waitFor();
    assert.equal(await pending.locator(`[data-payment="${ids.yossi}"]`).getByTestId('refusal').innerText(), 'התשלום לא אושר: ממתין לאישור, נדחה, או השתנה מאז שאושר');
    assert.equal(await approved.getByTestId('refusal').count(), 0, 'only the refused payment says so');
    assert.deepEqual((await env.api('payRunsList', {})).items, [], 'nothing was created');
    await axe(page, 'To pay, refused');
    await shoot(page, 'pay-refused');
    // The refusal, as the network and the console report it, is the one asked for.
    const refusal = (x: string) => /HTTP 412: POST .*\/v1\/payRunCreate$|HTTP 400: POST .*\/v1\/payRunCreate$/.test(x) || /^console error: Failed to load resource: the server responded with a status of 4\d\d/.test(x);
    assert.deepEqual(problems.filter((x) => !refusal(x)), []);
    problems.length = 0;

    // Without it: the run, with its note and the default pay date (Avi's due date is the earliest).
    await pending.getByRole('checkbox', { name: 'בחירת התשלום ליוסי שיפוצים' }).uncheck();
    assert.match(await create.getByTestId('selection').innerText(), /נבחרו 3/);
    await create.getByRole('textbox', { name: 'הערה (לא חובה)' }).fill('ספקים של נובמבר');
    await create.getByRole('button', { name: 'יצירת האצווה' }).click();
    await page.waitForURL(/\/pay\/runs\/[^/]+$/);
    const runId = page.url().split('/').pop()!;
    const run = await env.api('payRunGet', { runId });
    assert.equal(run.payDate, israelDay(3));
    assert.equal(run.note, 'ספקים של נובמבר');
    assert.deepEqual(run.items.map((i: any) => i.paymentId).sort(), [ids.noa, ids.avi, ids.dana].sort());

    // Totals: exactly the server's agorot (450.00 + 1,234.56 + 300.00), as the other screens write money.
    const totals = page.getByTestId('run-totals');
    await totals.getByText(/1,984\.56/).waitFor();
    // As every screen writes money: the same formatter, so the same text as 198,456 agorot anywhere else.
    assert.equal(await totals.locator('bdi').first().innerText(), new Intl.NumberFormat('he-IL', { style: 'currency', currency: 'ILS', minimumFractionDigits: 2 }).format(1984.56));
    assert.deepEqual(run.totals, [{ currency: 'ILS', count: 3, totalAgorot: 198_456 }]);
    const items = page.getByTestId('run-items');
    assert.match(await items.locator(`[data-payment="${ids.noa}"]`).innerText(), /מס"ב · בנק \u2066?12-345 ••••901/);
    assert.doesNotMatch(await items.innerText(), /678901|555012|123456789/, 'accounts shown masked');

    // The MASAV file: fixed 128-character records, CRLF, K header, one 1 record per payment, a 5 trailer, 128 nines.
    const link = page.getByTestId('run-files').locator('a[data-kind="masav"]');
    assert.equal(await link.innerText(), 'קובץ זיכויים למס"ב');
    const res = await fetch(new URL((await link.getAttribute('href'))!, env.origin));
    assert.equal(res.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('latin1');
    assert.ok(text.endsWith('\r\n'));
    const records = text.slice(0, -2).split('\r\n');
    assert.deepEqual(records.map((r) => r.length), [128, 128, 128, 128, 128, 128]);
    assert.deepEqual(records.map((r) => r[0]), ['K', '1', '1', '1', '5', '9']);
    assert.equal(records[5], '9'.repeat(128));
    // The fields at the layout's positions (functions/src/domain/payruns/masav.ts): the header's institution code
    // and pay date; each payment's bank, branch, account and amount; the trailer's total and count.
    assert.equal(records[0].slice(1, 9), '12345678');
    assert.equal(records[0].slice(11, 17), israelDay(3).slice(2).replaceAll('-', ''));
    const rows = records.slice(1, 4).map((r) => ({ bank: r.slice(17, 19), branch: r.slice(19, 22), account: r.slice(26, 35), agorot: Number(r.slice(61, 74)) }));
    assert.deepEqual(rows.sort((x, y) => x.agorot - y.agorot), [
      { bank: '11', branch: '101', account: '123456789', agorot: 30_000 },
      { bank: '12', branch: '345', account: '000678901', agorot: 45_000 },
      { bank: '10', branch: '800', account: '000555012', agorot: 123_456 },
    ]);
    assert.deepEqual([Number(records[4].slice(21, 36)), Number(records[4].slice(51, 58))], [198_456, 3], "the trailer agrees with the run's total");
    await axe(page, 'the run');
    await shoot(page, 'pay-run');

    // One payment first (the bank paid it alone): the run is partly paid.
    await items.getByRole('checkbox', { name: 'בחירת התשלום לנועה לוי' }).check();
    await page.getByRole('button', { name: 'סימון הנבחרים כשולמו (1)' }).click();
    await page.getByRole('dialog', { name: 'לסמן את התשלומים שנבחרו כשולמו?' }).getByRole('button', { name: 'סימון הנבחרים כשולמו (1)' }).click();
    await page.getByTestId('run-status').getByText('שולמה בחלקה', { exact: true }).waitFor();
    assert.deepEqual(await Promise.all(['noa', 'avi'].map(async (k) => (await env.api('paymentGet', { paymentId: ids[k] })).status)), ['paid', 'ready']);
    assert.equal(await items.getByRole('checkbox', { name: 'בחירת התשלום לנועה לוי' }).count(), 0, 'a paid payment is not picked again');

    // Then the whole run, after the confirmation: the rest are paid, the one paid before is skipped.
    await page.getByRole('button', { name: 'סימון האצווה כשולמה' }).click();
    const dialog = page.getByRole('dialog', { name: 'לסמן את כל האצווה כשולמה?' });
    await dialog.waitFor();
    // Measured once the dialog has faded in (axe reads a half-transparent button as low contrast).
    await page.waitForTimeout(500);
    await axe(page, 'mark the run paid: the question');
    await dialog.getByRole('button', { name: 'סימון האצווה כשולמה' }).click();
    await page.getByTestId('run-status').getByText('שולמה', { exact: true }).waitFor();
    await items.getByText('שולם', { exact: true }).first().waitFor();
    for (const k of ['noa', 'avi', 'dana']) assert.equal((await env.api('paymentGet', { paymentId: ids[k] })).status, 'paid', k);
    assert.equal((await env.api('paymentGet', { paymentId: ids.yossi })).status, 'ready');
    assert.equal(await page.locator('main').getByRole('button', { name: 'סימון האצווה כשולמה' }).count(), 0, 'nothing left to mark');

    // English, one click away.
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByTestId('run-status').getByText('Paid', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Totals by currency' }).waitFor();
    assert.equal(await page.getByTestId('run-files').locator('a[data-kind="masav"]').innerText(), 'MASAV credit file');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await axe(page, 'the run, in English');
    await shoot(page, 'pay-run-en');
    await page.goto(`${env.origin}/pay`);
    await page.getByTestId('runs').getByText('Paid', { exact: true }).waitFor();
    await page.getByTestId('group-pending').getByText('יוסי שיפוצים').waitFor();
    await axe(page, 'To pay, in English');
    await page.getByRole('button', { name: 'עברית' }).click();
    await page.getByRole('heading', { name: 'לתשלום', level: 1 }).waitFor();
    assert.deepEqual(problems, []);
  });

  test('a due date set on the new-payment form and changed on the payment; without the MASAV codes the run says so and links to Settings; canceling it (confirmed) releases the payment', async () => {
    await env.api('updateBusiness', { masavInstitutionId: '', masavSenderId: '' });
    const { page, problems } = owner;
    // The new-payment form takes an optional due date.
    await page.goto(`${env.origin}/payments/new`);
    await page.getByRole('textbox', { name: 'שם הספק', exact: true }).fill('דפוס השרון');
    await page.getByRole('textbox', { name: 'טלפון של הספק', exact: true }).fill('0525555555');
    await page.getByRole('textbox', { name: 'על מה התשלום', exact: true }).fill('הדפסות');
    await page.getByRole('textbox', { name: 'סכום', exact: true }).fill('250.50');
    await page.getByLabel('תאריך לתשלום (לא חובה)').fill(israelDay(20));
    await page.getByRole('switch', { name: 'לדרוש חשבונית' }).uncheck();
    await page.getByRole('radio', { name: 'רק ליצור קישור (אשלח בעצמי)' }).check();
    await page.getByRole('button', { name: 'יצירת הקישור' }).click();
    await page.waitForURL(/\/payments\/(?!new$)[^/]+$/);
    const made = { id: page.url().split('/').pop()!, link: (await page.getByTestId('supplier-link').getAttribute('href'))! };
    assert.equal((await env.api('paymentGet', { paymentId: made.id })).dueDate, israelDay(20));
    await page.getByTestId('due-date').getByText(/^לתשלום עד /).waitFor();
    // Changed in the payment's settings.
    await page.getByRole('button', { name: 'הגדרות הבקשה' }).click();
    const settings = page.getByRole('dialog', { name: 'הגדרות הבקשה' });
    await settings.getByLabel('תאריך לתשלום (לא חובה)').fill(israelDay(5));
    await settings.getByRole('button', { name: 'שמירה' }).click();
    await settings.waitFor({ state: 'detached' });
    assert.equal((await env.api('paymentGet', { paymentId: made.id })).dueDate, israelDay(5));
    await axe(page, 'a payment with a due date');

    const s = await env.context();
    await s.page.goto(made.link);
    await fillBank(s.page, { code: '12', branch: '600', account: '246810', beneficiary: 'דפוס השרון' });
    await submit(s.page);
    await s.context.close();

    await page.goto(`${env.origin}/pay`);
    const row = page.locator(`[data-payment="${made.id}"]`);
    await row.getByRole('checkbox', { name: 'בחירת התשלום לדפוס השרון' }).check();
    await page.getByRole('button', { name: 'יצירת האצווה' }).click();
    await page.waitForURL(/\/pay\/runs\/[^/]+$/);
    const runId = page.url().split('/').pop()!;
    const warnings = page.getByTestId('run-warnings');
    assert.match(await warnings.innerText(), /לא נוצר קובץ מס"ב: חסרים בהגדרות קוד המוסד \(8 ספרות\), קוד המוסד השולח \(5 ספרות\)\./);
    assert.equal(await page.getByTestId('run-files').locator('a[data-kind="masav"]').count(), 0);
    await page.getByTestId('run-files').locator('a[data-kind="portal"]').waitFor();
    await axe(page, 'a run without a MASAV file');
    await shoot(page, 'pay-run-no-masav');
    await warnings.getByRole('link', { name: 'להגדרות התשלומים' }).click();
    await page.getByRole('heading', { name: 'קודי מס"ב' }).waitFor();
    await page.goBack();

    // Canceled after the question: the run says so and the payment is free to go into another one.
    await page.getByRole('button', { name: 'ביטול האצווה' }).click();
    const dialog = page.getByRole('dialog', { name: 'לבטל את האצווה?' });
    await dialog.getByText(/אל תעלו אותם לבנק/).waitFor();
    await dialog.getByRole('button', { name: 'ביטול האצווה' }).click();
    await page.getByTestId('run-status').getByText('בוטלה', { exact: true }).waitFor();
    assert.equal((await env.api('payRunGet', { runId })).status, 'canceled');
    const p = await env.api('paymentGet', { paymentId: made.id });
    assert.deepEqual([p.status, p.runId], ['ready', null]);
    await page.goto(`${env.origin}/pay`);
    await row.waitFor();
    assert.equal(await row.getByText('באצווה פתוחה').count(), 0);
    await page.getByTestId('runs').getByText('בוטלה', { exact: true }).waitFor();
    assert.deepEqual(problems, []);
  });
});
