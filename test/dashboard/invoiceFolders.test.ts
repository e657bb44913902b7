import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { pdfFile, skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 2: an invoice moves between folders from its page and from the list (invoiceSetFolder, filed
 * by hand), and the rule editor says which sources each condition applies to. One server for the file.
 */
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

describe('invoices move between folders; rule conditions name their sources (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let page: Page;
  let problems: string[];
  const docs: Record<string, string> = {};
  const folders: Record<string, string> = {};
  const api = async (op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.result;
  };
  /** Polls the stored placement until the move lands. */
  const placedIn = async (docId: string, folderId: string) => {
    let got: any;
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      got = await api('invoiceGet', { docId });
      if (got.folderId === folderId) break;
    }
    assert.deepEqual([got.folderId, got.folderBy], [folderId, 'hand']);
  };
  /** axe at both widths, and shoot's screenshots (no sideways scrolling at 360 px). */
  const check = async (name: string) => {
    await page.waitForTimeout(300);
    await axe(page, `${name} at 360 px`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page, `${name} at 1280 px`);
    await shoot(page, name);
  };

  before(async () => {
    env = await dashboardEnv();
    env.gemini.answer(
      (r) => r.inline.length > 0,
      (r) => ({ text: JSON.stringify(r.inline[0].bytes.toString('latin1').includes('office') ? reading('Office Depot', '11') : reading('El Al', '22')) }),
    );
    for (const [key, name] of [['office', 'Office'], ['travel', 'Travel']]) folders[key] = (await api('folderCreate', { name })).id;
    for (const [key, file] of [['office', pdfFile('office.pdf', 'office')], ['flight', pdfFile('flight.pdf', 'flight')]] as const) {
      docs[key] = (await api('uploadInvoiceDoc', { fileName: file.name, mimeType: file.mimeType, dataBase64: file.buffer.toString('base64') })).docId;
    }
    ({ page, problems } = await env.context());
    await env.signIn(page, env.owner.email, `/invoices/${docs.office}`);
  });
  after(async () => {
    await env?.close();
  });

  test('the invoice page moves the invoice to another folder, filed by hand', async () => {
    await page.getByTestId('reading').getByText('Office Depot').waitFor();
    const select = page.getByRole('combobox', { name: 'העברה לתיקייה' });
    await page.getByText('העברה ידנית: כללי התיוק לא יזיזו אותה עוד.').waitFor();
    await select.getByRole('option', { name: 'Office' }).waitFor({ state: 'attached' });
    await select.selectOption({ label: 'Office' });
    await placedIn(docs.office, folders.office);
    // The page shows the new folder once its data is fetched again.
    for (const until = Date.now() + 5_000; (await select.inputValue()) !== folders.office && Date.now() < until; ) await page.waitForTimeout(100);
    assert.equal(await select.inputValue(), folders.office);
    await check('invoice-move');
    assert.deepEqual(problems, []);
  });

  test("the list's row action moves an invoice to the folder chosen from its menu", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${env.origin}/invoices`);
    await page.getByTestId('invoices-list').getByText('El Al').waitFor();
    const move = page.getByRole('combobox', { name: 'העברה של El Al לתיקייה' });
    await move.getByRole('option', { name: 'Travel' }).waitFor({ state: 'attached' });
    await axe(page, 'invoices list with move actions');
    await move.selectOption({ label: 'Travel' });
    await placedIn(docs.flight, folders.travel);
    // The folder filter now finds it there.
    await page.goto(`${env.origin}/invoices?folder=${folders.travel}`);
    await page.getByTestId('invoices-list').getByText('El Al').waitFor();
    assert.equal(await page.getByTestId('invoice-row').count(), 1);
    await check('invoices-move');
    assert.deepEqual(problems, []);
  });

  test('the rule editor says which sources each condition applies to', async () => {
    await api('folderRuleSave', { when: { from: 'billing@airline.example', words: 'toner', notWords: 'private' }, folderId: folders.office });
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${env.origin}/invoices/folders`);
    await page.getByText('רק לחשבוניות מתיבת הדואר: השולח מכיל את זה.').waitFor();
    await page.getByText(/^לכל המקורות \(דואר, העלאות וקבצים מספקים\): אחת המילים מופיעה בנושא המייל, בשם הקובץ, בהערה, בשם המנפיק או בשורות החשבונית\.$/).waitFor();
    const row = page.getByText(/^1\. מאת/);
    await row.waitFor();
    assert.equal(await row.textContent(), '1. מאת (דואר בלבד): billing@airline.example · מילים (כל המקורות): toner · בלי המילים (כל המקורות): private → Office');
    await check('folders-rule-sources');
    // The same in English.
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByText('Mailbox invoices only: the sender contains this.').waitFor();
    assert.equal(await page.getByText(/^1\. From/).textContent(), '1. From (mail only): billing@airline.example · Words (all sources): toner · Without the words (all sources): private → Office');
    await page.getByRole('button', { name: 'עברית' }).click();
    assert.deepEqual(problems, []);
  });
});
