import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pagesEnv, createPayment, fillBank, submit, stored, mailsTo, skipBrowser, type PagesEnv } from './browserEnv.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';

/** The supplier pages as suppliers on phones saw them (issue 11, items 12-18), in Chromium. */
describe('supplier pages, as suppliers on phones saw them', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  before(async () => {
    env = await pagesEnv();
    await env.h.call('setMyPublicLink', { slug: 'dana-studio' });
  });
  after(() => env?.close());

  test('the amount says whether VAT is included, with the figure', async () => {
    const incl = await createPayment(env, { amountAgorot: 11_800, vatIncluded: true });
    await env.page.goto(incl.url);
    assert.match((await env.page.textContent('.vat')) ?? '', /כולל מע"מ \(מתוכו ₪18\.00 מע"מ\)/);
    const plus = await createPayment(env, { amountAgorot: 10_000, vatIncluded: false });
    await env.page.goto(`${plus.url}?lang=en`);
    // One figure, VAT included (what is paid), as the emails name it (issue 17).
    assert.match((await env.page.textContent('.amount')) ?? '', /₪118\.00/);
    assert.match((await env.page.textContent('.vat')) ?? '', /including VAT of ₪18\.00 \(₪100\.00 before VAT\)/);
  });

  test('banks come from a list; branch and account lengths are checked per bank; Bit takes Israeli mobiles only and is not offered in USD', async () => {
    const { page } = env;
    const p = await createPayment(env);
    await page.goto(p.url);
    assert.ok((await page.locator('#bankCode option').count()) > 10);
    assert.match((await page.textContent('#bankCode option[value="12"]')) ?? '', /הפועלים/);
    await fillBank(page, { code: '12', branch: '600', account: '1234567', beneficiary: 'Dana' }); // Hapoalim accounts are 6 digits
    let res = await submit(page);
    assert.equal(res.status(), 422);
    // The error names the length the chosen bank takes (issue 17).
    assert.match((await page.textContent('#bankAccount-err')) ?? '', /בנק הפועלים הוא באורך 5–6 ספרות/);
    await page.click('#m-bit');
    await page.fill('#bitPhone', '03-123-4567'); // a landline
    res = await submit(page);
    assert.equal(res.status(), 422);
    assert.match((await page.textContent('#bitPhone-err')) ?? '', /נייד ישראלי/);
    const usd = await createPayment(env, { currency: 'USD' });
    await page.goto(usd.url);
    assert.equal(await page.locator('#m-bit').count(), 0, 'no Bit for dollars');
    await assert.rejects(env.h.call('createPayment', { amountAgorot: 100, vatIncluded: true, description: 'x', supplierName: 'A', supplierEmail: 'a@example.com', currency: 'EUR', payMethods: ['bit'] }), { code: 'invalid-argument', message: /^payMethods: Bit pays shekels only/ });
  });

  test('the invoice label agrees with the rule: needed before payment, can come later', async () => {
    const p = await createPayment(env, { invoiceRequired: true });
    await env.page.goto(p.url);
    const label = (await env.page.textContent('label[for=invoice]')) ?? '';
    assert.match(label, /נדרשת לפני התשלום, אפשר לצרף גם אחר כך/);
    assert.doesNotMatch(label, /\(חובה\)/);
  });

  test('a paid page shows the date and where the money went (masked); a canceled page says so in its heading', async () => {
    const { page, h } = env;
    const p = await createPayment(env);
    await page.goto(p.url);
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'Dana' });
    await submit(page);
    await h.call('markPaid', { paymentId: p.id });
    await page.goto(p.url);
    assert.match((await page.textContent('h1')) ?? '', /שילם לך/);
    assert.match((await page.textContent('main')) ?? '', /התשלום בוצע ב-\d{2}\.\d{2}\.\d{4}/);
    assert.match((await page.textContent('main')) ?? '', /…678/);
    assert.doesNotMatch((await page.textContent('main')) ?? '', /12345678/);
    const c = await createPayment(env);
    await h.call('cancelPayment', { paymentId: c.id });
    await page.goto(c.url);
    assert.match((await page.textContent('h1')) ?? '', /בקשת התשלום בוטלה/);
  });

  test('the standing link: the same form sent twice (Back, then Send) files once; the filer gets their link by email; slugs ignore case', async () => {
    const { page, h } = env;
    const fill = async () => {
      await page.goto(`${env.origin}/p/link/DANA-Studio`);
      await page.fill('#name', 'Moshe');
      await page.fill('#email', 'moshe@example.com');
      await page.fill('#amount', '250');
      await page.fill('#description', 'תיקון');
      await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'Moshe' });
    };
    await fill();
    assert.equal(await page.getAttribute('#name', 'dir'), 'auto');
    assert.equal(await page.getAttribute('#description', 'dir'), 'auto');
    await submit(page);
    await fill(); // a fresh form (new submission id), same content
    await submit(page);
    const payments = (await h.app.services.store.query({ collection: paymentsPath(h.owner.businessId) })).filter((d) => d.data.supplierEmail === 'moshe@example.com');
    assert.equal(payments.length, 1);
    const mails = await mailsTo(env, 'moshe@example.com', /\/p\/pay\/[A-Za-z0-9_-]{43}/);
    assert.equal(mails.length, 1, 'the filer got their page link');
  });

  test('a copied token with a trailing right-to-left mark still opens; favicon, /p/ and /p/link are not JSON; the contact error is tied to both fields', async () => {
    const { page } = env;
    const p = await createPayment(env);
    const res = await page.goto(`${p.url}%E2%80%8F`);
    assert.equal(res!.status(), 200);
    assert.equal((await fetch(`${env.origin}/favicon.ico`)).status, 204);
    for (const path of ['/p/', '/p/link', '/p']) {
      const r = await fetch(`${env.origin}${path}`);
      assert.match(r.headers.get('content-type') ?? '', /^text\/html/, path);
    }
    await page.goto(`${env.origin}/p/link/dana-studio`);
    await page.fill('#name', 'No contact');
    await page.fill('#amount', '10');
    await page.fill('#description', 'x');
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'x' });
    await submit(page);
    assert.equal(await page.getAttribute('#phone', 'aria-describedby'), 'contact-err');
    assert.equal(await page.getAttribute('#email', 'aria-describedby'), 'contact-err');
  });
});

describe('switching language keeps what was typed', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  before(async () => {
    env = await pagesEnv();
    await env.h.call('setMyPublicLink', { slug: 'switcher' });
  });
  after(() => env?.close());

  test('on the standing link and on a payment link, the switch carries the typed values to the other language; nothing is filed', async () => {
    const { page, h } = env;
    await page.goto(`${env.origin}/p/link/switcher`);
    await page.fill('#name', 'יוסי');
    await page.fill('#amount', '321');
    await page.fill('#description', 'צביעה');
    const [res] = await Promise.all([page.waitForNavigation(), page.click('nav .switch')]);
    assert.equal(res!.status(), 200);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.inputValue('#name'), 'יוסי');
    assert.equal(await page.inputValue('#amount'), '321');
    assert.equal(await page.inputValue('#description'), 'צביעה');
    assert.equal((await h.app.services.store.query({ collection: paymentsPath(h.owner.businessId) })).length, 0, 'switching files nothing');
    const p = await createPayment(env);
    await page.goto(p.url);
    await page.fill('#bankBranch', '777');
    await Promise.all([page.waitForNavigation(), page.click('nav .switch')]);
    assert.equal(await page.inputValue('#bankBranch'), '777');
    assert.equal((await stored(env, p.id)).status, 'sent');
  });
});
