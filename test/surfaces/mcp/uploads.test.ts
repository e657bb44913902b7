import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { post } from '../../http.ts';
import { invoicePdf, pngBytes } from '../../fakes/pdfs.ts';
import { connectMcp } from './client.ts';

/** Issue 18 C9: files go up by URL (createUploadUrl, then PUT), and fileId stands in for dataBase64. */
let h: Harness;
let origin: string;
let now = 1_800_000_000_000;
before(async () => {
  h = await createHarness({ overrides: { clock: { now: () => now } } });
  origin = await h.listen();
});
after(() => h.close());

/** The service's links name its configured origin; the test server listens elsewhere. */
const local = (url: string) => origin + new URL(url).pathname;
const put = (url: string, body: Buffer, type = 'application/octet-stream') => fetch(local(url), { method: 'PUT', headers: { 'content-type': type }, body: new Uint8Array(body) });

async function uploadUrl(purpose: string, fileName: string, key = h.owner.apiKey) {
  const res = await post(origin, '/v1/createUploadUrl', { purpose, fileName }, key);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result as { fileId: string; uploadUrl: string; expiresAt: string; maxBytes: number; contentTypes: string[]; method: string };
}

describe('over HTTP', () => {
  it('an invoice PUT to its URL (no API key) becomes a document through uploadInvoiceDoc with fileId; the URL and the upload are single-use', async () => {
    const pdf = await invoicePdf({ issuer: 'Acme Ltd', number: '77', total: '50.00' });
    const up = await uploadUrl('invoice', 'acme-77.pdf');
    assert.equal(up.method, 'PUT');
    assert.ok(up.uploadUrl.startsWith(`${h.config.uploadsUrl}/${up.fileId}/`));
    assert.equal(Date.parse(up.expiresAt), now + 15 * 60_000);
    assert.equal(up.maxBytes, 5 * 1024 * 1024);
    const res = await put(up.uploadUrl, pdf, 'application/pdf');
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.deepEqual({ ...body.result, expiresAt: undefined }, { fileId: up.fileId, fileName: 'acme-77.pdf', contentType: 'application/pdf', size: pdf.length, expiresAt: undefined });
    const again = await put(up.uploadUrl, pdf);
    assert.equal(again.status, 400);
    assert.match(((await again.json()) as any).error.message, /already used/);

    const doc = await post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId }, h.owner.apiKey);
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    assert.equal(doc.body.result.fileName, 'acme-77.pdf');
    assert.equal(doc.body.result.size, pdf.length);
    const file = await fetch(local(doc.body.result.url));
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), pdf);
    const reuse = await post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId }, h.owner.apiKey);
    assert.equal(reuse.status, 400);
    assert.match(reuse.body.error.message, /^fileId: upload upl_\S+ was already used; create another with createUploadUrl$/);
  });

  it('the PUT checks type, size and the token, and a refused PUT stores nothing and leaves the URL usable', async () => {
    const up = await uploadUrl('invoice', 'scan.pdf');
    const files = () => h.app.services.store.count({ collection: `businesses/${h.owner.businessId}/files` });
    const before = await files();
    const wrongType = await put(up.uploadUrl, Buffer.from('GIF89a not an invoice'));
    assert.equal(wrongType.status, 400);
    assert.match(((await wrongType.json()) as any).error.message, /^body: the bytes are of an unknown type; this upload takes application\/pdf, image\/jpeg, image\/png/);
    const mislabelled = await put(up.uploadUrl, pngBytes('x'), 'application/pdf');
    assert.match(((await mislabelled.json()) as any).error.message, /^content-type: application\/pdf declared, but the bytes are image\/png/);
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(5 * 1024 * 1024)]);
    const tooBig = await put(up.uploadUrl, big);
    assert.equal(tooBig.status, 400);
    assert.match(((await tooBig.json()) as any).error.message, /^body: the file is \d+ bytes; this upload takes at most 5242880/);
    assert.equal(await files(), before, 'refused PUTs stored nothing');
    const notYet = await post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId }, h.owner.apiKey);
    assert.equal(notYet.status, 400);
    assert.match(notYet.body.error.message, /nothing was PUT/);
    const badToken = await put(up.uploadUrl.replace(/\/[^/]+$/, '/' + 'A'.repeat(43)), await invoicePdf());
    assert.equal(badToken.status, 404);
    const getIt = await fetch(local(up.uploadUrl));
    assert.equal(getIt.status, 405);
    assert.equal(getIt.headers.get('allow'), 'PUT');
    assert.equal((await put(up.uploadUrl, pngBytes('ok'))).status, 200, 'the URL still takes a correct PUT');
  });

  it('an upload URL expires after 15 minutes; an upload is only for its purpose and its business', async () => {
    const up = await uploadUrl('invoice', 'late.pdf');
    now += 15 * 60_000;
    const late = await put(up.uploadUrl, await invoicePdf());
    assert.equal(late.status, 400);
    assert.match(((await late.json()) as any).error.message, /expired/);

    const proof = await uploadUrl('proof', 'receipt.png');
    assert.equal((await put(proof.uploadUrl, pngBytes('proof'))).status, 200);
    const asInvoice = await post(origin, '/v1/uploadInvoiceDoc', { fileId: proof.fileId }, h.owner.apiKey);
    assert.equal(asInvoice.status, 400);
    assert.match(asInvoice.body.error.message, /^fileId: upload upl_\S+ was made for proof, not invoice/);
    const other = await h.newBusiness('Other');
    const stolen = await post(origin, '/v1/markPaid', { paymentId: 'x', proof: { fileId: proof.fileId } }, other.apiKey);
    assert.equal(stolen.status, 404);
    const both = await post(origin, '/v1/uploadInvoiceDoc', { fileId: proof.fileId, dataBase64: 'AAAA' }, h.owner.apiKey);
    assert.match(both.body.error.message, /^fileId: send fileId or dataBase64, not both/);
    const neither = await post(origin, '/v1/uploadInvoiceDoc', {}, h.owner.apiKey);
    assert.match(neither.body.error.message, /^dataBase64: is required \(or fileId from createUploadUrl\)/);
  });

  it('a signup form takes PDF or DOCX up to 10 MB, and analyzeSignupDoc takes it by fileId', async () => {
    const up = await uploadUrl('signupDoc', 'form.pdf');
    assert.equal(up.maxBytes, 10 * 1024 * 1024);
    assert.equal((await put(up.uploadUrl, pngBytes('x'))).status, 400);
    assert.equal((await put(up.uploadUrl, await invoicePdf())).status, 200);
    const res = await post(origin, '/v1/analyzeSignupDoc', { fileId: up.fileId }, h.owner.apiKey);
    // This harness has no AI: the form was accepted, and the analysis is what is refused.
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /AI is not configured/);
  });
});

