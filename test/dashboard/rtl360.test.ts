import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, axe, dashboardEnv, type DashboardEnv } from './env.ts';
import { fillBank, pdfFile, skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { startFakeGmail, gmailEnv, type FakeGmail } from '../fakes/gmail.ts';
import { mailText } from '../fakes/smtp.ts';
import { hebrewFormPdf, PDF_FIELDS } from '../operations/signupDocs/forms.ts';

/**
 * Issue 35 item 11: every screen of the dashboard in Hebrew at 360 px, with long Hebrew and English names and big
 * amounts, has no sideways scroll, no control off-screen and no clipped button, badge or tab; left-to-right
 * fragments keep their order inside Hebrew (a phone's "+", a masked "•••901", "<email>", the setup steps); axe
 * on each screen, screenshots at 360 and 1280 px, no console error or failed request.
 */
// The page-side functions below run in the browser; the tests' TypeScript has no DOM types.
declare const document: any, window: any, NodeFilter: any, getComputedStyle: any;
type Text = any;
type Element = any;

const HE_SUPPLIER = 'סטודיו לעיצוב גרפי ואריזות "הכרמל הירוק" בע"מ';
const EN_SUPPLIER = 'Northwind International Creative Services Holdings Ltd';
const HE_SENDER = 'דנה כהן-לוינשטיין';
const KEY = 'rk_test_51Rtl360Restricted';

/** Waits for a screen's first heading and for its skeletons to go (polled from here: the page's CSP allows no eval). */
async function settled(page: Page, path: string) {
  const end = Date.now() + 20_000;
  for (;;) {
    const state = (await page.evaluate(() => ({
      h1: document.querySelector('h1')?.textContent ?? '',
      busy: document.querySelectorAll('.mantine-Skeleton-root, [aria-busy=true]').length,
    }))) as { h1: string; busy: number };
    if (state.h1 && !/^טוען/.test(state.h1) && !state.busy) break;
    if (Date.now() > end) throw new Error(`${path} did not settle: ${JSON.stringify(state)}`);
    await page.waitForTimeout(100);
  }
  await page.waitForLoadState('load');
  // Late parts of the screen (its other queries) render before anything is measured.
  await page.waitForTimeout(150);
}

/** What the owner would see wrong at this width: sideways scroll, controls past the edge, cut labels. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const W = window.innerWidth;
    const name = (el: Element) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40) || el.getAttribute('aria-label') || ''}"`;
    const width = document.documentElement.scrollWidth;
    if (width > W) out.push(`the page is ${width} px wide at ${W} px (sideways scroll)`);
    for (const el of document.querySelectorAll('button, a, input, [role=tab], .mantine-Badge-root')) {
      const r = el.getBoundingClientRect();
      // Visually hidden helpers are 1 px boxes; a closed menu's items have no box.
      if (r.width <= 1 || r.height <= 1) continue;
      // The phone's closed navigation drawer waits beside the page, whole.
      const drawer = el.closest('.mantine-AppShell-navbar')?.getBoundingClientRect();
      if (drawer && (drawer.left >= W || drawer.right <= 0)) continue;
      if (r.right > W + 0.5 || r.left < -0.5) out.push(`off-screen: ${name(el)} spans ${Math.round(r.left)}–${Math.round(r.right)} px`);
    }
    for (const el of document.querySelectorAll('.mantine-Badge-label, .mantine-Button-label, .mantine-Tabs-tabLabel')) {
      if (el.scrollWidth > el.clientWidth + 1) out.push(`clipped: ${name(el)} shows ${el.clientWidth} of ${el.scrollWidth} px`);
    }
    // Text drawn past the edge is cut (a long address that does not wrap inside its card).
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const drawer = n.parentElement?.closest('.mantine-AppShell-navbar')?.getBoundingClientRect();
      if (!n.data.trim() || (drawer && (drawer.left >= W || drawer.right <= 0))) continue;
      // Cut on purpose, with an ellipsis (the business name in the header).
      if (n.parentElement && getComputedStyle(n.parentElement).textOverflow === 'ellipsis') continue;
      const r = document.createRange();
      r.selectNodeContents(n);
      for (const b of r.getClientRects()) if (b.width > 1 && (b.right > W + 0.5 || b.left < -0.5)) out.push(`text past the edge: "${n.data.trim().slice(0, 40)}" spans ${Math.round(b.left)}–${Math.round(b.right)} px`);
    }
    // A phone or an address typed into a right-to-left field shows its "+" or its dots on the wrong side.
    for (const el of document.querySelectorAll('input')) {
      if (/^\+\d|@/.test(el.value) && getComputedStyle(el).direction !== 'ltr') out.push(`the field "${el.value}" runs right to left`);
    }
    return out;
  });
}

/**
 * Left-to-right fragments in their order, wherever they appear: a phone's "+" before its digits, a mask before the
 * digits it keeps, a Latin prefix before its "…" ("rk_live_…"), and "<" … "@" … ">" of an address, each measured
 * by where the characters are drawn.
 */
function orderProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const box = (node: Text, i: number) => {
      const r = document.createRange();
      r.setStart(node, i);
      r.setEnd(node, i + 1);
      return r.getClientRects()[0];
    };
    // true unless both characters are drawn on one line with the second one left of the first.
    const inOrder = (node: Text, i: number, j: number) => {
      const a = box(node, i);
      const b = box(node, j);
      if (!a || !b || Math.abs(a.top - b.top) > 2) return true;
      return a.left < b.left;
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      const t = n.data;
      for (const m of t.matchAll(/\+\d/g)) if (!inOrder(n, m.index, m.index + 1)) out.push(`phone: "+" drawn after the digits of "${t}"`);
      for (const m of t.matchAll(/[•…]\d/g)) if (!inOrder(n, m.index, m.index + 1)) out.push(`masked number: the digits drawn before the mask in "${t}"`);
      for (const m of t.matchAll(/[\w]…/g)) if (!inOrder(n, m.index, m.index + 1)) out.push(`prefix: the "…" drawn before "${t.slice(Math.max(0, m.index - 11), m.index + 1)}"`);
      for (const m of t.matchAll(/<[^<>\s]+@[^<>\s]+>/g)) {
        const at = m.index + m[0].indexOf('@');
        if (!inOrder(n, m.index, at) || !inOrder(n, at, m.index + m[0].length - 1)) out.push(`address: brackets flipped in "${t}"`);
      }
    }
    return out;
  });
}

