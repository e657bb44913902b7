import { existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startSmtp, mailText } from '../../fakes/smtp.ts';
import { paymentsPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';

/** Debian's chromium (`.ci/run` installs it); a tool never downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';
/** Without the browser the page tests skip locally, but CI must have it. */
export const skipBrowser = existsSync(CHROMIUM) ? false : process.env.CI ? false : `${CHROMIUM} is not installed`;

export interface PagesEnv {
  h: Harness;
  origin: string;
  browser: Browser;
  page: Page;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  close(): Promise<void>;
}

/** One harness (real SMTP for the business notifications), one server, one headless browser at a phone's size. */
export async function pagesEnv(): Promise<PagesEnv> {
  const smtp = await startSmtp();
  const h = await createHarness({ env: { SMTP_URL: smtp.url } });
  const origin = await h.listen();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  return {
    h,
    origin,
    browser,
    page,
    smtp,
    async close() {
      await browser.close();
      await h.close();
      await smtp.close();
    },
  };
}

/** A payment as the business creates it; channel link so nothing goes to the supplier. */
export async function createPayment(env: PagesEnv, over: Record<string, unknown> = {}, user?: TestUser) {
  const view = await env.h.call('createPayment', { amountAgorot: 12_345, vatIncluded: true, description: 'Kitchen shelves', supplierName: 'Dana Cohen', supplierPhone: '050-123-4567', channel: 'link', ...over }, user);
  // The configured link base carries the default port; the page lives on the test server.
  return { id: view.id as string, url: env.origin + new URL(view.link).pathname };
}

export async function stored(env: PagesEnv, id: string, businessId = env.h.owner.businessId): Promise<PaymentRecord> {
  const doc = await env.h.app.services.store.get(paymentsPath(businessId, id));
  assert.ok(doc, `payment ${id}`);
  return doc.data as unknown as PaymentRecord;
}

/** Clicks the form's submit button and waits for the page it leads to (after a 303, the final one). */
export async function submit(page: Page, form = 'form'): Promise<Response> {
  const [res] = await Promise.all([page.waitForNavigation(), page.click(`${form} button[type=submit]`)]);
  assert.ok(res);
  return res;
}

export function assertPageHeaders(res: Response) {
  const h = res.headers();
  assert.match(h['content-type'], /^text\/html/);
  assert.match(h['content-security-policy'], /default-src 'none'/);
  assert.equal(h['referrer-policy'], 'no-referrer');
}

/** Emails delivered to `to` whose decoded text matches. */
export async function mailsTo(env: PagesEnv, to: string, text: RegExp, want = 1) {
  await env.h.app.queue!.drain();
  const until = Date.now() + 5000;
  for (;;) {
    const found = env.smtp.mails.filter((m) => m.to.includes(to) && text.test(mailText(m.raw)));
    if (found.length >= want || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
export const pdfFile = (name = 'invoice.pdf', tag = name) => ({ name, mimeType: 'application/pdf', buffer: Buffer.concat([PDF, Buffer.from(tag)]) });

export async function fillBank(page: Page, v: { code: string; branch: string; account: string; beneficiary: string }) {
  // The bank is chosen from the list; a code that is not on it leaves the choice empty.
  await page.selectOption('#bankCode', (await page.locator(`#bankCode option[value="${v.code}"]`).count()) ? v.code : '');
  await page.fill('#bankBranch', v.branch);
  await page.fill('#bankAccount', v.account);
  await page.fill('#bankBeneficiary', v.beneficiary);
}
