import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import { pagesEnv, createPayment, fillBank, submit, skipBrowser, mailsTo, type PagesEnv } from '../surfaces/pages/browserEnv.ts';
import { parseMail } from '../fakes/smtp.ts';
import { approvedByAnotherAdmin } from '../operations/payments/helpers.ts';
import { artifactPath } from '../artifacts.ts';
import { usersPath } from '../../functions/src/domain/business.ts';
import { accountsPath, statementsPath, statementId, type AccountRecord, type StatementRecord } from '../../functions/src/domain/statements/statements.ts';

/**
 * Issue 17, section A: every email, as received by a real SMTP server, is multipart/alternative with a
 * Hebrew (or, for a supplier marked English, English) HTML part and a matching text part, sent as
 * "<business> via <product>" with Reply-To the business. Each HTML part is opened in Chromium at a
 * 360 px phone width: no sideways scrolling, the right direction. Screenshots go to test-artifacts/emails/.
 */
describe('emails as people receive them', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  let phone: BrowserContext;
  const BUSINESS = 'סטודיו דנה';

  before(async () => {
    env = await pagesEnv();
    const { h } = env;
    await h.call('updateBusiness', { businessName: BUSINESS, businessNameEn: 'Dana Studio', companyId: '515555555' });
    await h.app.services.store.update(usersPath(h.owner.userId), { phone: '+972501234567', phoneVerified: true });
    await h.call('setMyPublicLink', { slug: 'dana-mail' });
    phone = await env.browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  });
  after(async () => {
    await phone?.close();
    await env?.close();
  });

  /** The newest mail to `to` whose decoded text matches. */
  async function mailTo(to: string, match: RegExp) {
    const found = await mailsTo(env, to, match);
    assert.ok(found.length, `a mail to ${to} matching ${match}`);
    return found.at(-1)!;
  }

  /** Parses the mail, checks its parts and sender, renders the HTML at 360 px and keeps a screenshot. */
  async function received(name: string, raw: string, lang: 'he' | 'en') {
    assert.match(raw, /^Content-Type: multipart\/alternative;/im, 'an HTML part and a text part');
    const mail = await parseMail(raw);
    assert.ok(mail.text && mail.text.length > 40, 'a text part');
    assert.ok(typeof mail.html === 'string' && mail.html.length > 200, 'an HTML part');
    assert.equal(mail.from?.value[0].address, 'no-reply@localhost');
    const page = await phone.newPage();
    await page.setContent(mail.html as string);
    // Runs in the page (a string, so this Node project needs no DOM types).
    const shown = (await page.evaluate(`({
      lang: document.documentElement.lang,
      dir: document.documentElement.dir,
      heading: getComputedStyle(document.querySelector('h1')).direction,
      body: getComputedStyle(document.querySelector('td.inner')).direction,
      scrollWidth: document.documentElement.scrollWidth,
      width: window.innerWidth,
      h1: document.querySelector('h1').textContent,
    })`)) as { lang: string; dir: string; heading: string; body: string; scrollWidth: number; width: number; h1: string };
    await page.screenshot({ path: artifactPath('emails', `${name}.png`), fullPage: true });
    await page.close();
    assert.equal(shown.width, 360);
    assert.ok(shown.scrollWidth <= shown.width, `${name}: no horizontal scroll at 360 px (content ${shown.scrollWidth} px)`);
    const dir = lang === 'he' ? 'rtl' : 'ltr';
    assert.deepEqual([shown.lang, shown.dir, shown.heading, shown.body], [lang, dir, dir, dir], `${name}: ${lang}, ${dir}`);
    // The text part says what the HTML part says (its isolates are <bdi> in the HTML).
    assert.ok(mail.text!.replace(/[\u2066-\u2069]/g, '').includes(shown.h1!), `${name}: the text part carries the heading`);
    return mail;
  }

  test('the payment request: Hebrew, from the business via the product, Reply-To and footer name the business; the amount as the page shows it', async () => {
    const { h, page } = env;
    const view = await h.call('createPayment', { amountAgorot: 345_000, vatIncluded: false, description: 'מדפים למטבח', supplierName: 'דנה לוי', supplierEmail: 'dana.levi@example.com' });
    const raw = (await mailTo('dana.levi@example.com', /מדפים למטבח/)).raw;
    const mail = await received('payment-request-he', raw, 'he');
    assert.equal(mail.from?.value[0].name, `${BUSINESS} via Business Finance`);
    assert.deepEqual(mail.replyTo?.value.map((a) => a.address), [h.owner.email]);
    assert.match(mail.subject ?? '', new RegExp(`^${BUSINESS}: בקשת תשלום על סך ₪4,071\\.00$`));
    // Footer of a message to a supplier: the business's company id and phone.
    assert.match(mail.text!, /ח\.פ\.\/ע\.מ\. 515555555/);
    assert.match(mail.text!, /050-123-4567/);
    assert.match(mail.html as string, /515555555/);
    // The email names the amount exactly as the page does: the figure with VAT, and the same VAT line.
    await page.goto(env.origin + new URL(view.link).pathname);
    const figure = ((await page.textContent('.amount')) ?? '').trim();
    const vatLine = ((await page.textContent('.vat')) ?? '').trim();
    assert.equal(figure, '₪4,071.00');
    assert.ok(mail.text!.includes(figure) && mail.text!.includes(vatLine), `email text has "${figure}" and "${vatLine}"`);
    assert.doesNotMatch(mail.text!, /₪3,450\.00(?! לפני)/, 'never the amount before VAT as the figure');
  });

  test('a supplier who used the page in English gets English; the paid email links the proof of transfer', async () => {
    const { h, page } = env;
    const p = await createPayment(env, { supplierEmail: 'abroad@example.com', supplierName: 'Sam Smith', amountAgorot: 50_000, vatIncluded: true });
    await page.goto(`${p.url}?lang=en`);
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'Sam Smith' });
    await submit(page);
    const proof = Buffer.from('%PDF-1.4\n% transfer confirmation\n%%EOF\n');
    await h.call('markPaid', { paymentId: p.id, proof: { fileName: 'העברה 991.pdf', mimeType: 'application/pdf', dataBase64: proof.toString('base64') } });
    const raw = (await mailTo('abroad@example.com', /paid you/)).raw;
    const mail = await received('payment-paid-en', raw, 'en');
    assert.equal(mail.from?.value[0].name, 'Dana Studio via Business Finance');
    assert.match(mail.text!, /Company id 515555555|company id 515555555/);
    const proofUrl = /Proof of transfer:\n(\S+)/.exec(mail.text!)?.[1];
    assert.ok(proofUrl, 'the proof is linked');
    const res = await fetch(env.origin + new URL(proofUrl).pathname);
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), proof);
    // One figure: what was paid.
    assert.match(mail.text!, /₪500\.00/);
  });

  test('owner notices are Hebrew and link to an HTML page, never JSON', async () => {
    const { h, page } = env;
    const p = await createPayment(env, { supplierName: 'נגר', amountAgorot: 100_000, vatIncluded: false });
    await page.goto(p.url);
    await fillBank(page, { code: '12', branch: '600', account: '123456', beneficiary: 'נגר' });
    await submit(page);
    const raw = (await mailTo(h.owner.email, /נגר מילא\/ה את פרטי התשלום/)).raw;
    const mail = await received('owner-ready', raw, 'he');
    assert.match(mail.text!, /₪1,180\.00/);
    const link = /לפתיחת התשלום:\n(\S+)/.exec(mail.text!)?.[1];
    assert.ok(link?.endsWith(`/payments/${p.id}`), link);
    const res = await fetch(env.origin + new URL(link!).pathname);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), new RegExp(`paymentGet.*${p.id}`));
  });

  test('the standing-link filer is told the request was received and waits for review; the business gets the filing notice', async () => {
    const { h, page } = env;
    await page.goto(`${env.origin}/p/link/dana-mail`);
    await page.fill('#name', 'משה');
    await page.fill('#email', 'moshe.filer@example.com');
    await page.fill('#amount', '250');
    await page.fill('#description', 'תיקון דלת');
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'משה' });
    await submit(page);
    const filer = await received('filer-receipt', (await mailTo('moshe.filer@example.com', /התקבלה/)).raw, 'he');
    assert.match(filer.text!, /ממתינה לבדיקה של סטודיו דנה/);
    assert.doesNotMatch(filer.text!, /רוצה לשלם לך|ממתין לביצוע/);
    await received('owner-public-filing', (await mailTo(h.owner.email, /דרך הקישור הקבוע/)).raw, 'he');
  });

  test('a late invoice notice, the invitation and the month package render the same way', async () => {
    const { h, page } = env;
    const p = await createPayment(env, { supplierName: 'חשמלאי' });
    await page.goto(p.url);
    await fillBank(page, { code: '10', branch: '800', account: '12345678', beneficiary: 'x' });
    await submit(page);
    await approvedByAnotherAdmin(h, p.id); // the same supplier's payout changed: approval first (issue 36)
    await h.call('markPaid', { paymentId: p.id });
    await page.goto(p.url);
    await page.setInputFiles('#invoice', { name: 'חשבונית 5521.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\nlate\n%%EOF\n') });
    await submit(page);
    await received('owner-late-invoice', (await mailTo(h.owner.email, /צירף\/ה חשבונית לתשלום שכבר שולם/)).raw, 'he');

    await h.call('inviteMember', { email: 'new.member@example.com', role: 'user' });
    const invite = await received('invite', (await mailTo('new.member@example.com', /הזמנה|הוזמנת/)).raw, 'he');
    const link = /לקבלת ההזמנה:\n(\S+)/.exec(invite.text!)?.[1];
    assert.match(link ?? '', /\/invite\/[A-Za-z0-9_-]{43}$/);
    const res = await fetch(env.origin + new URL(link!).pathname);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.doesNotMatch(await res.text(), /[A-Za-z0-9_-]{43}/, 'the page never repeats the invite token');

    const at = new Date().toISOString();
    const account: AccountRecord = { id: 'usbank_m1', source: 'usbank', connectionId: 'c1', providerAccountId: 'p1', name: 'Mercury Checking', currency: 'USD', status: 'connected', reason: null, createdAt: at, updatedAt: at };
    await h.app.services.store.set(accountsPath(h.owner.businessId, account.id), { ...account });
    const file = await h.app.services.files.save(h.owner.businessId, { fileName: 'statement.pdf', contentType: 'application/pdf', bytes: Buffer.from('%PDF-1.4 statement') });
    const st: StatementRecord = {
      id: statementId(account.id, '2026-03'), accountId: account.id, source: 'usbank', accountName: account.name, month: '2026-03', status: 'ready', reason: null,
      files: [{ fileId: file.fileId, fileName: file.fileName, contentType: file.contentType, size: file.size }], gen: 1, runs: 1, runId: null, send: null, requestedAt: at, syncedAt: at,
    };
    await h.app.services.store.set(statementsPath(h.owner.businessId, st.id), { ...st });
    await h.call('statementsSend', { month: '2026-03', recipients: ['cpa@example.com'] });
    const pkg = await received('month-package', (await mailTo('cpa@example.com', /2026-03/)).raw, 'he');
    assert.match(pkg.text!, /\(\u2068\d+ KB\u2069\)/);
    assert.doesNotMatch(pkg.text!, /0\.0 MB/);
  });
});
