import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { createHarness, type Harness } from '../../harness.ts';
import { CHROMIUM, skipBrowser } from '../pages/browserEnv.ts';

/** Two local "dashboards": one allowed origin, one foreign; each serves an empty page the browser runs fetch from. */
let h: Harness;
let api: string;
const pages: Server[] = [];
let allowed = '';
let foreign = '';

async function pageServer(): Promise<string> {
  const s = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>dashboard</title>');
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  pages.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

before(async () => {
  allowed = await pageServer();
  foreign = await pageServer();
  h = await createHarness({ env: { ALLOWED_ORIGINS: allowed } });
  api = await h.listen();
});
after(async () => {
  await h.close();
  for (const s of pages) await new Promise((r) => s.close(r));
});

test('a preflight from the allowed origin is answered 204 with what may be sent; credentials are never allowed', async () => {
  for (const path of ['/v1/whoami', '/api/v1/whoami', '/mcp']) {
    const res = await fetch(`${api}${path}`, { method: 'OPTIONS', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' } });
    assert.equal(res.status, 204, path);
    assert.equal(res.headers.get('access-control-allow-origin'), allowed);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Authorization.*Content-Type.*Idempotency-Key.*Mcp-Protocol-Version/);
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
  }
});

test('another origin gets no CORS headers at all', async () => {
  const pre = await fetch(`${api}/v1/whoami`, { method: 'OPTIONS', headers: { origin: foreign, 'access-control-request-method': 'POST' } });
  assert.equal(pre.headers.get('access-control-allow-origin'), null);
  const res = await fetch(`${api}/v1/whoami`, { method: 'POST', headers: { origin: foreign, authorization: `Bearer ${h.owner.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.headers.get('access-control-allow-origin'), null);
});

test('in Chromium: the allowed dashboard calls the API; a foreign page is blocked by the browser', { skip: skipBrowser }, async () => {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    const call = async (origin: string) => {
      const page = await browser.newPage();
      await page.goto(origin);
      const out = await page.evaluate(
        async ([url, key]) => {
          try {
            const r = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
            return { ok: true, status: r.status, requestId: r.headers.get('x-request-id'), body: await r.json() };
          } catch (e) {
            return { ok: false, error: String(e) };
          }
        },
        [`${api}/v1/whoami`, h.owner.apiKey],
      );
      await page.close();
      return out as any;
    };
    const good = await call(allowed);
    assert.equal(good.ok, true, JSON.stringify(good));
    assert.equal(good.status, 200);
    assert.equal(good.body.result.businessId, h.owner.businessId);
    assert.ok(good.requestId, 'exposed headers are readable');
    const bad = await call(foreign);
    assert.equal(bad.ok, false, 'the browser refuses the cross-origin answer');
    assert.match(bad.error, /Failed to fetch|TypeError/);
  } finally {
    await browser.close();
  }
});
