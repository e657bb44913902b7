import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardEnv, type DashboardEnv } from './env.ts';
import { skipBrowser } from '../surfaces/pages/browserEnv.ts';

/**
 * The activity screen's "load more" (issue 34 A3): after 180 suppliers created at once, many rows share a
 * millisecond, and paging by `before` (the last row's `at`) dropped the others of that millisecond. The screen
 * pages by the cursor, so every row shows exactly once.
 */
describe('activity: load more shows every row (browser, npm start, Auth emulator)', { skip: skipBrowser }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await dashboardEnv();
  });
  after(async () => {
    await env?.close();
  });

  test('180 parallel createSupplier calls: the screen lists all 180, each once', async (t) => {
    const made = await Promise.all(
      Array.from({ length: 180 }, async (_, i) => {
        const res = await fetch(`${env.origin}/v1/createSupplier`, {
          method: 'POST',
          headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Supplier ${String(i).padStart(3, '0')}`, email: `s${i}@example.com` }),
        });
        return res.status;
      }),
    );
    assert.ok(made.every((s) => s === 200), `statuses ${[...new Set(made)]}`);
    // How many rows the old paging (by `before`) drops here: the test's stake, for the log.
    const list = async (q: string) => ((await (await fetch(`${env.origin}/v1/listActivity${q}`, { headers: { authorization: `Bearer ${env.owner.apiKey}` } })).json()) as any).result;
    let byBefore = 0;
    for (let page = await list(''); ; page = await list(`?before=${page.nextBefore}`)) {
      byBefore += page.items.length;
      if (page.nextBefore === null) break;
    }
    let all = 0;
    for (let page = await list(''); ; page = await list(`?cursor=${page.nextCursor}`)) {
      all += page.items.length;
      if (page.nextCursor === null) break;
    }
    t.diagnostic(`paging by before shows ${byBefore} of ${all} rows`);
    const { page, problems } = await env.context();
    await env.signIn(page, env.owner.email, '/activity');
    const rows = page.locator('.mantine-Card-root', { hasText: /Supplier \d{3}/ });
    await rows.first().waitFor();
    const more = page.getByRole('button', { name: 'טעינת עוד' });
    for (let i = 0; i < 10 && (await more.count()); i++) {
      const shown = await rows.count();
      await more.click();
      // The next page renders, or the button goes when there is none.
      for (let k = 0; k < 150 && (await rows.count()) <= shown && (await more.count()); k++) await page.waitForTimeout(100);
      await page.waitForLoadState('networkidle');
    }
    const names = (await rows.allTextContents()).map((t) => t.match(/Supplier \d{3}/)![0]);
    assert.equal(new Set(names).size, 180, 'every supplier once');
    assert.equal(names.length, 180, 'no row twice');
    assert.deepEqual(problems, []);
  });
});
