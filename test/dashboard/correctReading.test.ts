import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { pdfFile, skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 4: the owner corrects an invoice's total on its page; the field is marked with who corrected it
 * and when, in Hebrew and English; a reading whose VAT equals its total is flagged on the page and in the report.
 * One server for the file.
 */
const reading = (name: string, number: string) => ({
  issuer: { name, vatId: '', email: '', phone: '' },
  docType: 'tax_invoice',
  number,
  date: '2026-03-10',
  // The VAT read as the whole total: the flag's case.
  total: 100,
  currency: 'ILS',
  vat: 100,
  payMethod: '',
  cardEnding: '',
  lineItems: [],
  bank: null,
  allocationNumber: '',
});

describe('the invoice page corrects the reading; VAT equal to the total is flagged (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let page: Page;
  let problems: string[];
  const docs: Record<string, string> = {};
  const api = async (op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.result;
  };
  /** axe at both widths, then the screenshots (no sideways scrolling at 360 px). */
  const check = async (name: string) => {
    await page.waitForTimeout(300);
    await axe(page, `${name} at 360 px`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page, `${name} at 1280 px`);
    // Back at 360 px before measuring: the navbar's breakpoint transition briefly widens the page.
    await page.setViewportSize({ width: 360, height: 780 });
    await page.waitForTimeout(400);
    await shoot(page, name);
  };

  before(async () => {
    env = await dashboardEnv();
    env.gemini.answer(
      (r) => r.inline.length > 0,
      (r) => ({ text: JSON.stringify(r.inline[0].bytes.toString('latin1').includes('studio') ? reading('Studio Lev', 'SL-1') : reading('Print Shop', 'PS-1')) }),
    );
    for (const [key, file] of [['studio', pdfFile('studio.pdf', 'studio')], ['print', pdfFile('print.pdf', 'print')]] as const) {
      docs[key] = (await api('uploadInvoiceDoc', { fileName: file.name, mimeType: file.mimeType, dataBase64: file.buffer.toString('base64') })).docId;
    }
    ({ page, problems } = await env.context());
    await env.signIn(page, env.owner.email, `/invoices/${docs.studio}`);
  });
  after(async () => {
    await env?.close();
  });

  test('corrects the total in place: marked "corrected by" with the date, the VAT flag gone, in Hebrew and English', async () => {
    const card = page.getByTestId('reading');
    await card.getByText('Studio Lev').waitFor();
    await card.getByTestId('vat-is-total').getByText('המע"מ שווה לסכום הכולל: כדאי לבדוק את הקריאה').waitFor();
    await card.getByRole('button', { name: 'תיקון הקריאה' }).click();
    // Chromium's PDF viewer takes the focus when its preview finishes loading, which on a loaded machine can land
    // mid-typing: each value is filled again until the field holds it (a person would click back and retype).
    for (const [name, value] of [['סה"כ', '1,180.00'], ['מע"מ', '180']]) {
      const box = card.getByRole('textbox', { name });
      for (let i = 0; ; i++) {
        await box.fill(value);
        await page.waitForTimeout(200);
        if ((await box.inputValue()) === value) break;
        assert.ok(i < 5, `${name} holds ${await box.inputValue()}, not what was typed`);
      }
    }
    await check('invoice-correct-form');
    assert.deepEqual([await card.getByRole('textbox', { name: 'סה"כ' }).inputValue(), await card.getByRole('textbox', { name: 'מע"מ' }).inputValue()], ['1,180.00', '180']);
    await card.getByRole('button', { name: 'שמירה' }).click();
    const mark = card.getByTestId('corrected-totalAgorot');
    await mark.waitFor();
    const stored = await api('invoiceGet', { docId: docs.studio });
    // The day of the correction in Israel, as the browser's Intl writes it.
    const day = (await page.evaluate(`new Intl.DateTimeFormat('he-IL', { dateStyle: 'medium', timeZone: 'Asia/Jerusalem' }).format(new Date(${JSON.stringify(stored.corrections.totalAgorot.at)}))`)) as string;
    const text = ((await mark.textContent()) ?? '').replace(/[\u2068\u2069]/g, '');
    assert.ok(text.startsWith(`תוקן על ידי ${env.owner.email} ב-${day} · ה-AI קרא: `), text);
    assert.match(text, /100\.00/);
    assert.equal(await card.getByTestId('vat-is-total').count(), 0);
    assert.deepEqual([stored.totalMinor, stored.reading.vatMinor, stored.corrections.totalAgorot.by, stored.vatIsTotal], [118_000, 18_000, env.owner.email, false]);
    await check('invoice-corrected');

    await page.getByRole('button', { name: 'English' }).click();
    await card.getByTestId('corrected-totalAgorot').getByText(new RegExp(`^Corrected by \u2068${env.owner.email.replace(/[.+]/g, '\\$&')}\u2069 on .+ · The AI read: .*100\\.00`)).waitFor();
    await axe(page, 'corrected invoice in English');
    await page.getByRole('button', { name: 'עברית' }).click();
    assert.deepEqual(problems, []);
  });

  test('the spend report flags the invoice whose VAT still equals its total, with a link to it', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${env.origin}/reports?from=2026-03-01&to=2026-03-31`);
    const flag = page.getByTestId('vat-is-total');
    await flag.getByText('1 חשבוניות שהמע"מ בהן שווה לסכום הכולל (נספרו, כדאי לבדוק):').waitFor();
    assert.equal(await flag.getByRole('link', { name: 'חשבונית 1' }).getAttribute('href'), `/invoices/${docs.print}`);
    await page.getByText('1 עם מע"מ השווה לסכום').first().waitFor();
    await check('reports-vat-is-total');
    assert.deepEqual(problems, []);
  });
});
