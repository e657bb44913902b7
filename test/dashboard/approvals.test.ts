import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { fillBank, skipBrowser, submit } from '../surfaces/pages/browserEnv.ts';
import { errorsHe } from '../../dashboard/src/i18n/errors.he.ts';

/**
 * Issue 36 §4, approvals in the dashboard: Settings holds the policy and the MASAV codes (each field checked, in
 * Hebrew); a payment needing approval shows pending; its creator's approval is refused with the reason in Hebrew;
 * another admin approves it; the supplier then files other bank details on the supplier page and the approval goes
 * stale, saying why; a rejection needs a reason and can be approved later; English one click away. At 360 px, axe
 * clean, no console error or failed request other than the refusal the test asks for.
 */
const BANK_A = { code: '12', branch: '345', account: '678901', beneficiary: 'נועה לוי' };
const BANK_B = { code: '10', branch: '800', account: '555012', beneficiary: 'נועה לוי' };
const PHONE = '0521234567';

describe('approvals in the dashboard (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  const admin2 = 'rina@example.com';
  // Each address signs in once in the file: the owner's page serves both tests.
  let owner: Awaited<ReturnType<DashboardEnv['context']>>;
  before(async () => {
    env = await dashboardEnv();
    const invite = await env.api('inviteMember', { email: admin2, role: 'admin' });
    await env.admin('accept-invite', '--invite', invite.inviteId, '--email', admin2);
    owner = await env.context();
    await env.signIn(owner.page, env.owner.email, '/settings/pay');
  });
  after(async () => {
    await env?.close();
  });

  /** The supplier fills the payment's link with bank details (no invoice asked): the payment is ready. */
  async function supplierFiles(link: string, bank: typeof BANK_A) {
    const s = await env.context();
    await s.page.goto(link);
    await fillBank(s.page, bank);
    await submit(s.page);
    await s.context.close();
  }

  test('Settings: the approval policy and the MASAV codes, checked per field, in Hebrew and English', async () => {
    const { page, problems } = owner;
    const policy = page.locator('section[aria-labelledby="policy-title"]');
    await policy.getByRole('heading', { name: 'אישור תשלומים' }).waitFor();
    // From an amount: the threshold field appears, in shekels as typed.
    await policy.getByRole('radio', { name: 'מסכום מסוים' }).check();
    await policy.getByRole('textbox', { name: /מסכום/ }).fill('5,000');
    await policy.getByRole('radio', { name: 'שני מנהלים' }).check();
    await policy.getByRole('button', { name: 'שמירה' }).click();
    await policy.getByRole('status').getByText('המדיניות נשמרה').waitFor();
    assert.deepEqual(await env.api('approvalPolicyGet', {}), { thresholdAgorot: 500_000, approvalsRequired: 2 });
    // Every payment, one approver.
    await policy.getByRole('radio', { name: 'לכל תשלום' }).check();
    await policy.getByRole('radio', { name: 'מנהל אחד' }).check();
    await policy.getByRole('button', { name: 'שמירה' }).click();
    await policy.getByRole('status').getByText('המדיניות נשמרה').waitFor();
    assert.deepEqual(await env.api('approvalPolicyGet', {}), { thresholdAgorot: 0, approvalsRequired: 1 });

    const masav = page.locator('section[aria-labelledby="masav-title"]');
    const institution = masav.getByRole('textbox', { name: 'קוד המוסד (8 ספרות)' });
    const sender = masav.getByRole('textbox', { name: 'קוד המוסד השולח (5 ספרות)' });
    await institution.fill('1234');
    await sender.fill('12a45');
    await masav.getByRole('button', { name: 'שמירה' }).click();
    // Each field says what is wrong with it, and nothing was saved.
    await masav.getByText('כתבו בדיוק 8 ספרות.').waitFor();
    await masav.getByText('כתבו בדיוק 5 ספרות.').waitFor();
    assert.equal(await institution.getAttribute('aria-invalid'), 'true');
    assert.equal((await env.api('getBusiness', {})).masavInstitutionId, '');
    await axe(page, 'settings: payments, with field errors');
    await institution.fill('12345678');
    await sender.fill('54321');
    await masav.getByRole('button', { name: 'שמירה' }).click();
    await masav.getByRole('status').getByText('הקודים נשמרו').waitFor();
    const b = await env.api('getBusiness', {});
    assert.deepEqual([b.masavInstitutionId, b.masavSenderId], ['12345678', '54321']);
    await shoot(page, 'settings-pay');

    // English one click away: the same settings, read back from the server.
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Payment approval' }).waitFor();
    assert.equal(await page.getByRole('radio', { name: 'For every payment' }).isChecked(), true);
    assert.equal(await page.getByRole('textbox', { name: 'Institution code (8 digits)' }).inputValue(), '12345678');
    await axe(page, 'settings: payments in English');
    await page.getByRole('button', { name: 'עברית' }).click();
    await page.getByRole('heading', { name: 'אישור תשלומים' }).waitFor();
    assert.deepEqual(problems, []);
  });

  test('pending → self-approval refused in Hebrew → another admin approves → stale after new bank details → rejected with a reason → approved', async () => {
    // The supplier is known with bank A: a first payment, filed and paid while the policy was off.
    await env.api('approvalPolicySet', { thresholdAgorot: null, approvalsRequired: 1 });
    const first = await env.api('createPayment', { amountAgorot: 1_000, vatIncluded: true, description: 'סקיצה', supplierName: 'נועה לוי', supplierPhone: PHONE, channel: 'link', invoiceRequired: false });
    await supplierFiles(first.link, BANK_A);
    await env.api('markPaid', { paymentId: first.id });
    await env.api('approvalPolicySet', { thresholdAgorot: 0, approvalsRequired: 1 });
    const p = await env.api('createPayment', { amountAgorot: 90_000, vatIncluded: true, description: 'עיצוב אריזה', supplierName: 'נועה לוי', supplierPhone: PHONE, channel: 'link', invoiceRequired: false, dueDate: '2030-01-15' });

    // The owner created it through the API: approving it is self-approval.
    await owner.page.goto(`${env.origin}/payments/${p.id}`);
    const card = owner.page.getByTestId('approval');
    await card.waitFor();
    assert.equal(await card.getByTestId('approval-state').innerText(), 'ממתין לאישור');
    await owner.page.getByTestId('due-date').getByText(/15/).waitFor();
    await card.getByRole('button', { name: 'אישור התשלום' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'לאשר את התשלום?' });
    await dialog.getByRole('button', { name: 'אישור התשלום' }).click();
    await dialog.getByRole('alert').getByText(errorsHe.selfApproval).waitFor();
    await axe(owner.page, 'self-approval refused');
    await shoot(owner.page, 'approval-self-refused');
    // The refusal asked for, as the network and the console report it; nothing else.
    const refusal = (x: string) => /HTTP 403: POST .*\/v1\/paymentApprove$/.test(x) || x === 'console error: Failed to load resource: the server responded with a status of 403 (Forbidden)';
    assert.deepEqual(owner.problems.filter((x) => !refusal(x)), []);
    assert.equal(owner.problems.length, 2);

    // Another admin approves it, with a note.
    const { page, problems } = await env.context();
    await env.signIn(page, admin2, `/payments/${p.id}`);
    const approval = page.getByTestId('approval');
    await approval.getByRole('button', { name: 'אישור התשלום' }).click();
    const approveDialog = page.getByRole('dialog', { name: 'לאשר את התשלום?' });
    await approveDialog.getByRole('textbox', { name: 'הערה (לא חובה)' }).fill('דיברתי עם נועה');
    await approveDialog.getByRole('button', { name: 'אישור התשלום' }).click();
    await approval.getByTestId('approval-state').getByText('אושר', { exact: true }).waitFor();
    assert.match(await approval.getByTestId('approved-by').innerText(), /rina@example\.com.*דיברתי עם נועה/);
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await axe(page, 'approved');

    // The supplier files other bank details on the supplier page: the approval no longer counts, and says why.
    await supplierFiles(p.link, BANK_B);
    await page.reload();
    await approval.getByTestId('approval-state').getByText('ממתין לאישור').waitFor();
    assert.match(await approval.getByTestId('approval-stale').innerText(), /אישור שניתן קודם כבר לא תקף, כי השתנו מאז: פרטי התשלום\./);
    await page.getByTestId('payout-change').waitFor();
    assert.equal((await env.api('paymentGet', { paymentId: p.id })).approval.state, 'pending');
    await axe(page, 'approval gone stale');
    await shoot(page, 'approval-stale');

    // Rejected: the reason is required, then shown; the payment is not canceled.
    await approval.getByRole('button', { name: 'דחיית התשלום' }).click();
    const rejectDialog = page.getByRole('dialog', { name: 'לדחות את התשלום?' });
    await rejectDialog.getByRole('button', { name: 'דחיית התשלום' }).click();
    await rejectDialog.getByText('כתבו למה התשלום נדחה.').waitFor();
    await rejectDialog.getByRole('textbox', { name: 'סיבת הדחייה' }).fill('חשבון הבנק החדש לא אומת בטלפון');
    await rejectDialog.getByRole('button', { name: 'דחיית התשלום' }).click();
    await approval.getByTestId('approval-state').getByText('נדחה', { exact: true }).waitFor();
    assert.match(await approval.getByTestId('rejection').innerText(), /rina@example\.com[\s\S]*הסיבה: חשבון הבנק החדש לא אומת בטלפון/);
    const rejected = await env.api('paymentGet', { paymentId: p.id });
    assert.deepEqual([rejected.status, rejected.approval.state], ['ready', 'rejected']);

    // In English, the same card; then approved after all.
    await page.getByRole('button', { name: 'English' }).click();
    await approval.getByTestId('approval-state').getByText('Rejected', { exact: true }).waitFor();
    assert.match(await approval.getByTestId('rejection').innerText(), /Reason: /);
    await approval.getByRole('button', { name: 'Approve the payment' }).click();
    await page.getByRole('dialog', { name: 'Approve the payment?' }).getByRole('button', { name: 'Approve the payment' }).click();
    await approval.getByTestId('approval-state').getByText('Approved', { exact: true }).waitFor();
    // Measured once the dialog is gone (axe reads a fading button as low contrast).
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await axe(page, 'approved, in English');
    await shoot(page, 'approval-approved-en');
    await backToHebrew(page);
    assert.equal((await env.api('paymentGet', { paymentId: p.id })).approval.state, 'approved');
    assert.deepEqual(problems, []);
  });
});

async function backToHebrew(page: Page) {
  await page.getByRole('button', { name: 'עברית' }).click();
  await page.getByRole('heading', { level: 1 }).getByText(/תשלום ל/).waitFor();
}