/**
 * Whether the pieces of `text` (found under `root`, in one element's text or across its isolated parts) are drawn
 * in reading order: each next piece on a later line, or on the same line after the one before in `dir`.
 */
async function inOrder(page: Page, root: string, text: string, pieces: string[], dir: 'rtl' | 'ltr' = 'ltr'): Promise<string[]> {
  const boxes = (await page.evaluate(
    ([root, text, pieces]) => {
      const el = [...document.querySelectorAll(root)].flatMap((r) => [r, ...r.querySelectorAll('*')]).reverse().find((e) => [text, ...pieces].every((p) => (e.textContent ?? '').includes(p)));
      if (!el) return null;
      const nodes: Text[] = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) nodes.push(n);
      const all = nodes.map((n) => n.data).join('');
      let from = all.indexOf(text);
      return pieces.map((p) => {
        const at = all.indexOf(p, from);
        if (at < 0) return null;
        from = at + p.length;
        // The text node and offset of the piece's first character.
        let i = at;
        const node = nodes.find((n) => (i < n.data.length ? true : ((i -= n.data.length), false)))!;
        const r = document.createRange();
        r.setStart(node, i);
        r.setEnd(node, i + 1);
        const b = r.getClientRects()[0];
        return { left: b.left, right: b.right, top: b.top };
      });
    },
    [root, text, pieces] as const,
  )) as ({ left: number; right: number; top: number } | null)[] | null;
  if (!boxes) return [`"${text}" is not on the screen`];
  const missing = pieces.filter((_, i) => !boxes[i]);
  if (missing.length) return [`${missing.map((p) => `"${p}"`).join(', ')} not found after "${text}"`];
  const out: string[] = [];
  for (let i = 1; i < boxes.length; i++) {
    const [a, b] = [boxes[i - 1]!, boxes[i]!];
    const later = b.top > a.top + 2 || (Math.abs(b.top - a.top) <= 2 && (dir === 'rtl' ? b.right <= a.left + 1 : b.left >= a.right - 1));
    if (!later) out.push(`"${pieces[i]}" is drawn before "${pieces[i - 1]}" in "${text}"`);
  }
  return out;
}

