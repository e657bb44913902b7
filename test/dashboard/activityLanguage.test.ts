import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axe, dashboardEnv, shoot, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * Issue 35 item 7: the activity log in the user's language. A paid payment's row reads in Hebrew with the supplier's
 * name and the amount as the dashboard writes money, with no English; the kind and person filters narrow the log.
 * At 360 and 1280 px, axe clean, no console errors.
 */
describe('activity in Hebrew, with its filters (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  const memberEmail = 'yael@example.com';
  const api = async (key: string, op: string, body: unknown) => {
    const res = await fetch(`${env.origin}/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.result;
  };
  before(async () => {
    env = await dashboardEnv();
    const key = env.owner.apiKey;
    const invite = await api(key, 'inviteMember', { email: memberEmail, role: 'admin' });
    await env.admin('accept-invite', '--invite', invite.inviteId, '--email', memberEmail);
    const member = await env.admin('create-key', '--business', env.owner.businessId, '--email', memberEmail, '--name', 'yael key');
    await api(member.apiKey, 'createSupplier', { name: 'מאפיית השכונה', email: 'bakery@example.com' });
    const p = await api(key, 'createPayment', { amountAgorot: 123_450, vatIncluded: true, description: 'שיפוץ', supplierName: 'אבי כהן', supplierEmail: 'avi@example.com', channel: 'link' });
    await api(key, 'markPaid', { paymentId: p.id });
  });
  after(async () => {
    await env?.close();
  });

  test('a paid row in Hebrew with the supplier and the amount; kind and person filters', async () => {
    const { page, problems, context } = await env.context({ width: 1280, height: 900 });
    await env.signIn(page, env.owner.email, '/activity');
    const paid = page.getByTestId('activity-row').filter({ hasText: 'סומן כשולם' });
    await paid.waitFor();
    const sentence = (await paid.locator('p').first().innerText()).trim();
    const amount = new Intl.NumberFormat('he-IL', { style: 'currency', currency: 'ILS', minimumFractionDigits: 2 }).format(1234.5);
    assert.ok(sentence.includes('התשלום ל-אבי כהן סומן כשולם'), sentence);
    assert.ok(sentence.includes(amount), `${sentence} has ${amount}`);
    assert.doesNotMatch(sentence, /[A-Za-z]/, 'no English in the row');
    assert.equal(await page.getByText('marked the payment').count(), 0);
    await page.waitForLoadState('networkidle');
    await axe(page, 'activity at 1280px');
    await shoot(page, 'activity-language');
    await axe(page, 'activity at 360px');

    // Kind: suppliers only.
    await page.getByRole('combobox', { name: 'סוג' }).click();
    await page.getByRole('option', { name: 'ספקים' }).click();
    await page.waitForURL(/kind=suppliers/);
    await page.getByTestId('activity-row').filter({ hasText: 'מאפיית השכונה' }).waitFor();
    // The filtered list, once it has settled (a refetch can leave it briefly empty under load).
    const settled = async (ok: (rows: string[]) => boolean) => {
      let rows: string[] = [];
      for (const until = Date.now() + 10_000; Date.now() < until; await page.waitForTimeout(200)) {
        rows = await page.getByTestId('activity-row').allInnerTexts();
        if (rows.length >= 1 && ok(rows)) break;
      }
      return rows;
    };
    let rows = await settled((rs) => rs.every((r) => r.includes('נוסף ספק')));
    assert.ok(rows.length >= 1 && rows.every((r) => r.includes('נוסף ספק')), `rows: ${rows.join(' | ') || 'none'}`);

    // Person: the member, with any kind.
    await page.goto(`${env.origin}/activity`);
    await page.getByRole('combobox', { name: 'מי' }).click();
    await page.getByRole('option', { name: memberEmail }).click();
    await page.waitForURL(/actor=/);
    await page.waitForLoadState('networkidle');
    await page.getByTestId('activity-row').filter({ hasText: 'מאפיית השכונה' }).waitFor();
    rows = await settled((rs) => rs.every((r) => r.includes(memberEmail)));
    assert.ok(rows.length >= 1 && rows.every((r) => r.includes(memberEmail)), `rows: ${rows.join(' | ') || 'none'}`);
    assert.equal(await page.getByTestId('activity-row').filter({ hasText: 'סומן כשולם' }).count(), 0, "the owner's row is not the member's");
    await axe(page, 'activity filtered at 1280px');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
