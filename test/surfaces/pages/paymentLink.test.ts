import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertPageHeaders, createPayment, fillBank, mailsTo, pagesEnv, pdfFile, skipBrowser, stored, submit, type PagesEnv } from './browserEnv.ts';
import { approvedByAnotherAdmin } from '../../operations/payments/helpers.ts';

const BANK = { code: '12', branch: '345', account: '678901', beneficiary: 'דנה כהן' };

describe('the payment link page in a browser', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  before(async () => (env = await pagesEnv()));
  after(() => env?.close());

  test('bank payout with an invoice → ready, business emailed; then markPaid shows paid', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env);
    const res = await page.goto(url);
    assert.equal(res!.status(), 200);
    assertPageHeaders(res!);
    assert.equal(await page.getAttribute('html', 'lang'), 'he');
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.match(await page.textContent('h1') ?? '', /Test Business/);
    assert.match(await page.textContent('.amount') ?? '', /₪123\.45/);
    assert.match(await page.textContent('main') ?? '', /Kitchen shelves/);
    // Fits a phone: nothing wider than the screen.
    assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 375);
    assert.equal(await page.isVisible('#bitPhone'), false, 'bank is preselected; the bit field is hidden by CSS');
    await page.screenshot({ path: join(tmpdir(), 'bfo-payment-page-375.png'), fullPage: true });

    await fillBank(page, BANK);
    await page.setInputFiles('#invoice', pdfFile('חשבונית 17.pdf'));
    const done = await submit(page);
    assert.equal(done.status(), 200);
    assert.equal(done.request().redirectedFrom()?.method(), 'POST');
    assertPageHeaders(done);
    assert.match(await page.textContent('main') ?? '', /תודה! הפרטים נשמרו/);
    assert.match(await page.textContent('main') ?? '', /ממתין לביצוע/);
    assert.match(await page.textContent('.files') ?? '', /חשבונית 17\.pdf/);

    const p = await stored(env, id);
    assert.equal(p.status, 'ready');
    assert.deepEqual(p.payout, { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'דנה כהן' });
    assert.equal(p.invoices[0].fileName, 'חשבונית 17.pdf');
    assert.equal((await mailsTo(env, h.owner.email, /מילא\/ה את פרטי התשלום/)).length, 1);

    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
    await page.goto(url);
    assert.match(await page.textContent('main') ?? '', /התשלום בוצע/);
  });

  test('English switch, bit payout (the only method) → ready; then markPaid', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env, { payMethods: ['bit'] });
    await page.goto(url);
    const [en] = await Promise.all([page.waitForNavigation(), page.click('nav .switch, nav a')]);
    assertPageHeaders(en!);
    assert.equal(new URL(page.url()).searchParams.get('lang'), 'en');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.getAttribute('html', 'dir'), 'ltr');
    assert.match(await page.textContent('h1') ?? '', /Test Business wants to pay you/);
    assert.equal(await page.locator('input[type=radio]').count(), 0, 'one method: no choice offered');
    assert.equal(await page.locator('#bankCode').count(), 0);

    await page.fill('#bitPhone', '12');
    const refused = await submit(page);
    assert.equal(refused.status(), 422);
    assert.match(await page.textContent('#bitPhone-err') ?? '', /Not a valid phone number/);
    await page.fill('#bitPhone', '050-765-4321');
    await submit(page);
    assert.equal(await page.getAttribute('html', 'lang'), 'en', 'the language survives the post');
    assert.match(await page.textContent('main') ?? '', /waiting for Test Business to pay/);
    assert.deepEqual((await stored(env, id)).payout, { method: 'bit', bitPhone: '+972507654321' });

    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
    await page.reload();
    assert.match(await page.textContent('main') ?? '', /Paid on \d{2}\.\d{2}\.\d{4}/);
  });

  test('invoice required: no invoice → awaiting_invoice, then the upload → ready; then markPaid', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env, { invoiceRequired: true });
    await page.goto(url);
    assert.match(await page.textContent('label[for=invoice]') ?? '', /נדרשת לפני התשלום/);
    await fillBank(page, BANK);
    await submit(page);
    assert.equal((await stored(env, id)).status, 'awaiting_invoice');
    assert.match(await page.textContent('main') ?? '', /חסרה חשבונית/);

    await page.setInputFiles('#invoice', pdfFile('late.pdf'));
    await submit(page);
    const p = await stored(env, id);
    assert.equal(p.status, 'ready');
    assert.equal(p.invoices.length, 1);
    assert.match(await page.textContent('main') ?? '', /ממתין לביצוע/);

    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
    assert.equal((await stored(env, id)).status, 'paid');
  });

  test('open amount: the supplier fills it; then markPaid', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env, { openAmount: true, amountAgorot: 0 });
    await page.goto(url);
    assert.equal(await page.locator('.amount').count(), 0);
    await page.fill('#amount', '1,250.50');
    await fillBank(page, BANK);
    await submit(page);
    assert.equal((await stored(env, id)).amountAgorot, 125_050);
    assert.match(await page.textContent('.amount') ?? '', /₪1,250\.50/);
    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
  });

  test('bad bank details re-render the form with the values and Hebrew messages; the fix → ready; then markPaid', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env);
    await page.goto(url);
    await fillBank(page, { code: 'ab', branch: '1234', account: '12', beneficiary: 'Dana' });
    await page.setInputFiles('#invoice', pdfFile('x.pdf'));
    const refused = await submit(page);
    assert.equal(refused.status(), 422);
    assertPageHeaders(refused);
    const body = await refused.text();
    assert.doesNotMatch(body, /at .*\.ts:\d+|Error:/, 'no stack trace');
    assert.match(await page.textContent('#bankCode-err') ?? '', /שדה חובה/);
    assert.match(await page.textContent('#bankBranch-err') ?? '', /3 ספרות/);
    assert.match(await page.textContent('#bankAccount-err') ?? '', /באורך 4–9 ספרות/);
    assert.equal(await page.inputValue('#bankCode'), '', 'no bank chosen');
    assert.equal(await page.inputValue('#bankBeneficiary'), 'Dana');
    assert.match(await page.textContent('[role=alert]') ?? '', /יש לבחור שוב את קובץ החשבונית/);
    const p = await stored(env, id);
    assert.equal(p.status, 'sent');
    assert.equal((await h.app.services.store.query({ collection: `businesses/${h.owner.businessId}/files` })).filter((f) => f.data.fileName === 'x.pdf').length, 0);

    await fillBank(page, BANK);
    await submit(page);
    assert.equal((await stored(env, id)).status, 'ready');
    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
  });

  test('a replayed or repeated form changes nothing; then markPaid', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env);
    await page.goto(url);
    const submissionId = await page.inputValue('input[name=submissionId]');
    assert.match(submissionId, /^[A-Za-z0-9_-]{22}$/);
    await fillBank(page, BANK);
    const file = pdfFile('once.pdf');
    await page.setInputFiles('#invoice', file);
    await submit(page);
    const first = await stored(env, id);
    assert.equal(first.status, 'ready');

    // The same form posted again, byte for byte: shown the current state, nothing added.
    const replay = await page.request.post(url, {
      multipart: { submissionId, action: 'payout', method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'x', invoice: file },
      maxRedirects: 0,
    });
    assert.equal(replay.status(), 303);
    assert.equal(new URL(replay.headers().location, url).pathname, new URL(url).pathname);
    assert.deepEqual(await stored(env, id), first);

    // The form sent again from another tab (a fresh id): the payment is already ready, so the page says so.
    const stale = await page.request.post(url, {
      multipart: { submissionId: 'B'.repeat(22), action: 'payout', method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'x' },
    });
    assert.equal(stale.status(), 200);
    assert.match(await stale.text(), /הבקשה כבר טופלה/);
    const after = await stored(env, id);
    assert.equal(after.invoices.length, 1);
    assert.deepEqual(after.payout, first.payout);

    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
  });

  test('a canceled payment shows canceled and takes nothing', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env);
    await page.goto(url);
    await fillBank(page, BANK);
    await h.call('cancelPayment', { paymentId: id });
    await submit(page);
    assert.match(await page.textContent('main') ?? '', /בקשת התשלום בוטלה/);
    assert.equal(await page.locator('form').count(), 0);
    assert.equal((await stored(env, id)).payout, null);
  });

  test('a paid payment still takes a late invoice, and the business is emailed', async () => {
    const { page, h } = env;
    const { id, url } = await createPayment(env);
    await page.goto(url);
    await fillBank(page, BANK);
    await submit(page);
    await approvedByAnotherAdmin(h, id); // the same supplier across tests: a changed payout needs approval first (issue 36)
    await h.call('markPaid', { paymentId: id });
    await page.reload();
    assert.match(await page.textContent('main') ?? '', /התשלום בוצע/);
    await page.setInputFiles('#invoice', { name: 'receipt.png', mimeType: 'image/png', buffer: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') });
    await submit(page);
    const p = await stored(env, id);
    assert.equal(p.status, 'paid');
    assert.equal(p.invoices.length, 1);
    assert.match(await page.textContent('.files') ?? '', /receipt\.png/);
    const late = await mailsTo(env, h.owner.email, /צירף\/ה חשבונית לתשלום שכבר שולם.*Kitchen shelves/s);
    assert.equal(late.length, 1);
  });

  test('an unknown link is a 404 page', async () => {
    const res = await env.page.goto(`${env.origin}/p/pay/${'x'.repeat(43)}?lang=en`);
    assert.equal(res!.status(), 404);
    assertPageHeaders(res!);
    assert.match(await env.page.textContent('h1') ?? '', /Link not found/);
  });
});
