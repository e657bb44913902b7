import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertPageHeaders, fillBank, mailsTo, pagesEnv, pdfFile, skipBrowser, stored, submit, type PagesEnv } from './browserEnv.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';
import { approvedByAnotherAdmin } from '../../operations/payments/helpers.ts';

describe('the standing request link in a browser', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  let linkUrl: string;
  before(async () => {
    env = await pagesEnv();
    await env.h.call('setMyPublicLink', { slug: 'test-shop' });
    linkUrl = `${env.origin}/p/link/test-shop`;
  });
  after(() => env?.close());

  const payments = async () => (await env.h.app.services.store.query({ collection: paymentsPath(env.h.owner.businessId) })).map((d) => d.data);

  test('anyone files a request: a payment for review with channel link, the business emailed; then markPaid', async () => {
    const { page, h } = env;
    const res = await page.goto(linkUrl);
    assert.equal(res!.status(), 200);
    assertPageHeaders(res!);
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.match(await page.textContent('h1') ?? '', /בקשת תשלום אל Test Business/);

    const submissionId = await page.inputValue('input[name=submissionId]');
    await page.fill('#name', 'יוסי לוי');
    await page.fill('#phone', '052-111-2222');
    await page.fill('#amount', '800');
    await page.check('input[name=vatIncluded]');
    await page.fill('#description', 'תיקון מזגן');
    await fillBank(page, { code: '10', branch: '800', account: '1234567', beneficiary: 'יוסי לוי' });
    await page.setInputFiles('#invoice', pdfFile('invoice-800.pdf'));
    const done = await submit(page);
    assert.equal(done.status(), 200);
    // The filer lands on their new payment's own link page.
    assert.match(new URL(page.url()).pathname, /^\/p\/pay\/[A-Za-z0-9_-]{43}$/);
    assert.match(await page.textContent('main') ?? '', /תודה! הפרטים נשמרו/);
    assert.match(await page.textContent('.amount') ?? '', /₪800\.00/);

    const [p] = await payments();
    assert.equal(p.channel, 'link');
    assert.equal(p.viaPublicLink, true);
    assert.equal(p.status, 'sent');
    assert.equal(p.needsReview, true);
    assert.equal(p.supplierPhone, '+972521112222');
    assert.equal(p.amountAgorot, 80_000);
    assert.equal(p.vatIncluded, true);
    assert.equal((p.invoices as unknown[]).length, 1);
    assert.equal((await mailsTo(env, h.owner.email, /דרך הקישור הקבוע/)).length, 1);

    // The same form again changes nothing and shows the first result.
    const replay = await page.request.post(linkUrl, {
      multipart: { submissionId, name: 'x', phone: '0521112222', amount: '1', description: 'x', method: 'bit', bitPhone: '0521112222' },
      maxRedirects: 0,
    });
    assert.equal(replay.status(), 303);
    assert.equal(new URL(replay.headers().location, linkUrl).pathname, new URL(page.url()).pathname);
    assert.equal((await payments()).length, 1);

    await approvedByAnotherAdmin(h, p.id as string); // a public filing is approved before it is paid (issue 36)
    await h.call('markPaid', { paymentId: p.id });
    assert.equal((await stored(env, p.id as string)).status, 'paid');
    await page.goto(page.url().split('?')[0]);
    assert.match(await page.textContent('main') ?? '', /התשלום בוצע/);
  });

  test('a refused request keeps the values and explains in the page language', async () => {
    const { page } = env;
    await page.goto(`${linkUrl}?lang=en`);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    await page.fill('#name', 'Jo');
    await page.fill('#amount', '12.345');
    await page.fill('#description', 'Logo design');
    await page.click('#m-bit');
    await page.fill('#bitPhone', '050-765-4321');
    const refused = await submit(page);
    assert.equal(refused.status(), 422);
    assert.match(await page.textContent('#contact-err') ?? '', /Enter a phone or an email/);
    assert.match(await page.textContent('#amount-err') ?? '', /positive amount/);
    assert.equal(await page.inputValue('#description'), 'Logo design');
    assert.equal(await page.isChecked('#m-bit'), true);
    assert.equal((await payments()).length, 1);
  });

  test('an unknown slug is a 404 page', async () => {
    const res = await env.page.goto(`${env.origin}/p/link/no-such-shop`);
    assert.equal(res!.status(), 404);
    assertPageHeaders(res!);
    assert.match(await env.page.textContent('h1') ?? '', /הקישור לא נמצא/);
  });

  test('a form posted with a known supplier\'s phone never renames it or changes its payout; the new account is flagged', async () => {
    const { page, h } = env;
    await h.call('createSupplier', { name: 'Real Supplier Ltd', phone: '052-333-4444' });
    await h.call('saveSupplierContact', { supplierKey: '+972523334444', bankCode: '10', bankBranch: '600', bankAccount: '111222333', bankBeneficiary: 'Real Supplier Ltd' });
    const before = await h.call('getSupplierContact', { supplierKey: '+972523334444' });
    await page.goto(linkUrl);
    const submissionId = await page.inputValue('input[name=submissionId]');
    const res = await page.request.post(linkUrl, {
      multipart: { submissionId, name: 'Attacker', phone: '0523334444', amount: '9000', description: 'Invoice 77', method: 'bank', bankCode: '10', bankBranch: '800', bankAccount: '1234567', bankBeneficiary: 'Attacker' },
      maxRedirects: 0,
    });
    assert.equal(res.status(), 303);
    const after = await h.call('getSupplierContact', { supplierKey: '+972523334444' });
    assert.equal(after.name, 'Real Supplier Ltd', 'not renamed');
    assert.equal(after.bankAccount, '111222333');
    assert.deepEqual(after, before, 'card and what the supplier set on their side untouched');
    const p = (await payments()).find((x) => x.supplierPhone === '+972523334444')!;
    assert.deepEqual([p.filedBy, p.status, p.needsReview, p.payoutChanged], ['public', 'sent', true, true]);
    assert.deepEqual(p.payoutChange, { previous: 'bank 10-600 ••••333', filed: 'bank 10-800 ••••567' });
    // The business email says plainly that changed bank details are the classic fraud.
    assert.equal((await mailsTo(env, h.owner.email, /להונות עסקים/)).length, 1);
  });
});