describe('every screen in Hebrew at 360 px: no sideways scroll, nothing cut, left-to-right pieces in order (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let stripe: FakeStripe;
  let gmail: FakeGmail;
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  const ids = { paid: '', open: '', supplier: '', invoice: '', employee: '', form: '', invite: '', run: '' };
  const api = async (op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, `${op}: ${JSON.stringify(json)}`);
    return json.result;
  };

  before(async () => {
    [stripe, gmail] = await Promise.all([startFakeStripe(), startFakeGmail()]);
    stripe.keys.set(KEY, new Set(['reporting', 'account']));
    const now = Date.now();
    const senders = [`${HE_SENDER} <dana.cohen-levinstein@studio-example.co.il>`, `${EN_SUPPLIER} <accounts-receivable@northwind-creative.example>`];
    senders.forEach((from, i) => gmail.add({ id: `m${i}`, from, subject: `חשבונית מס ${1000 + i}`, dateMs: now - (i + 1) * 3_600_000, body: { mimeType: 'text/plain', data: Buffer.from('שלום') } }));
    const { ALLOWED_ORIGINS: _, ...mailbox } = gmailEnv(gmail);
    env = await dashboardEnv({ env: { ...mailbox, CARDPROC_BASE_URL: stripe.baseUrl } });
    const form = await hebrewFormPdf();
    env.gemini.answer((r) => Boolean(r.inline[0]?.bytes.equals(form)), { text: JSON.stringify({ fields: PDF_FIELDS.map((f) => ({ ...f, value: '' })) }) });
    env.gemini.answer(
      (r) => r.inline.length > 0,
      {
        text: JSON.stringify({
          issuer: { name: EN_SUPPLIER, vatId: '514512345', email: 'accounts-receivable@northwind-creative.example', phone: '+972 3-555-0199' },
          docType: 'tax_invoice',
          number: 'INV-2026-000123456',
          date: '2026-03-10',
          total: 9876543.21,
          currency: 'ILS',
          vat: 1506591.34,
          payMethod: 'card',
          cardEnding: '4567',
          lineItems: [],
          bank: null,
          allocationNumber: '',
        }),
      },
    );
    await api('updateBusiness', { businessName: 'סטודיו דנה לעיצוב ואריזות מתקדמות בע"מ', myName: HE_SENDER });
    // A paid payment with a bank payout (the revert button, the masked account) and an open one in dollars.
    const paid = await api('createPayment', { supplierName: HE_SUPPLIER, description: 'עיצוב מחדש של כל האריזות לקולקציית החורף, כולל הדפסות ניסיון', amountAgorot: 987_654_321, vatIncluded: true, supplierPhone: '050-123-4567', supplierEmail: 'studio.carmel.green.packaging@example.co.il' });
    ids.paid = paid.id;
    ids.open = (await api('createPayment', { supplierName: EN_SUPPLIER, description: 'Quarterly retainer for brand strategy and campaign production', amountAgorot: 999_999_999, currency: 'USD', vatIncluded: false, supplierEmail: 'accounts-receivable@northwind-creative.example' })).id;
    // A recurring schedule with long words and the largest amount (the Recurring screen's card at 360 px).
    await api('recurringCreate', { template: { supplierName: HE_SUPPLIER, supplierEmail: 'studio.carmel.green.packaging@example.co.il', amountAgorot: 999_999_999, vatIncluded: false, description: 'ריטיינר חודשי לעיצוב ולניהול המותג {month}', channel: 'link' }, cadence: 'yearly', dayOfMonth: 28, month: 12, startDate: '2026-01-01', endDate: '2030-12-31', dueInDays: 30 });
    await api('saveSupplierContact', { supplierKey: '+972501234567', phone2: '+972 3-555-0199', bitPhone: '+972501234567', personalEmail: 'dana.carmel.personal@example.co.il' });
    await api('createSupplier', { name: 'ירון אברהמי-רוזנבלום הפקות ואירועים', phone: '+972521112233', kind: 'freelancer' });
    ids.supplier = encodeURIComponent('+972501234567');
    const f = pdfFile('חשבונית מס 000123456.pdf', 'rtl360');
    ids.invoice = (await api('uploadInvoiceDoc', { fileName: f.name, mimeType: f.mimeType, dataBase64: f.buffer.toString('base64') })).docId;
    ids.employee = (await api('employeeCreate', { name: 'אלכסנדרה בן-דוד שטרנברג', email: 'alexandra.ben-david@example.co.il', phone: '054-765-4321', title: 'מנהלת כספים ותפעול' })).id;
    ids.form = (await api('analyzeSignupDoc', { fileName: 'טופס הקמת ספק.pdf', mimeType: 'application/pdf', dataBase64: form.toString('base64') })).docId;
    await api('inviteMember', { email: 'bookkeeper.with.a.long.address@accounting-example.co.il', role: 'user' });
    await api('apiKeyCreate', { name: 'Zapier אוטומציה לחשבוניות' });
    await api('cardprocConnect', { apiKey: KEY });

    // The supplier fills the bank details on the link page; then the payment is marked paid.
    const supplier = await env.context();
    await supplier.page.goto(paid.link);
    await fillBank(supplier.page, { code: '12', branch: '345', account: '678901', beneficiary: HE_SUPPLIER });
    await Promise.all([supplier.page.waitForNavigation(), supplier.page.click('form button[type=submit]')]);
    await supplier.context.close();
    // Paid through a payment run (issue 36): the run's page has a payment, its totals and a warning (no MASAV codes).
    // The card's Bit phone typed earlier differs from the bank details filed: an admin confirms before paying.
    if ((await api('paymentGet', { paymentId: ids.paid })).approval.state === 'pending') await api('paymentApprove', { paymentId: ids.paid });
    ids.run = (await api('payRunCreate', { paymentIds: [ids.paid], note: 'ספקים של החודש' })).id;
    await api('payRunMarkPaid', { runId: ids.run });
    const invite = env.smtp.mails.map((m) => mailText(m.raw)).join('\n');
    ids.invite = /\/invite\/([\w-]+)/.exec(invite)?.[1] ?? '';
    assert.ok(ids.invite, 'the invite mail carries its link');

    owner = await env.context();
    await env.signIn(owner.page, env.owner.email);
    const { page } = owner;
    // The mailbox through the fake Gmail's consent and our return page, then its two mails imported.
    await page.goto(env.origin + '/mailboxes');
    await page.getByRole('button', { name: 'חיבור תיבת דואר' }).first().click();
    await page.getByRole('button', { name: 'חיבור · Connect' }).click();
    await page.getByRole('heading', { name: 'תיבת הדואר חוברה' }).waitFor();
    const [box] = (await api('mailboxListAccounts', {})).items;
    const imp = await api('mailboxImportStart', { accountId: box.accountId, since: now - 86_400_000 });
    for (let i = 0; (await api('mailboxImportGet', { importId: imp.importId })).status === 'running'; i++) {
      assert.ok(i < 200, 'the import ends');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await env?.close();
    await Promise.all([stripe?.close(), gmail?.close()]);
  });

  test('every route, with data, at 360 px (screenshots at 360 and 1280)', async () => {
    const { page, problems } = owner;
    const routes: [string, string][] = [
      ['/', 'home'], ['/payments', 'payments'], ['/payments/new', 'payment-new'], ['/payments/incoming', 'payments-incoming'],
      [`/payments/${ids.paid}`, 'payment-paid'], [`/payments/${ids.open}`, 'payment-open'], ['/pay', 'pay'], [`/pay/runs/${ids.run}`, 'pay-run'], ['/recurring', 'recurring'],
      ['/suppliers', 'suppliers'], [`/suppliers/${ids.supplier}`, 'supplier'],
      ['/invoices', 'invoices'], ['/invoices/folders', 'folders'], ['/invoices/categories', 'categories'], ['/invoices/software', 'software'], [`/invoices/${ids.invoice}`, 'invoice'],
      ...['profile', 'link', 'apps', 'pay', 'integrations', 'notifications', 'api', 'team'].map((t): [string, string] => [`/settings/${t}`, `settings-${t}`]),
      ['/activity', 'activity'], ['/statements', 'statements'], ['/statements/sources', 'statements-sources'], ['/statements/market', 'statements-market'],
      ['/mailboxes', 'mailboxes'], ['/mailboxes/mails', 'mailboxes-mails'], ['/automations', 'automations'],
      ['/employees', 'employees'], ['/employees/import', 'employees-import'], ['/employees/new', 'employee-new'], [`/employees/${ids.employee}`, 'employee'],
      ['/forms', 'forms'], [`/forms/${ids.form}`, 'form'], ['/accountant', 'accountant'], ['/reports', 'reports'], ['/no-such-screen', 'not-found'], [`/invite/${ids.invite}`, 'invite'],
    ];
    // What each screen must show in order, where the issue saw it wrong (each piece must be on the screen).
    const specific: Record<string, () => Promise<string[]>> = {
      'payment-paid': async () => {
        const out = [...(await inOrder(page, '[data-testid=payout]', '•••901', ['•', '9']))];
        // The details changed (the card had a Bit phone, the supplier filed a bank): the arrow points from the old to the new as Hebrew reads.
        const change0 = (await api('paymentGet', { paymentId: ids.paid })).payoutChange;
        // The server writes the method in English ("bit ••••567"); the Hebrew page names it in Hebrew.
        const [previous, filed] = [change0.previous, change0.filed].map((t: string) => t.replace(/^bank (.*)$/, 'בנק \u2066$1\u2069').replace(/^bit (.*)$/, 'ביט \u2066$1\u2069'));
        out.push(...(await inOrder(page, '[data-testid=payout-change]', previous, [previous, filed], 'rtl')));
        // A message the server could not send (no WhatsApp here) says why in Hebrew, not in the outbox's English.
        const body = (await page.locator('#main').textContent()) ?? '';
        if (/channel is not configured/.test(body)) out.push('a delivery error shows in English');
        if (!body.includes('ערוץ WhatsApp לא מוגדר בשרת')) out.push('the WhatsApp delivery error is not said in Hebrew');
        const change = (await page.getByTestId('payout-change').textContent()) ?? '';
        if (!change.includes(' ← ')) out.push(`the payout change reads "${change}": its arrow should point from the old details to the new, right to left`);
        const revert = (await page.getByRole('button', { name: 'ביטול הסימון "שולם"' }).boundingBox())!;
        if (revert.x < 0 || revert.x + revert.width > 360) out.push(`the revert button spans ${Math.round(revert.x)}–${Math.round(revert.x + revert.width)} px`);
        const copy = (await page.getByRole('button', { name: 'העתקה' }).evaluate((b) => [b.scrollWidth, b.clientWidth, b.querySelector('.mantine-Button-label')!.scrollWidth, b.querySelector('.mantine-Button-label')!.clientWidth])) as number[];
        if (copy[0] > copy[1] || copy[2] > copy[3]) out.push(`"העתקה" is cut: ${copy.join(', ')}`);
        return out;
      },
      suppliers: () => inOrder(page, 'main', '+972521112233', ['+', '9']),
      // A Hebrew file name in a row keeps its number before its extension ("pdf.000123456" before the fix).
      activity: () => inOrder(page, 'main', 'חשבונית מס 000123456.pdf', ['000123456', '.pdf']),
      'mailboxes-mails': () => inOrder(page, 'main', '<dana.cohen-levinstein@studio-example.co.il>', ['<', '@', '>']),
      'statements-sources': async () => [
        ...(await inOrder(page, '#connect-cardproc', 'ב-Stripe', ['Developers', 'API keys', 'Create restricted key'], 'rtl')),
        ...(await inOrder(page, '#connect-fxwallet', 'ב-Wise', ['Settings', 'Integrations and tools', 'API tokens', 'Add new token'], 'rtl')),
      ],
      statements: async () => ((await page.locator('[data-testid=statement-cell] .mantine-Badge-root').count()) ? [] : ['no statement badge on the screen']),
    };
    const found: string[] = [];
    const started = Date.now();
    for (const [path, name] of routes) {
      await page.setViewportSize({ width: 360, height: 780 });
      await page.goto(env.origin + path);
      await settled(page, path);
      for (const p of [...(await layoutProblems(page)), ...(await orderProblems(page)), ...((await specific[name]?.()) ?? [])]) found.push(`${name}: ${p}`);
      await axe(page, `${path} at 360 px`);
      await page.screenshot({ path: join(ARTIFACTS, `rtl360-${name}-360.png`), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: join(ARTIFACTS, `rtl360-${name}-1280.png`), fullPage: true });
      // Wide, an address or a phone that wrapped at 360 px sits on one line, where its order shows.
      for (const p of await orderProblems(page)) found.push(`${name} at 1280 px: ${p}`);
    }
    console.log(`${routes.length} screens in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(found.join('\n'), '');
    assert.deepEqual(problems, [], 'console errors or failed requests');
  });

  test('at 360 px the closed menu is out of the Tab order; opened, its links are reachable', async () => {
    const { page } = owner;
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(env.origin + '/');
    await settled(page, '/');
    const inMenu = () => page.evaluate(`Boolean(document.activeElement && document.activeElement.closest('[aria-label="תפריט"] nav'))`) as Promise<boolean>;
    const tabbed: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      tabbed.push(await inMenu());
    }
    assert.deepEqual(tabbed.filter(Boolean), [], 'Tab reached a link of the closed menu');
    await page.getByRole('button', { name: 'תפריט' }).click();
    await page.getByRole('link', { name: 'תשלומים' }).first().focus();
    assert.equal(await inMenu(), true);
  });
});
