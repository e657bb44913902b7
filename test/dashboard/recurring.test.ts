import { join } from 'node:path';
import { openSqliteStore } from '../../functions/src/adapters/sqlite/sqliteStore.ts';
import { paymentsPath } from '../../functions/src/domain/payments/payments.ts';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 39 §3, recurring requests and reminders in the dashboard: a schedule created from the form (Hebrew), a
 * refused field said under that field; listed with its cadence in words, its next date and the first request made
 * (the description's {month} filled); paused and resumed; its amount edited (the request already made keeps its
 * own); "make this recurring" from a payment, prefilled; deleted after the question (the requests made stay). The
 * payment page lists the supplier reminders sent and the next one. The reminder settings saved and refused in
 * Hebrew. At 360 px, axe clean, in Hebrew and English, no console error or failed request beyond the refusals asked for.
 */
const israelDay = (plusDays = 0) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem' }).format(new Date(Date.now() + plusDays * 86_400_000));
const heMoney = (agorot: number) => new Intl.NumberFormat('he-IL', { style: 'currency', currency: 'ILS', minimumFractionDigits: 2 }).format(agorot / 100);
const heDay = (day: string) => new Intl.DateTimeFormat('he-IL', { dateStyle: 'medium', timeZone: 'Asia/Jerusalem' }).format(new Date(`${day}T12:00:00Z`));
/** Day `dom` of the month after `day`'s (a monthly schedule starting today, today's request made). */
const nextMonthDay = (day: string, dom: number) => {
  const [y, mo] = day.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, mo, dom));
  return d.toISOString().slice(0, 10);
};
/** A refusal asked for: the 400 and the console line the browser writes for it. */
const refusal = (op: string) => (x: string) => new RegExp(`HTTP 400: POST .*/v1/${op}$`).test(x) || /^console error: Failed to load resource: the server responded with a status of 400/.test(x);

