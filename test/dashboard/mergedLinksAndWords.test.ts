import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';
import { startSmtp } from '../fakes/smtp.ts';
import { invoicePdf } from '../fakes/pdfs.ts';

/**
 * Follow-ups of issue 35 items 5 and 7, at 360 and 1280 px, axe clean, no console errors: an old link to a merged
 * supplier opens the supplier it became; activity rows name the folder, the supplier and the count of a bulk move
 * or assignment, categories and built-in folders in the chosen language, and the system's own rows say who wrote
 * them in that language; the payment form shows a known contact's hint without the completion list repeating it.
 */
describe('merged supplier links and activity words (browser, npm start)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const api = async (op: string, body: unknown) => {
    const r = (await (await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
    assert.ok(r.result, `${op}: ${JSON.stringify(r)}`);
    return r.result;
  };
  before(async () => {
    // An invitation the mail server refuses: the outbox writes its "not sent" row, with no person behind it.
    smtp = await startSmtp({ refuseRcpt: (to) => (to === 'gone@example.com' ? { code: 550, message: '5.1.1 No such user' } : null) });
    env = await dashboardEnv({ env: { SMTP_URL: smtp.url, OUTBOX_MAX_ATTEMPTS: '1' } });
    await api('createSupplier', { name: 'דנה עיצוב', phone: '052-111-0001' });
    await api('createPayment', { amountAgorot: 10_000, vatIncluded: true, description: 'לוגו', supplierName: 'דנה (כפול)', supplierEmail: 'old@studio.example', channel: 'link' });
    await api('supplierMerge', { from: 'old@studio.example', into: '+972521110001' });
    const up = async (n: string) => (await api('uploadInvoiceDoc', { fileName: `${n}.pdf`, mimeType: 'application/pdf', dataBase64: (await invoicePdf({ number: n })).toString('base64') })).docId as string;
    const [a, b, c] = [await up('A-1'), await up('A-2'), await up('A-3')];
    await api('invoicesMove', { docIds: [a, b], folderId: 'general' });
    await api('invoicesAssignSupplier', { docIds: [c], supplierKey: '+972521110001' });
    await api('invoiceSetCategory', { docIds: [a], category: 'office_supplies', remember: false });
    await api('inviteMember', { email: 'gone@example.com', role: 'user' });
    const until = Date.now() + 30_000;
    while ((await api('attention', {})).failedMessages.length < 1) {
      assert.ok(Date.now() < until, 'the invitation ended not sent');
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  after(async () => {
    await env?.close();
    await smtp?.close();
  });

  test('at 1280 and 360 px, in Hebrew and then English', async () => {
    const { page, problems, context } = await env.context({ width: 1280, height: 900 });
    await env.signIn(page, env.owner.email, '/');
    const rowWith = (text: string) => page.getByTestId('activity-row').filter({ hasText: text });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });

      // An old link to the merged supplier lands on the one it became, in place of the old address.
      await page.goto(`${env.origin}/suppliers/${encodeURIComponent('old@studio.example')}`);
      await page.waitForURL((u) => decodeURIComponent(u.pathname) === '/suppliers/+972521110001');
      await page.getByRole('heading', { name: 'דנה עיצוב' }).waitFor();
      await page.goBack();
      assert.notEqual(decodeURIComponent(new URL(page.url()).pathname), '/suppliers/old@studio.example', 'the old address was replaced, not stacked');

      // Bulk rows with their count, folder and supplier; the category and the folder by their Hebrew names.
      await page.goto(`${env.origin}/activity`);
      await rowWith('2 חשבוניות הועברו לתיקייה כללי').waitFor();
      await rowWith('חשבונית אחת שויכה לספק דנה עיצוב').waitFor();
      await rowWith('סווגו לקטגוריה ציוד משרדי').waitFor();
      // The outbox's row says who wrote it in Hebrew.
      const failed = rowWith('gone@example.com');
      await failed.getByText('שליחת ההודעות').waitFor();
      const all = await page.getByTestId('activity-row').allInnerTexts();
      assert.ok(all.every((r) => !/\boutbox\b|office_supplies/.test(r)), all.join(' | '));
      await page.waitForLoadState('networkidle');
      await axe(page, `activity at ${width}`);

      // A whole phone a known supplier has: the hint says whose it is, and the completion list does not repeat them.
      await page.goto(`${env.origin}/payments/new`);
      await page.getByRole('textbox', { name: 'טלפון של הספק', exact: true }).fill('052-111-0001');
      await page.getByTestId('known-phone').getByText('הטלפון הזה שייך לספק דנה עיצוב').waitFor();
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(400);
      assert.equal(await page.getByTestId('supplier-matches').count(), 0, 'no completion list beside the hint');
      await axe(page, `payment form at ${width}`);
    }

    // English: the same rows in English words, the built-in folder and the category by their English names.
    await page.getByRole('button', { name: 'English' }).click();
    await page.locator('html[lang="en"]').waitFor({ state: 'attached' });
    await page.goto(`${env.origin}/activity`);
    await rowWith('2 invoices were moved to the folder General').waitFor();
    await rowWith('One invoice was assigned to the supplier דנה עיצוב').waitFor();
    await rowWith('put in the category Office supplies').waitFor();
    await rowWith('gone@example.com').getByText('Message sending').waitFor();
    await axe(page, 'activity in English at 360');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
