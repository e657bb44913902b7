import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createHarness, type Harness } from '../../harness.ts';
import type { HttpResponse } from '../../../functions/src/surfaces/http/types.ts';

/** The pages through the framework-free handler, for what a browser test would be slow or awkward at. */
let h: Harness;
let path: string;
before(async () => {
  h = await createHarness({ env: { PUBLIC_LINK_BASE: 'https://pay.example.com/s' } });
  await h.call('updateBusiness', { businessName: '<script>alert(1)</script> & Co' });
  const view = await h.call('createPayment', { amountAgorot: 500, vatIncluded: false, description: 'Desc "quoted"', supplierName: 'Dana', supplierPhone: '0501234567', channel: 'link' });
  path = new URL(view.link).pathname;
});
after(() => h.close());

const call = (method: string, p: string, body?: Buffer, headers: Record<string, string> = {}, query = '') =>
  h.http({ method, path: p, query, headers, body });

async function multipart(fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v as string);
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}

const text = (r: HttpResponse) => String(r.body);

function assertSafe(r: HttpResponse) {
  assert.match(r.headers['content-type'], /^text\/html/);
  assert.match(r.headers['content-security-policy'], /default-src 'none'/);
  assert.doesNotMatch(text(r), /\bat .+\.ts:\d+/);
}

test('the pages live under the path of PUBLIC_LINK_BASE; the CSP hash matches the one stylesheet', async () => {
  assert.match(path, /^\/s\/pay\//);
  const r = await call('GET', path);
  assert.equal(r.status, 200);
  assertSafe(r);
  const css = /<style>([\s\S]*?)<\/style>/.exec(text(r))![1];
  assert.ok(r.headers['content-security-policy'].includes(`'sha256-${createHash('sha256').update(css).digest('base64')}'`));
  assert.doesNotMatch(text(r), /<script|https?:\/\//, 'no scripts, no external resources');
});

test('business data is escaped', async () => {
  const body = text(await call('GET', path));
  assert.ok(body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co'));
  assert.ok(body.includes('Desc &quot;quoted&quot;'));
});

test('HEAD, other methods and unknown paths', async () => {
  const head = await call('HEAD', path);
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  const put = await call('PUT', path, Buffer.alloc(0));
  assert.equal(put.status, 405);
  assert.equal(put.headers.allow, 'GET, HEAD, POST');
  assertSafe(put);
  for (const p of ['/s/pay/', '/s/pay/abc/extra', '/s/link/UPPER']) {
    const r = await call('GET', p);
    assert.equal(r.status, 404, p);
    assertSafe(r);
  }
});

test('an unreadable form is a 400 page, never a stack trace', async () => {
  const notForm = await call('POST', path, Buffer.from('{}'), { 'content-type': 'application/json' });
  assert.equal(notForm.status, 400);
  assertSafe(notForm);
  const noBody = await call('POST', path, undefined, { 'content-type': 'multipart/form-data; boundary=x' });
  assert.equal(noBody.status, 400);
  const noId = await multipart({ action: 'payout', method: 'bank' });
  const r = await call('POST', path, noId.body, noId.headers);
  assert.equal(r.status, 400);
  assertSafe(r);
});

test('a file over 5 MB is refused with a message, and the form keeps the values', async () => {
  const big = new Blob([Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5 * 1024 * 1024)])], { type: 'application/pdf' });
  const form = new FormData();
  for (const [k, v] of Object.entries({ submissionId: 'C'.repeat(22), action: 'payout', method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana' })) form.append(k, v);
  form.append('invoice', big, 'big.pdf');
  const req = new Request('http://x/', { method: 'POST', body: form });
  const r = await call('POST', path, Buffer.from(await req.arrayBuffer()), { 'content-type': req.headers.get('content-type')! }, 'lang=en');
  assert.equal(r.status, 422);
  assertSafe(r);
  assert.match(text(r), /The file is too large: a PDF up to 5 MB/);
  assert.match(text(r), /value="678901"/);
  assert.match(text(r), /name="submissionId" value="CCCCCCCCCCCCCCCCCCCCCC"/);
});

test('a successful post redirects (303) to the page, keeping the language', async () => {
  const ok = await multipart({ submissionId: 'D'.repeat(22), action: 'payout', method: 'bit', bitPhone: '0507654321' });
  const r = await call('POST', path, ok.body, ok.headers, 'lang=en');
  assert.equal(r.status, 303);
  assert.equal(r.headers.location, `${path}?lang=en&done=1`);
  assert.match(r.headers['content-security-policy'], /default-src 'none'/);
});
