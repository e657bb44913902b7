import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { pagesEnv, createPayment, fillBank, submit, stored, mailsTo, skipBrowser, type PagesEnv } from './browserEnv.ts';
import { artifactPath } from '../../artifacts.ts';
import { approvedByAnotherAdmin } from '../../operations/payments/helpers.ts';
import { outboxPath, type OutboxRecord } from '../../../functions/src/core/outbox.ts';

/**
 * Issue 17, sections B and D, in Chromium on a 360 px phone: no-VAT payments, payouts abroad, the paid
 * page's one figure, the standing-link filer's wording, and the small things seen on a phone.
 * Screenshots go to test-artifacts/pages/.
 */
describe('supplier pages after issue 17', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  let phone: BrowserContext;
  let page: Page;

  before(async () => {
    env = await pagesEnv();
    await env.h.call('updateBusiness', { businessName: 'סטודיו דנה', businessNameEn: 'Dana Studio', companyId: '515555555' });
    await env.h.call('setMyPublicLink', { slug: 'dana-17' });
    phone = await env.browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    page = await phone.newPage();
  });
  after(async () => {
    await phone?.close();
    await env?.close();
  });

  const shot = (name: string) => page.screenshot({ path: artifactPath('pages', `${name}.png`), fullPage: true });
  const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();
  /** The outbox messages of a payment (what was staged for delivery). */
  const messagesOf = async (paymentId: string) =>
    (await env.h.app.services.store.query({ collection: outboxPath(env.h.owner.businessId, '').replace(/\/$/, ''), where: [['ref', '==', paymentId]] })).map((d) => d.data as unknown as OutboxRecord);

  test('no VAT: USD defaults to noVat, an exempt supplier too; page, email and totals show no VAT line', async () => {
    const { h } = env;
    const usd = await h.call('createPayment', { amountAgorot: 50_000, vatIncluded: false, currency: 'USD', description: 'Logo design', supplierName: 'Sam', supplierEmail: 'sam.usd@example.com' });
    assert.deepEqual([usd.noVat, usd.vatAgorot, usd.totalAgorot], [true, 0, 50_000]);
    await page.goto(env.origin + new URL(usd.link).pathname);
    assert.equal(await text('.amount'), '$500.00');
    assert.equal(await page.locator('.vat').count(), 0, 'no VAT line');
    await shot('usd-no-vat');
    await h.app.queue!.drain();
    const [mail] = await messagesOf(usd.id);
    assert.ok(mail && mail.message.channel === 'email');
    assert.match(mail.message.text, /\$500\.00/);
    assert.doesNotMatch(mail.message.text, /VAT|מע"מ/, 'the email names no VAT either');

    // An exempt dealer (עוסק פטור) on the supplier card: new payments to them default to noVat.
    await h.call('createSupplier', { name: 'פטור בע"מ', phone: '052-777-8888' });
    await h.call('saveSupplierContact', { supplierKey: '0527778888', businessType: 'patur' });
    const exempt = await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: false, description: 'x', supplierName: 'פטור', supplierPhone: '052-777-8888', channel: 'link' });
    assert.deepEqual([exempt.noVat, exempt.totalAgorot], [true, 10_000]);
    const said = await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: false, noVat: false, description: 'x', supplierName: 'פטור', supplierPhone: '052-777-8888', channel: 'link' });
    assert.deepEqual([said.noVat, said.vatAgorot, said.totalAgorot], [false, 1_800, 11_800], 'noVat sent wins over the default');
    // A change of currency brings its default unless noVat is sent.
    const ils = await h.call('createPayment', { amountAgorot: 10_000, vatIncluded: false, description: 'x', supplierName: 'Y', supplierPhone: '050-111-2233', channel: 'link' });
    assert.equal(ils.noVat, false);
    assert.equal((await h.call('updatePaymentSettings', { paymentId: ils.id, currency: 'EUR' })).noVat, true);
  });

  test('the open-amount form says whether the amount to type includes VAT', async () => {
    for (const [over, words] of [
      [{ vatIncluded: true }, /כולל מע"מ/],
      [{ vatIncluded: false }, /לפני מע"מ/],
      [{ vatIncluded: false, noVat: true }, /ללא מע"מ/],
    ] as const) {
      const p = await createPayment(env, { amountAgorot: 0, openAmount: true, ...over });
      await page.goto(p.url);
      assert.match(await text('label[for=amount]'), words);
    }
    await shot('open-amount-label');
  });

  test('a USD payout: the page opens in English with Hebrew a click away, asks IBAN/SWIFT/bank/country/beneficiary, checks the IBAN checksum; a changed IBAN is flagged', async () => {
    const { h } = env;
    const p = await createPayment(env, { currency: 'USD', amountAgorot: 100_000, supplierEmail: 'abroad@example.com', supplierPhone: undefined });
    await page.goto(p.url);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.locator('#bankCode').count(), 0, 'no Israeli bank codes');
    for (const id of ['bankCountry', 'iban', 'swift', 'bankName', 'bankBeneficiary', 'beneficiaryAddress']) assert.equal(await page.locator(`#${id}`).count(), 1, id);
    const hebrew = await page.getAttribute('nav .switch', 'formaction');
    assert.match(hebrew ?? '', /lang=he/);
    const fill = async (iban: string, swift: string, country: string) => {
      await page.selectOption('#bankCountry', country);
      await page.fill('#iban', iban);
      await page.fill('#swift', swift);
      await page.fill('#bankName', 'Deutsche Bank');
      await page.fill('#bankBeneficiary', 'Sam Smith');
      await page.fill('#beneficiaryAddress', 'Hauptstr. 1, 10115 Berlin');
    };
    await fill('DE89 3704 0044 0532 0130 01', 'DEUTDEFF', 'DE'); // one digit off: the checksum fails
    let res = await submit(page);
    assert.equal(res.status(), 422);
    assert.match(await text('#iban-err'), /check digits/);
    await shot('usd-iban-refused');
    await fill('DE89 3704 0044 0532 0130 00', 'DEUTDEFF', 'DE');
    res = await submit(page);
    assert.equal(res.status(), 200);
    const first = await stored(env, p.id);
    assert.equal(first.status, 'ready');
    assert.deepEqual(first.payout, { method: 'bank', iban: 'DE89370400440532013000', swift: 'DEUTDEFF', bankName: 'Deutsche Bank', bankCountry: 'DE', bankBeneficiary: 'Sam Smith', beneficiaryAddress: 'Hauptstr. 1, 10115 Berlin' });
    assert.equal(first.supplierLang, 'en', 'the supplier used the page in English');
    await shot('usd-ready');

    // The next payment to the same supplier goes to another IBAN: the business is warned.
    const q = await createPayment(env, { currency: 'USD', amountAgorot: 20_000, supplierEmail: 'abroad@example.com', supplierPhone: undefined });
    await page.goto(q.url);
    await fill('GB82 WEST 1234 5698 7654 32', 'NWBKGB2L', 'GB');
    await submit(page);
    const second = await stored(env, q.id);
    assert.equal(second.payoutChanged, true);
    assert.deepEqual(second.payoutChange, { previous: 'SWIFT DEUTDEFF ••••000', filed: 'SWIFT NWBKGB2L ••••432' });
    // The owner is told twice, each naming the new account: the ready notice, and as an admin the request to approve
    // (changed payout details need an approval before paying, whatever the policy).
    assert.equal((await mailsTo(env, h.owner.email, /SWIFT NWBKGB2L ••••432/)).length, 2, 'the ready email and the approval request carry the warning');
  });

  test('the paid page shows one figure, the one paid, and the proof of transfer', async () => {
    const { h } = env;
    const p = await createPayment(env, { amountAgorot: 345_000, vatIncluded: false });
    await page.goto(p.url);
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'Dana' });
    await submit(page);
    const proof = Buffer.from('%PDF-1.4\n% proof\n%%EOF\n');
    await approvedByAnotherAdmin(h, p.id); // a payout that may have changed needs approval first (issue 36)
    await h.call('markPaid', { paymentId: p.id, proof: { fileName: 'אישור העברה 7731.pdf', mimeType: 'application/pdf', dataBase64: proof.toString('base64') } });
    await page.goto(p.url);
    const main = await text('main');
    assert.equal(await text('.amount'), '₪4,071.00');
    assert.equal(await page.locator('.vat').count(), 0);
    assert.doesNotMatch(main, /3,450/, 'only the figure that was paid');
    const href = await page.getAttribute('.proof a', 'href');
    assert.ok(href);
    const file = await fetch(env.origin + new URL(href, env.origin).pathname);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), proof);
    assert.match(await text('.proof'), /אסמכתת ההעברה/);
    await shot('paid-one-figure-proof');
  });

  test('the standing-link filer reads "received, waiting for review", not "wants to pay you … awaiting payment"', async () => {
    await page.goto(`${env.origin}/p/link/dana-17`);
    await page.fill('#name', 'משה');
    await page.fill('#phone', '052-123-9999');
    await page.fill('#amount', '250');
    await page.fill('#description', 'תיקון');
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'משה' });
    await submit(page);
    assert.match(await text('h1'), /בקשת התשלום שלך אל סטודיו דנה התקבלה/);
    assert.match(await text('main'), /ממתינה לבדיקה של סטודיו דנה/);
    assert.doesNotMatch(await text('main'), /רוצה לשלם לך|ממתין לביצוע/);
    await shot('standing-filer-received');
  });

  test('on a 360 px phone: the bank picker shows whole names and the payout heading has room above it', async () => {
    const p = await createPayment(env, { amountAgorot: 0, openAmount: true });
    await page.goto(p.url);
    // Runs in the page: the widest bank name in the select's own font must fit inside it, arrow and padding aside.
    const fit = (await page.evaluate(`(() => {
      const s = document.querySelector('#bankCode');
      const cs = getComputedStyle(s);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = cs.font;
      const widest = Math.max(...[...s.options].map((o) => ctx.measureText(o.textContent).width));
      const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 24;
      return { widest, room, page: document.documentElement.scrollWidth, view: window.innerWidth };
    })()`)) as { widest: number; room: number; page: number; view: number };
    assert.ok(fit.widest <= fit.room, `the longest bank name (${Math.round(fit.widest)} px) fits the picker (${Math.round(fit.room)} px)`);
    assert.ok(fit.page <= fit.view, 'no sideways scroll');
    const gap = (await page.evaluate(`(() => {
      const legend = document.querySelector('.payout .section');
      const above = document.querySelector('#amount').closest('div');
      return legend.getBoundingClientRect().top - above.getBoundingClientRect().bottom;
    })()`)) as number;
    assert.ok(gap >= 16, `"how to get paid?" stands ${gap} px below the field above it`);
    await page.selectOption('#bankCode', '12');
    await shot('bank-picker-360');
  });

  test('the bank list: current codes (Union Bank 13 merged into Mizrahi-Tefahot 20) and an "other bank" entry that takes a typed code', async () => {
    const p = await createPayment(env);
    await page.goto(p.url);
    assert.equal(await page.locator('#bankCode option[value="13"]').count(), 0, 'Union Bank is gone');
    assert.equal(await page.locator('#bankCode option[value="20"]').count(), 1);
    assert.equal(await page.locator('#bankCode option[value="other"]').count(), 1);
    assert.equal(await page.isVisible('#bankCodeOther'), false, 'the code field shows only for "other bank"');
    await page.selectOption('#bankCode', 'other');
    assert.equal(await page.isVisible('#bankCodeOther'), true);
    await page.fill('#bankCodeOther', '13');
    await page.fill('#bankBranch', '123');
    await page.fill('#bankAccount', '1234567');
    await page.fill('#bankBeneficiary', 'Dana');
    const res = await submit(page);
    assert.equal(res.status(), 422);
    assert.match(await text('#bankCodeOther-err'), /מוזג לבנק מזרחי טפחות/);
    await shot('other-bank-merged');
    await page.fill('#bankCodeOther', '99');
    await submit(page);
    const saved = await stored(env, p.id);
    assert.equal(saved.status, 'ready');
    assert.equal(saved.payout?.bankCode, '99');
  });

  test('too large a file: the page links back to the form, and the hint states the same limits', async () => {
    const p = await createPayment(env);
    await page.goto(`${p.url}?lang=en`);
    const hint = await text('#invoice ~ .hint');
    // A declared body over the page limit is refused before it is read.
    const url = new URL(`${p.url}?lang=en`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(30 * 1024 * 1024) } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('--x\r\n');
    });
    assert.equal(answer.status, 413);
    await page.setContent(answer.body);
    assert.equal(await page.locator('section[lang=en] a.back').count(), 1, 'a way back');
    const back = await page.getAttribute('section[lang=en] a.back', 'href');
    assert.equal(back, `${url.pathname}?lang=en`, 'a way back to the same form, in the same language');
    const res = await fetch(env.origin + back);
    assert.match(await res.text(), /<form/);
    const limits = await text('section[lang=en] p.muted');
    for (const rule of ['PDF up to 5 MB', 'up to 20 MB', 'HEIC photos up to 5 MB']) {
      assert.ok(hint.includes(rule) && limits.includes(rule), `hint and refusal both say "${rule}"`);
    }
    await shot('too-large');
  });

  test('the page names the business id and how bank details are used and kept', async () => {
    const p = await createPayment(env);
    await page.goto(p.url);
    assert.equal(await page.locator('.trust').count(), 1, 'a trust note under the form');
    assert.match(await text('.trust'), /ח\.פ\.\/ע\.מ\. 515555555/);
    assert.match(await text('.trust'), /פרטי התשלום עוברים רק אל סטודיו דנה/);
    assert.match(await text('.trust'), /מוצגים חלקית/);
    await shot('trust-note');
  });

  test('file names keep their order inside Hebrew text', async () => {
    const p = await createPayment(env);
    await page.goto(p.url);
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'Dana' });
    await page.setInputFiles('#invoice', { name: 'חשבונית 5521.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\nbidi\n%%EOF\n') });
    await submit(page);
    // Characters of the shown name, left to right on screen: "5521.pdf" must read as itself.
    const visual = (await page.evaluate(`(() => {
      const out = [];
      const walk = (n) => {
        if (n.nodeType === 3) {
          for (let i = 0; i < n.textContent.length; i++) {
            if (n.textContent[i] === ' ') continue;
            const r = document.createRange();
            r.setStart(n, i);
            r.setEnd(n, i + 1);
            out.push([n.textContent[i], r.getBoundingClientRect().left]);
          }
        } else n.childNodes.forEach(walk);
      };
      walk(document.querySelector('.files li'));
      return out.sort((a, b) => a[1] - b[1]).map((x) => x[0]).join('');
    })()`)) as string;
    assert.ok(visual.includes('5521.pdf'), `shown as ${visual}`);
    assert.equal(await page.getAttribute('.files li bdi', 'dir'), 'rtl');
    await shot('file-name-order');
  });
});
