import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { pagesEnv, createPayment, fillBank, submit, skipBrowser, mailsTo, type PagesEnv } from '../surfaces/pages/browserEnv.ts';
import { parseMail } from '../fakes/smtp.ts';
import { artifactPath } from '../artifacts.ts';

/**
 * Issue 35 item 14, what people receive: the accountant's ZIP email, the invite and its resend, the
 * canceled supplier page and the paid notice, read back from a real SMTP server and shown in Chromium at
 * 360 and 1280 px (axe clean, no console errors). Latin text inside Hebrew keeps its order.
 */
const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
const BUSINESS = 'סטודיו דנה';
const OWNER = 'דנה כהן';
// Its own trailing period: shown without isolation in a Hebrew line as ".Google Ads (campaign #4)".
const DESCRIPTION = 'Google Ads (campaign #4).';

describe('what people receive', { skip: skipBrowser }, () => {
  let env: PagesEnv;
  let ctx: BrowserContext;
  let shown: Page;
  const consoleErrors: string[] = [];

  before(async () => {
    env = await pagesEnv();
    await env.h.call('updateBusiness', { businessName: BUSINESS, name: OWNER });
    ctx = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
    shown = await ctx.newPage();
    shown.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
    shown.on('pageerror', (e) => void consoleErrors.push(e.message));
  });
  after(async () => {
    await ctx?.close();
    await env?.close();
  });

  async function mailTo(to: string, match: RegExp) {
    const found = await mailsTo(env, to, match);
    assert.ok(found.length, `a mail to ${to} matching ${match}`);
    return parseMail(found.at(-1)!.raw);
  }

  /** Screenshots at 360 and 1280 px, no sideways scrolling at 360, axe at WCAG 2.1 AA, no console errors. */
  async function check(name: string) {
    for (const width of [360, 1280]) {
      await shown.setViewportSize({ width, height: 800 });
      const scroll = (await shown.evaluate('document.documentElement.scrollWidth')) as number;
      assert.ok(scroll <= width, `${name}: ${scroll} px wide at ${width} px`);
      await shown.screenshot({ path: artifactPath('emails', `issue35-${name}-${width}.png`), fullPage: true });
    }
    await shown.evaluate(AXE);
    const violations = (await shown.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((r) => r.violations.map((v) => v.id + ': ' + v.help + ' at ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))`)) as string[];
    assert.deepEqual(violations, [], `axe on ${name}`);
    assert.deepEqual(consoleErrors, [], `${name}: console errors`);
  }

  /** An email's HTML part on a blank page (not under a supplier page's CSP, which would block its inlined styles). */
  async function showMail(html: string) {
    await shown.goto('about:blank');
    await shown.setContent(html);
  }

  /** Where `text`'s first and last characters are drawn (left edges, px), inside the first element matching `selector` that holds it. */
  async function drawn(selector: string, text: string): Promise<{ first: number; last: number }> {
    const at = (await shown.evaluate(`(() => {
      const text = ${JSON.stringify(text)};
      const el = [...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.includes(text));
      if (!el) return null;
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const i = n.data.indexOf(text);
        if (i < 0) continue;
        const r = document.createRange();
        const x = (k) => (r.setStart(n, k), r.setEnd(n, k + 1), r.getBoundingClientRect().left);
        return { first: x(i), last: x(i + text.length - 1) };
      }
      return null;
    })()`)) as { first: number; last: number } | null;
    assert.ok(at, `"${text}" in ${selector}`);
    return at;
  }

  /** Latin text reads left to right even inside a right-to-left sentence: its last character is drawn right of its first. */
  async function inOrder(selector: string, text: string) {
    const { first, last } = await drawn(selector, text);
    assert.ok(last > first, `"${text}" keeps its order in ${selector} (first at ${first}, last at ${last})`);
  }

  test("the accountant's ZIP email is Hebrew HTML, replies reach the business, and its size is truthful", async () => {
    const { h } = env;
    await h.call('accZipSend', { from: '2025-03', to: '2025-04', recipients: ['cpa35@example.com'] });
    const mail = await mailTo('cpa35@example.com', /2025-03/);
    assert.deepEqual(mail.replyTo?.value.map((a) => a.address), [h.owner.email]);
    assert.equal(mail.from?.value[0].name, `${BUSINESS} via Business Finance`);
    assert.match(mail.html as string, /<html lang="he" dir="rtl">/);
    assert.match(mail.text!, /החבילה לרואה החשבון/);
    const size = /גודל: (\d+ KB)\n/.exec(mail.text!)?.[1];
    assert.ok(size, mail.text!);
    assert.ok(mail.text!.includes(`להורדת החבילה (\u2068${size}\u2069):`), mail.text!);
    assert.doesNotMatch(`${mail.text}${mail.html}`, /0\.0 MB/);
    await showMail(mail.html as string);
    assert.equal(await shown.evaluate('getComputedStyle(document.querySelector("h1")).direction'), 'rtl');
    // "1 KB" in the Hebrew button reads as it does in the facts, not "KB 1".
    await inOrder('a.button', size);
    await check('acc-zip-email');
  });

  test('the invite names who invited; the resent invite says the old link no longer works', async () => {
    const { h } = env;
    const invite = await h.call('inviteMember', { email: 'joiner35@example.com', role: 'user' });
    const first = await mailTo('joiner35@example.com', /הוזמנת/);
    assert.ok(first.text!.includes(`${OWNER} (${h.owner.email})`), `the inviter in: ${first.text}`);
    assert.doesNotMatch(first.text!, /הקישור מההזמנה הקודמת/);
    await h.call('resendInvite', { inviteId: invite.inviteId });
    const again = await mailTo('joiner35@example.com', /הקישור מההזמנה הקודמת כבר לא עובד/);
    assert.match(again.subject ?? '', /^הזמנה חדשה/);
    assert.ok(again.text!.includes(`${OWNER} (${h.owner.email})`));
    await showMail(again.html as string);
    await inOrder('p', h.owner.email);
    await check('invite-resent');
  });

  test('the canceled supplier page names the business in its heading, says "canceled" once, and keeps Latin names and descriptions in order', async () => {
    const { h } = env;
    const latin = 'Acme Studio Ltd.';
    await h.call('updateBusiness', { businessName: latin });
    try {
      const p = await createPayment(env, { description: DESCRIPTION });
      await h.call('cancelPayment', { paymentId: p.id });
      await shown.goto(p.url);
      const heading = (await shown.textContent('h1')) ?? '';
      assert.match(heading, /בקשת התשלום בוטלה/);
      assert.ok(heading.includes(latin), `the heading names the business: ${heading}`);
      const main = (await shown.textContent('main')) ?? '';
      assert.equal(main.split('בוטלה').length - 1, 1, `"canceled" is said once: ${main}`);
      await inOrder('.desc', DESCRIPTION);
      await inOrder('h1', latin);
      await check('canceled-page');
    } finally {
      await h.call('updateBusiness', { businessName: BUSINESS });
    }
  });

  test('the paid notice links its proof by a short label and keeps Latin names and descriptions in order', async () => {
    const { h } = env;
    const p = await createPayment(env, { supplierEmail: 'acme35@example.com', supplierName: 'Acme Ltd.', description: DESCRIPTION });
    await shown.goto(p.url);
    await fillBank(shown, { code: '10', branch: '800', account: '12345678', beneficiary: 'Acme Ltd.' });
    await submit(shown);
    const proof = Buffer.from('%PDF-1.4\n% transfer\n%%EOF\n');
    await h.call('markPaid', { paymentId: p.id, proof: { fileName: 'transfer.pdf', mimeType: 'application/pdf', dataBase64: proof.toString('base64') } });
    const mail = await mailTo('acme35@example.com', /שילם לך/);
    // The text part isolates the description and the name where they sit in Hebrew.
    assert.ok(mail.text!.includes(`עבור: \u2068${DESCRIPTION}\u2069`), mail.text!);
    assert.ok(mail.text!.includes('שלום \u2068Acme Ltd.\u2069,'), mail.text!);
    const proofUrl = /אסמכתת ההעברה:\n(\S+)/.exec(mail.text!)?.[1];
    assert.ok(proofUrl, 'the proof is linked');
    await showMail(mail.html as string);
    const anchors = (await shown.evaluate(`[...document.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.textContent.trim()])`)) as [string, string][];
    assert.deepEqual(anchors.filter(([href]) => href === proofUrl).map(([, text]) => text), ['אסמכתת ההעברה'], 'one labelled link to the proof, never its URL as text');
    await inOrder('p', 'Acme Ltd.');
    await inOrder('td.value', DESCRIPTION);
    await check('paid-notice');
  });
});
