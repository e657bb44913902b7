import { cpus, loadavg } from 'node:os';
import { dashboardEnv } from '../test/dashboard/env.ts';

/**
 * The dashboard in headless chromium against `npm start` (functions/src/server.ts, with its Auth emulator):
 * - the JavaScript of the first load (signed in, home), as transferred (gzip), against 200 KB;
 * - the API calls the first screen makes, against 3;
 * - the time from navigation to the payments list rendered with 50 rows, against 1 s (median of 5 loads).
 */
const env = await dashboardEnv();
try {
  // 50 payments, made through the API with the owner's key.
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${env.origin}/v1/createPayment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.owner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amountAgorot: 10_000 + i, vatIncluded: true, description: `Bench ${i}`, supplierName: `Supplier ${i}`, supplierEmail: `s${i}@example.com`, channel: 'link' }),
    });
    if (res.status !== 200) throw new Error(`createPayment: ${res.status} ${await res.text()}`);
  }
  const { context, page } = await env.context({ width: 1280, height: 900 });
  await env.signIn(page, env.owner.email);
  await page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();

  // A fresh load of the first screen, signed in; the browser's cache emptied first.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  let jsBytes = 0;
  const apiCalls: string[] = [];
  const onResponse = async (r: import('playwright-core').Response) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/v1/')) apiCalls.push(url.pathname.slice(4));
    if (/javascript/.test(r.headers()['content-type'] ?? '')) jsBytes += (await r.request().sizes()).responseBodySize;
  };
  page.on('response', onResponse);
  await page.goto(env.origin + '/');
  await page.getByRole('heading', { name: 'מה מחכה לכם' }).waitFor();
  await page.waitForLoadState('networkidle');
  page.off('response', onResponse);

  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await page.goto(env.origin + '/payments');
    await page.getByTestId('payments-list').locator('a').nth(49).waitFor();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const kb = jsBytes / 1024;
  const median = times[2];
  console.log(`first-load JavaScript (gzip, transferred): ${kb.toFixed(1)} KB   target ≤ 200 KB   ${kb <= 200 ? 'ok' : 'OVER'}`);
  console.log(`API calls of the first screen: ${apiCalls.length} (${apiCalls.join(', ')})   target ≤ 3   ${apiCalls.length <= 3 ? 'ok' : 'OVER'}`);
  console.log(`navigation to the payments list with 50 rows: median ${median.toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[4].toFixed(0)})   target < 1000 ms   ${median < 1000 ? 'ok' : 'OVER'}`);
  // Browser, server and Auth emulator share this machine's cores: a busy machine slows every step of the chain.
  console.log(`(machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} during the run)`);
} finally {
  await env.close();
}
process.exit(0);
