/**
 * Upload URLs after a crash and under races (issue 34 A4): a PUT whose process died mid-store does not leave the URL
 * refused for good, and one upload is used by one call only.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../harness.ts';
import { engines } from '../engines.ts';
import { post } from '../http.ts';
import { invoicePdf, pngBytes } from '../fakes/pdfs.ts';
import { RECEIVE_LEASE_MS } from '../../functions/src/core/uploads.ts';

for (const engine of engines) {
  describe(engine.name, { skip: engine.skip }, () => {
    let h: Harness;
    let origin: string;
    let now = Date.parse('2026-11-04T10:00:00Z');
    before(async () => {
      h = await createHarness({ env: await engine.env(), overrides: { clock: { now: () => now } } });
      origin = await h.listen();
    });
    after(() => h.close());

    const local = (url: string) => origin + new URL(url).pathname;
    const put = async (url: string, body: Buffer, type = 'application/octet-stream') => {
      const res = await fetch(local(url), { method: 'PUT', headers: { 'content-type': type }, body: new Uint8Array(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    async function uploadUrl(purpose: string, fileName: string) {
      const res = await post(origin, '/v1/createUploadUrl', { purpose, fileName }, h.owner.apiKey);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.result as { fileId: string; uploadUrl: string };
    }

    test('a PUT whose process died while storing: a retry is told to wait while the PUT may still run, then the URL takes it', async () => {
      const up = await uploadUrl('invoice', 'crash.pdf');
      // The claim the dying PUT committed before it stored anything (core/uploads.ts receiveUpload).
      await h.app.services.store.update(`uploads/${up.fileId}`, { state: 'receiving', receivingUntilMs: now + RECEIVE_LEASE_MS });
      const pdf = await invoicePdf({ number: 'C-1' });
      const early = await put(up.uploadUrl, pdf, 'application/pdf');
      assert.equal(early.status, 409);
      assert.equal(early.body.error.code, 'aborted');
      assert.match(early.body.error.message, /another PUT to this upload URL is being stored; if it fails, retry after /);
      const notYet = await post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId }, h.owner.apiKey);
      assert.match(notYet.body.error.message, /^fileId: the PUT to the upload URL of upl_\S+ is still being stored; retry in a moment$/);

      now += RECEIVE_LEASE_MS + 1000;
      const dead = await post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId }, h.owner.apiKey);
      assert.match(dead.body.error.message, /^fileId: nothing was PUT to the upload URL of upl_\S+ yet$/);
      const retry = await put(up.uploadUrl, pdf, 'application/pdf');
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      const doc = await post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId }, h.owner.apiKey);
      assert.equal(doc.status, 200, JSON.stringify(doc.body));
      assert.equal(doc.body.result.size, pdf.length);
      const used = await put(up.uploadUrl, pdf, 'application/pdf');
      assert.equal(used.status, 400);
      assert.match(used.body.error.message, /already used/);
    });

    test('one proof upload, two payments marked paid at once: exactly one is paid with it, the other is refused and stays unpaid', async () => {
      const pay = async (email: string) => {
        const res = await post(origin, '/v1/createPayment', { amountAgorot: 5000, vatIncluded: true, description: 'Cables', supplierName: 'Avi', supplierEmail: email, channel: 'link' }, h.owner.apiKey);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.result.id as string;
      };
      const [a, b] = [await pay('a@example.com'), await pay('b@example.com')];
      const up = await uploadUrl('proof', 'transfer.png');
      assert.equal((await put(up.uploadUrl, pngBytes('one transfer'), 'image/png')).status, 200);
      const files = () => h.app.services.store.count({ collection: `businesses/${h.owner.businessId}/files` });
      const filesBefore = await files();

      const answers = await Promise.all([a, b].map((paymentId) => post(origin, '/v1/markPaid', { paymentId, proof: { fileId: up.fileId } }, h.owner.apiKey)));
      const won = answers.filter((r) => r.status === 200);
      const lost = answers.filter((r) => r.status !== 200);
      assert.equal(won.length, 1, JSON.stringify(answers.map((r) => r.body)));
      assert.equal(lost.length, 1);
      assert.equal(lost[0].status, 400);
      assert.equal(lost[0].body.error.code, 'failed-precondition');
      assert.match(lost[0].body.error.message, /^proof\.fileId: upload upl_\S+ was already used; create another with createUploadUrl$/);
      const statuses = await Promise.all([a, b].map(async (paymentId) => (await post(origin, '/v1/paymentGet', { paymentId }, h.owner.apiKey)).body.result.status));
      assert.equal(statuses.filter((s) => s === 'paid').length, 1);
      // The winner's copy is the only file added: the upload's own file and the loser's copy are gone.
      assert.equal(await files(), filesBefore);
    });

    test('one invoice upload sent to uploadInvoiceDoc twice at once (duplicates allowed): one document is stored, the other call is refused', async () => {
      const up = await uploadUrl('invoice', 'twice.pdf');
      assert.equal((await put(up.uploadUrl, await invoicePdf({ number: 'T-2' }), 'application/pdf')).status, 200);
      const docs = () => h.app.services.store.count({ collection: `businesses/${h.owner.businessId}/invoices` });
      const before = await docs();
      const answers = await Promise.all([0, 1].map(() => post(origin, '/v1/uploadInvoiceDoc', { fileId: up.fileId, skipDuplicates: false }, h.owner.apiKey)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400], JSON.stringify(answers.map((r) => r.body)));
      const lost = answers.find((r) => r.status === 400)!;
      assert.match(lost.body.error.message, /^fileId: upload upl_\S+ was already used; create another with createUploadUrl$/);
      assert.equal(await docs(), before + 1);
    });
  });
}