describe('over MCP', () => {
  it('createUploadUrl is a core tool; markPaid takes the proof by fileId, and the proof is stored with the payment', async () => {
    const { client, call } = await connectMcp(origin, h.owner.apiKey, 'uploads-test');
    const payment = await call('createPayment', { amountAgorot: 5000, vatIncluded: true, description: 'Cables', supplierName: 'Avi', supplierEmail: 'avi@example.com', channel: 'link' });
    assert.equal(payment.isError, false, JSON.stringify(payment.body));
    const up = await call('createUploadUrl', { purpose: 'proof', fileName: 'transfer.png' });
    assert.equal(up.isError, false, JSON.stringify(up.body));
    const bytes = pngBytes('bank transfer');
    assert.equal((await put(up.body.uploadUrl, bytes, 'image/png')).status, 200);
    const paid = await call('markPaid', { paymentId: payment.body.id, proof: { fileId: up.body.fileId } });
    assert.equal(paid.isError, false, JSON.stringify(paid.body));
    assert.equal(paid.body.proof.fileName, 'transfer.png');
    assert.equal(paid.body.proof.size, bytes.length);
    const proofFile = await fetch(local(paid.body.proof.url));
    assert.deepEqual(Buffer.from(await proofFile.arrayBuffer()), bytes);
    const invoice = await call('createUploadUrl', { purpose: 'invoice', fileName: 'inv.pdf' });
    assert.equal((await put(invoice.body.uploadUrl, await invoicePdf({ number: '9' }))).status, 200);
    const doc = await call('uploadInvoiceDoc', { fileId: invoice.body.fileId });
    assert.equal(doc.isError, false, JSON.stringify(doc.body));
    assert.equal(doc.body.fileName, 'inv.pdf');
    await client.close();
  });
});
