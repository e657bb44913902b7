import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { pdfFile, skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 3: in the invoices list the owner selects several invoices (by keyboard too), then moves them to
 * a folder, assigns a supplier and sets a category from the action bar, reading each result in Hebrew.
 */
const ISSUERS = ['Office Depot', 'El Al', 'Bezeq', 'Paz'];
const reading = (name: string, number: string) => ({
  issuer: { name, vatId: '', email: '', phone: '' },
  docType: 'tax_invoice',
  number,
  date: '2026-03-10',
  total: 100,
  currency: 'ILS',
  vat: 0,
  payMethod: '',
  cardEnding: '',
  lineItems: [],
  bank: null,
  allocationNumber: '',
});

describe('bulk actions in the invoices list (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let page: Page;
  let problems: string[];
  const docs: Record<string, string> = {};
  let folderId = '';
  const api = async (op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.result;
  };
  const stored = (name: string) => api('invoiceGet', { docId: docs[name] });
  const bar = () => page.getByTestId('bulk-bar');
  /** Chooses `option` in the bar's list labelled `label` and applies it; waits for the result line. */
  const apply = async (label: string, option: { label?: string; value?: string }, result: string) => {
    await bar().getByRole('combobox', { name: label }).selectOption(option);
    await bar().getByRole('button', { name: `החלה: ${label}` }).click();
    await page.getByTestId('bulk-done').getByText(result).waitFor({ timeout: 10_000 });
  };

  before(async () => {
    env = await dashboardEnv();
    env.gemini.answer(
      (r) => r.inline.length > 0,
      (r) => {
        const bytes = r.inline[0].bytes.toString('latin1');
        const i = ISSUERS.findIndex((_, j) => bytes.includes(`tag-${j}`));
        return { text: JSON.stringify(reading(ISSUERS[i] ?? 'Unknown', String(100 + i))) };
      },
    );
    folderId = (await api('folderCreate', { name: 'Travel' })).id;
    await api('createSupplier', { name: 'Avi Electric', phone: '050-1234567' });
    for (const [i, name] of ISSUERS.entries()) {
      const file = pdfFile(`${i}.pdf`, `tag-${i}`);
      docs[name] = (await api('uploadInvoiceDoc', { fileName: file.name, mimeType: file.mimeType, dataBase64: file.buffer.toString('base64') })).docId;
    }
    ({ page, problems } = await env.context({ width: 360, height: 780 }));
    await env.signIn(page, env.owner.email, '/invoices');
  });
  after(async () => {
    await env?.close();
  });

  test('select three invoices (one by keyboard), move them, assign a supplier and a category; the fourth is untouched', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    const list = page.getByTestId('invoices-list');
    for (const name of ISSUERS) await list.getByText(name).waitFor();
    // "Select all on this page" selects the four, and clearing it leaves none.
    await page.getByRole('checkbox', { name: 'בחירת כל החשבוניות בעמוד' }).check();
    await page.getByTestId('bulk-count').getByText('נבחרו: 4').waitFor();
    await page.getByRole('checkbox', { name: 'בחירת כל החשבוניות בעמוד' }).uncheck();
    await bar().waitFor({ state: 'detached' });
    await page.getByRole('checkbox', { name: 'בחירת Office Depot' }).check();
    await page.getByRole('checkbox', { name: 'בחירת El Al' }).check();
    // The third by keyboard: from the row's link, Shift+Tab reaches its checkbox and Space ticks it.
    await page.getByTestId('invoice-row').filter({ hasText: 'Bezeq' }).getByRole('link').focus();
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate("document.activeElement && document.activeElement.getAttribute('aria-label')"), 'בחירת Bezeq');
    await page.keyboard.press('Space');
    await page.getByTestId('bulk-count').getByText('נבחרו: 3').waitFor();
    await axe(page, 'invoices list with three selected at 360 px');

    await apply('תיקייה', { label: 'Travel' }, 'החשבוניות שנבחרו (3) הועברו לתיקייה Travel.');
    await apply('ספק', { label: 'Avi Electric' }, 'החשבוניות שנבחרו (3) שויכו לספק Avi Electric.');
    await apply('קטגוריה', { value: 'rent' }, 'לחשבוניות שנבחרו (3) נקבעה הקטגוריה שכירות.');
    for (const name of ['Office Depot', 'El Al', 'Bezeq']) {
      const d = await stored(name);
      assert.deepEqual([d.folderId, d.folderBy, d.supplierKey, d.supplierName, d.category], [folderId, 'hand', '+972501234567', 'Avi Electric', 'rent'], name);
    }
    const untouched = await stored('Paz');
    assert.deepEqual([untouched.folderId === folderId, untouched.supplierKey, untouched.category], [false, null, '']);
    // One activity row per call, naming the count.
    const activity = await api('listActivity', {});
    const summaries = activity.items.map((r: any) => r.summary).join('\n');
    assert.match(summaries, /filed 3 invoice\(s\) into /);
    assert.match(summaries, /assigned 3 invoice\(s\) to supplier \+972501234567/);

    await axe(page, 'invoices bulk results at 360 px');
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page, 'invoices bulk results at 1280 px');
    await shoot(page, 'invoices-bulk');
    assert.deepEqual(problems, []);
  });
});
