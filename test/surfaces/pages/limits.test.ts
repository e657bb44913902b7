import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { invoicePdf } from '../../fakes/pdfs.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';
import { clientIp } from '../../../functions/src/core/rateLimit.ts';

/** Abuse limits of the anonymous pages (issue 11 item 2), through the framework-free handler. */
let h: Harness;
before(async () => {
  h = await createHarness({
    env: {
      TRUSTED_PROXY_HOPS: '1',
      PAGE_LIMIT_PER_IP_PER_MIN: '6',
      PAGE_LIMIT_PER_LINK_PER_MIN: '100',
      PAGE_LIMIT_FILINGS_PER_DAY: '3',
      PAGE_LIMIT_FILES_PER_PAYMENT: '2',
    },
  });
  await h.call('setMyPublicLink', { slug: 'busy-shop' });
});
after(() => h.close());

const call = (method: string, path: string, ip: string, extra: { body?: Buffer; headers?: Record<string, string>; query?: string } = {}) =>
  h.http({ method, path, query: extra.query ?? '', headers: { 'x-forwarded-for': `203.0.113.9, ${ip}`, ...extra.headers }, body: extra.body, remoteAddress: '10.0.0.1' });

async function multipart(fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}

test('the client address is the entry the trusted proxies appended, not what the client wrote', () => {
  assert.equal(clientIp({ 'x-forwarded-for': 'spoofed, 198.51.100.7, 35.1.2.3' }, '10.0.0.1', 2), '198.51.100.7');
  assert.equal(clientIp({ 'x-forwarded-for': '198.51.100.7' }, '10.0.0.1', 2), '198.51.100.7');
  assert.equal(clientIp({ 'x-forwarded-for': 'spoofed' }, '127.0.0.1', 0), '127.0.0.1', 'without proxies the header is ignored');
});

test('one address over its per-minute limit gets a 429 page in its language with Retry-After; another address is served', async () => {
  const path = '/p/link/busy-shop';
  for (let i = 0; i < 6; i++) assert.equal((await call('GET', path, '198.51.100.1')).status, 200);
  const he = await call('GET', path, '198.51.100.1');
  assert.equal(he.status, 429);
  assert.match(he.headers['content-type'], /^text\/html/);
  assert.ok(Number(he.headers['retry-after']) >= 1 && Number(he.headers['retry-after']) <= 60);
  assert.match(String(he.body), /יותר מדי בקשות/);
  const en = await call('GET', path, '198.51.100.1', { query: 'lang=en' });
  assert.equal(en.status, 429);
  assert.match(String(en.body), /Too many requests/);
  assert.equal((await call('GET', path, '198.51.100.2')).status, 200, 'the spoofed left-hand entry is not what is counted');
});

test('a standing link takes a bounded number of filings a day, from any number of addresses', async () => {
  const file = async (i: number) => {
    const form = await multipart({ submissionId: `s${String(i).padStart(21, '0')}`, name: `Filer ${i}`, email: `f${i}@example.com`, amount: '10', description: 'x', method: 'bank', bankCode: '12', bankBranch: '600', bankAccount: '123456', bankBeneficiary: 'F' });
    return call('POST', '/p/link/busy-shop', `198.51.100.${50 + i}`, form);
  };
  for (let i = 0; i < 3; i++) assert.equal((await file(i)).status, 303);
  const over = await file(3);
  assert.equal(over.status, 429);
  assert.match(String(over.body), /יותר מדי בקשות/);
  assert.equal((await h.app.services.store.query({ collection: paymentsPath(h.owner.businessId) })).length, 3, 'nothing was filed over the cap');
});

test('a payment link takes at most the configured number of files', async () => {
  const view = await h.call('createPayment', { amountAgorot: 500, vatIncluded: false, description: 'd', supplierName: 'Dana', supplierPhone: '0501234567', channel: 'link', invoiceRequired: false });
  const path = new URL(view.link).pathname;
  const attach = async (n: number, ip: string) => {
    const pdf = await invoicePdf({ number: `lim-${n}` });
    const form = await multipart({ submissionId: `a${String(n).padStart(21, '0')}`, action: 'invoice', invoice: new File([pdf], `inv-${n}.pdf`, { type: 'application/pdf' }) });
    return call('POST', path, ip, form);
  };
  // Payout first, so invoices are accepted on a ready payment.
  const payout = await multipart({ submissionId: 'p'.padEnd(22, '0'), action: 'payout', method: 'bank', bankCode: '12', bankBranch: '600', bankAccount: '123456', bankBeneficiary: 'Dana' });
  const pr = await call('POST', path, '198.51.100.80', payout);
  assert.equal(pr.status, 303, String(pr.body).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 600));
  assert.equal((await attach(1, '198.51.100.81')).status, 303);
  assert.equal((await attach(2, '198.51.100.82')).status, 303);
  const third = await attach(3, '198.51.100.83');
  assert.equal(third.status, 429);
  assert.match(String(third.body), /המספר המרבי של קבצים/);
  assert.equal((await h.call('paymentGet', { paymentId: view.id })).invoices.length, 2);
});

test('a 12 MB phone photo is accepted on the page and stored shrunk; over the page limit the answer is an HTML page, never JSON', async () => {
  const sharp = (await import('sharp')).default;
  // Noise does not compress: a big JPEG, like a phone photo.
  const w = 4000, hgt = 3000;
  const noise = Buffer.alloc(w * hgt * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  const photo = await sharp(noise, { raw: { width: w, height: hgt, channels: 3 } }).jpeg({ quality: 100 }).toBuffer();
  assert.ok(photo.length > 8 * 1024 * 1024, `the test photo is ${photo.length} bytes`);
  const origin = await h.listen();
  const view = await h.call('createPayment', { amountAgorot: 500, vatIncluded: false, description: 'd', supplierName: 'Dana', supplierPhone: '0501234567', channel: 'link' });
  const form = new FormData();
  form.append('submissionId', 'b'.repeat(22));
  form.append('action', 'payout');
  for (const [k, v] of Object.entries({ method: 'bank', bankCode: '12', bankBranch: '600', bankAccount: '123456', bankBeneficiary: 'Dana' })) form.append(k, v);
  form.append('invoice', new File([photo], 'IMG_2041.jpg', { type: 'image/jpeg' }));
  const res = await fetch(new URL(view.link).pathname.replace(/^/, origin), { method: 'POST', body: form, redirect: 'manual', headers: { 'x-forwarded-for': '198.51.100.200' } });
  assert.equal(res.status, 303, await res.text());
  const stored = (await h.call('paymentGet', { paymentId: view.id })).invoices;
  assert.equal(stored.length, 1);
  assert.equal(stored[0].contentType, 'image/jpeg');
  assert.ok(stored[0].size < 5 * 1024 * 1024, `stored ${stored[0].size} bytes`);
  const meta = await sharp(await h.app.services.files.read(h.owner.businessId, stored[0].fileId) as Buffer).metadata();
  assert.ok(Math.max(meta.width!, meta.height!) <= 2000);

  const huge = await fetch(`${origin}${new URL(view.link).pathname}`, { method: 'POST', body: Buffer.alloc(25 * 1024 * 1024), headers: { 'content-type': 'multipart/form-data; boundary=x', 'x-forwarded-for': '198.51.100.201' } });
  assert.equal(huge.status, 413);
  assert.match(huge.headers.get('content-type') ?? '', /^text\/html/);
  const body = await huge.text();
  assert.match(body, /הקובץ גדול מדי/);
  assert.match(body, /The file is too large/);
});