describe('recurring payments and reminders in the dashboard (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  // The owner signs in once for the file (a second email-link sign-in of the same address waits for a link in vain).
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  let cleaning: { id: string };
  const today = israelDay();
  const dom = Number(today.slice(8, 10));
  // Monthly on today's day makes today's request at once; after the 28th the form's day is the 28th (next month).
  const madeToday = dom <= 28;
  before(async () => {
    env = await dashboardEnv();
    // Sent by email (a link-only request gets no reminders: it went on no channel).
    cleaning = await env.api('createPayment', { amountAgorot: 120_000, vatIncluded: true, description: 'ניקיון המשרד', supplierName: 'שירן ניקיון', supplierEmail: 'shiran@example.com', invoiceRequired: false, payMethods: ['bank'] });
    owner = await env.context();
    await env.signIn(owner.page, env.owner.email, '/recurring');
  });
  after(async () => {
    await env?.close();
  });

  test('create from the form (a refused field under its input), listed with its next date and first request; pause, resume, edit the amount', async () => {
    const { page, problems } = owner;
    await page.getByRole('heading', { name: 'תשלומים קבועים', level: 1 }).waitFor();
    assert.equal(await page.locator('nav a[href="/recurring"]').innerText(), 'תשלומים קבועים', 'in the navigation');
    await page.getByText('אין עדיין תשלומים קבועים.').waitFor();
    await page.getByRole('button', { name: 'תשלום קבוע חדש' }).click();
    const form = page.getByTestId('schedule-form');
    await form.getByRole('textbox', { name: 'שם הספק', exact: true }).fill('מיכל הנהלת חשבונות');
    await form.getByRole('textbox', { name: 'טלפון של הספק', exact: true }).fill('0527777777');
    await form.getByRole('textbox', { name: 'על מה התשלום', exact: true }).fill('ריטיינר {month}');
    await form.getByText(/אפשר לכתוב \{month\}/).waitFor();
    await form.getByRole('textbox', { name: 'סכום', exact: true }).fill('1,500');
    // The defaults: monthly, on today's day (the 28th at most), from today.
    assert.equal(await form.getByLabel('יום בחודש (1-28)').inputValue(), String(Math.min(28, dom)));
    assert.equal(await form.getByLabel('תאריך התחלה').inputValue(), today);
    await form.getByLabel('ימים לתשלום מכל בקשה (לא חובה)').fill('10');
    // An end before the start: the server's reason, in Hebrew, under the end date.
    await form.getByLabel('תאריך סיום (לא חובה)').fill(israelDay(-5));
    await form.getByRole('button', { name: 'יצירת התשלום הקבוע' }).click();
    const endError = form.locator('.mantine-TextInput-error').filter({ hasText: 'תאריך ההתחלה אחרי תאריך הסיום' });
    await endError.waitFor();
    // Said under that input (its error is what the input describes itself by), not in a general alert.
    assert.ok(((await form.getByLabel('תאריך סיום (לא חובה)').getAttribute('aria-describedby')) ?? '').split(' ').includes((await endError.getAttribute('id'))!));
    assert.equal(await form.getByRole('alert').count(), 0);
    assert.deepEqual((await env.api('recurringList', {})).items, [], 'nothing was created');
    await axe(page, 'the recurring form with a refused end date');
    assert.deepEqual(problems.filter((x) => !refusal('recurringCreate')(x)), []);
    problems.length = 0;

    await form.getByLabel('תאריך סיום (לא חובה)').fill('');
    await form.getByRole('button', { name: 'יצירת התשלום הקבוע' }).click();
    await form.waitFor({ state: 'detached' });
    const card = page.getByTestId('schedule').filter({ hasText: 'מיכל הנהלת חשבונות' });
    await card.waitFor();
    const [s] = (await env.api('recurringList', {})).items;
    assert.deepEqual([s.cadence, s.dayOfMonth, s.startDate, s.dueInDays, s.template.amountAgorot, s.template.vatIncluded], ['monthly', Math.min(28, dom), today, 10, 150_000, true]);
    // As every screen writes money (the same formatter), the cadence in words, and the next date.
    assert.equal(await card.getByTestId('schedule-amount').innerText(), heMoney(150_000));
    assert.equal(await card.getByTestId('schedule-cadence').innerText(), `כל חודש, ב-${Math.min(28, dom)} בחודש`);
    if (madeToday) assert.equal(s.nextAt, nextMonthDay(today, dom));
    assert.equal(await card.getByTestId('schedule-next').innerText(), `הבקשה הבאה: ${heDay(s.nextAt)}`);
    if (madeToday) {
      // The first request, made today: its description with the month filled in Hebrew, due in 10 days.
      await card.getByTestId('schedule-made').getByText('בקשות שנוצרו: 1').waitFor();
      assert.equal(s.payments.length, 1);
      const p = await env.api('paymentGet', { paymentId: s.payments[0].paymentId });
      const month = new Intl.DateTimeFormat('he-IL', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${today}T12:00:00Z`));
      assert.equal(p.description, `ריטיינר ${month}`);
      assert.doesNotMatch(p.description, /\{month\}/);
      assert.deepEqual([p.totalAgorot, p.dueDate], [150_000, israelDay(10)]);
      await card.getByTestId('schedule-made').getByRole('link').click();
      await page.waitForURL(new RegExp(`/payments/${s.payments[0].paymentId}$`));
      await page.getByText(`ריטיינר ${month}`).waitFor();
      await page.goBack();
    }
    await axe(page, 'Recurring with a schedule');
    await shoot(page, 'recurring');

    // Paused: says so and why; no next date. Resumed: the next date is back.
    await card.getByRole('button', { name: 'השהיה' }).click();
    await card.getByTestId('schedule-paused').getByText('מושהה: הושהה על ידיכם').waitFor();
    assert.equal(await card.getByTestId('schedule-next').count(), 0);
    assert.deepEqual(await env.api('recurringGet', { id: s.id }).then((r: any) => [r.paused, r.pausedReason, r.nextAt]), [true, 'byUser', null]);
    await axe(page, 'a paused schedule');
    await card.getByRole('button', { name: 'חידוש' }).click();
    await card.getByTestId('schedule-next').waitFor();
    assert.equal((await env.api('recurringGet', { id: s.id })).paused, false);

    // The amount edited: future requests only (the one made keeps its 1,500.00).
    await card.getByRole('button', { name: 'עריכה' }).click();
    const dialog = page.getByRole('dialog', { name: 'עריכת התשלום הקבוע' });
    const amount = dialog.getByRole('textbox', { name: 'סכום', exact: true });
    assert.equal(await amount.inputValue(), '1500.00');
    await amount.fill('1,750.50');
    await page.waitForTimeout(400);
    await axe(page, 'editing a schedule');
    await dialog.getByRole('button', { name: 'שמירה' }).click();
    await dialog.waitFor({ state: 'detached' });
    await card.getByTestId('schedule-amount').getByText(heMoney(175_050)).waitFor();
    const edited = await env.api('recurringGet', { id: s.id });
    assert.deepEqual([edited.template.amountAgorot, edited.template.description, edited.dayOfMonth, edited.dueInDays], [175_050, 'ריטיינר {month}', Math.min(28, dom), 10]);
    if (madeToday) assert.equal((await env.api('paymentGet', { paymentId: s.payments[0].paymentId })).totalAgorot, 150_000);
    assert.deepEqual(problems, []);
  });

  test("the payment page: reminders to come; 'make this recurring' opens the form prefilled; delete after the question, the requests made stay", async () => {
    const { page, problems } = owner;
    await page.goto(`${env.origin}/payments/${cleaning.id}`);
    const reminders = page.getByTestId('reminders');
    await reminders.getByRole('heading', { name: 'תזכורות לספק' }).waitFor();
    await reminders.getByText('לא נשלחו תזכורות.').waitFor();
    // The defaults are days 3 and 7 after sending: the next is in three days.
    assert.equal(await reminders.getByTestId('reminder-next').innerText(), `התזכורת הבאה: ${heDay(israelDay(3))}`);
    await axe(page, 'a payment with reminders to come');
    // Reminders sent. The server's clock cannot be moved three days on, so the payment is made four days old, with
    // the day-3 reminder on its record as the job leaves it (the job itself is tested in test/domain/reminders/),
    // written to the server's own store: the page shows what the server's view computes from it.
    const at = new Date(Date.now() - 24 * 3_600_000).toISOString();
    const store = openSqliteStore({ file: join(env.dataDir, 'store.sqlite') });
    await store.update(paymentsPath(env.owner.businessId, cleaning.id), { sentAt: new Date(Date.now() - 4 * 24 * 3_600_000).toISOString(), reminders: [{ step: 3, at }] });
    await store.close();
    await page.reload();
    const sentLine = new Intl.DateTimeFormat('he-IL', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Jerusalem' }).format(new Date(at));
    await reminders.getByText(`תזכורת אחרי 3 ימים נשלחה ב-${sentLine}`).waitFor();
    // Sent four days ago: the day-7 reminder is three days from today.
    assert.equal(await reminders.getByTestId('reminder-next').innerText(), `התזכורת הבאה: ${heDay(israelDay(3))}`);

    await page.getByRole('link', { name: 'להפוך לתשלום קבוע' }).click();
    await page.waitForURL(/\/recurring\?from=/);
    await page.getByTestId('from-payment').getByText('מולא מהתשלום לשירן ניקיון. בדקו ושמרו.').waitFor();
    const form = page.getByTestId('schedule-form');
    assert.equal(await form.getByRole('textbox', { name: 'שם הספק', exact: true }).inputValue(), 'שירן ניקיון');
    assert.equal(await form.getByRole('textbox', { name: 'על מה התשלום', exact: true }).inputValue(), 'ניקיון המשרד');
    assert.equal(await form.getByRole('textbox', { name: 'סכום', exact: true }).inputValue(), '1200.00');
    assert.equal(await form.getByRole('textbox', { name: 'דוא"ל של הספק', exact: true }).inputValue(), 'shiran@example.com');
    assert.equal(await form.getByRole('checkbox', { name: 'העברה בנקאית' }).isChecked(), true);
    assert.equal(await form.getByRole('checkbox', { name: 'ביט' }).isChecked(), false);
    assert.equal(await form.getByRole('switch', { name: 'לדרוש חשבונית' }).isChecked(), false);
    assert.equal(await form.getByRole('radio', { name: 'לשלוח לספק בוואטסאפ ובדוא"ל' }).isChecked(), true);
    assert.equal(await form.getByLabel('יום בחודש (1-28)').inputValue(), String(Math.min(28, dom)));
    await axe(page, 'the form filled from a payment');
    await form.getByRole('button', { name: 'יצירת התשלום הקבוע' }).click();
    await form.waitFor({ state: 'detached' });
    assert.doesNotMatch(page.url(), /from=/);
    const card = page.getByTestId('schedule').filter({ hasText: 'שירן ניקיון' });
    await card.waitFor();
    const made = (await env.api('recurringList', {})).items.find((x: any) => x.template.supplierName === 'שירן ניקיון');
    assert.deepEqual(
      [made.cadence, made.dayOfMonth, made.template.amountAgorot, made.template.payMethods, made.template.supplierEmail, made.template.channel, made.template.invoiceRequired, made.template.description],
      ['monthly', Math.min(28, dom), 120_000, ['bank'], 'shiran@example.com', null, false, 'ניקיון המשרד'],
    );

    // Deleted after the question, which says the requests made stay; they do.
    const before = made.payments.map((p: any) => p.paymentId);
    // Its words readable: not painted in the button's own background colour.
    const del = card.getByRole('button', { name: 'מחיקה' });
    const colours = await del.evaluate((b) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { color: string; backgroundColor: string } }).getComputedStyle;
      return [style(b.querySelector('.mantine-Button-label')).color, style(b).backgroundColor];
    });
    assert.notEqual(colours[0], colours[1], `the delete button's text ${colours[0]} on ${colours[1]}`);
    await del.click();
    const dialog = page.getByRole('dialog', { name: 'למחוק את התשלום הקבוע?' });
    await dialog.getByText(/הבקשות שכבר נוצרו \(\d+\) נשארות כמו שהן/).waitFor();
    await page.waitForTimeout(500);
    await axe(page, 'delete a schedule: the question');
    await dialog.getByRole('button', { name: 'מחיקת התשלום הקבוע' }).click();
    await card.waitFor({ state: 'detached' });
    assert.equal((await env.api('recurringList', {})).items.some((x: any) => x.id === made.id), false);
    for (const id of [cleaning.id, ...before]) assert.notEqual((await env.api('paymentGet', { paymentId: id })).status, 'canceled', id);
    assert.deepEqual(problems, []);
  });

  test('reminder settings: the morning email switch; the reminder days saved, refused by the form and by the server in Hebrew, [] off', async () => {
    const { page, problems } = owner;
    await page.goto(`${env.origin}/settings/notifications`);
    const due = page.getByRole('switch', { name: 'דוא"ל בבוקר על תשלומים שמועדם הגיע' });
    await due.waitFor();
    assert.equal(await due.isChecked(), true, 'on by default');
    // The switch shows what the server holds: it turns once the change is saved.
    await due.click();
    for (let i = 0; (await env.api('getBusiness', {})).notifyDueEmail !== false; i++) {
      assert.ok(i < 50, 'saved');
      await page.waitForTimeout(100);
    }
    for (let i = 0; await due.isChecked(); i++) {
      assert.ok(i < 50, 'the switch shows it off');
      await page.waitForTimeout(100);
    }
    const days = page.getByRole('textbox', { name: 'תזכורות לספק שלא מילא (ימים אחרי השליחה)' });
    assert.equal(await days.inputValue(), '3, 7');
    const save = page.getByRole('button', { name: 'שמירה' });
    await days.fill('3, שבוע');
    await page.getByText('כתבו עד 5 מספרים שלמים בין 1 ל-60, מופרדים בפסיקים').waitFor();
    assert.equal(await save.isDisabled(), true);
    // The order is the server's to check: its reason, in Hebrew, under the field.
    await days.fill('7, 3');
    await save.click();
    await page.locator('.mantine-TextInput-error').getByText('ימי התזכורת צריכים להיות שונים זה מזה ובסדר עולה').waitFor();
    assert.deepEqual((await env.api('getBusiness', {})).reminderDays, [3, 7]);
    await axe(page, 'reminder days refused');
    assert.deepEqual(problems.filter((x) => !refusal('updateBusiness')(x)), []);
    problems.length = 0;
    await days.fill('2, 5, 10');
    await save.click();
    await page.getByRole('button', { name: 'נשמר' }).waitFor();
    assert.deepEqual((await env.api('getBusiness', {})).reminderDays, [2, 5, 10]);
    await days.fill('');
    await save.click();
    await page.getByRole('button', { name: 'נשמר' }).waitFor();
    assert.deepEqual((await env.api('getBusiness', {})).reminderDays, [], 'empty: off');
    await shoot(page, 'settings-reminders');
    // Off: the open payment has no reminder to come.
    await page.goto(`${env.origin}/payments/${cleaning.id}`);
    await page.getByTestId('reminder-next').getByText('אין תזכורות נוספות.').waitFor();
    await env.api('updateBusiness', { reminderDays: [3, 7] });
    assert.deepEqual(problems, []);
  });

  test('English, one click away, at 360 px', async () => {
    const { page, problems } = owner;
    await page.goto(`${env.origin}/recurring`);
    const card = page.getByTestId('schedule').filter({ hasText: 'מיכל הנהלת חשבונות' });
    await card.waitFor();
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Recurring payments', level: 1 }).waitFor();
    assert.equal(await card.getByTestId('schedule-cadence').innerText(), `Every month, on day ${Math.min(28, dom)}`);
    assert.match(await card.getByTestId('schedule-next').innerText(), /^Next request: /);
    // The owner's Hebrew words keep their own direction in the English page: "{month}" stays at their end (on the left).
    const words = await card.getByTestId('schedule-description').evaluate((e) => {
      const r = (e as unknown as { ownerDocument: { createRange(): any } }).ownerDocument.createRange();
      const text = e.firstChild as unknown as { textContent: string };
      const at = (i: number) => (r.setStart(text, i), r.setEnd(text, i + 1), r.getBoundingClientRect().x as number);
      return [at(0), at(text.textContent.indexOf('{'))];
    });
    assert.ok(words[1] < words[0], `"{month}" at ${words[1]} px, the first Hebrew letter at ${words[0]} px`);
    await card.getByRole('button', { name: 'Pause' }).waitFor();
    await axe(page, 'Recurring, in English');
    await shoot(page, 'recurring-en');
    await page.getByRole('button', { name: 'New recurring payment' }).click();
    await page.getByTestId('schedule-form').getByText(/Write \{month\} and each request gets its month/).waitFor();
    await page.getByTestId('schedule-form').getByText('Weekly', { exact: true }).click();
    await page.getByLabel('Day of the week').waitFor();
    await axe(page, 'the recurring form, in English');
    await page.getByRole('button', { name: 'עברית' }).click();
    await page.getByRole('heading', { name: 'תשלומים קבועים', level: 1 }).waitFor();
    assert.deepEqual(problems, []);
  });
});
