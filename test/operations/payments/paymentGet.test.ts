import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { get } from '../../http.ts';
import { paymentsPath } from '../../../functions/src/domain/payments/payments.ts';
import { createPayment, fileToken, paymentsEnv, PDF, PNG, simulateSubmission, type PaymentsEnv } from './helpers.ts';

let env: PaymentsEnv;
before(async () => {
  env = await paymentsEnv();
});
after(() => env.close());

test('returns the payment with link, settings, timestamps and empty supplier side', async () => {
  const { h } = env;
  const created = await createPayment(h, { supplierEmail: 'get@example.com', payMethods: ['bank'] });
  const p = await h.call('paymentGet', { paymentId: created.id });
  // createPayment adds the supplier record's name it kept (`supplier`); the payment itself is the same.
  const { supplier, ...view } = created;
  assert.deepEqual(supplier, { key: created.supplierKey, name: created.supplierName });
  assert.deepEqual(p, view);
  assert.equal(p.status, 'sent');
  assert.equal(p.link, created.link);
  assert.deepEqual(p.payMethods, ['bank']);
  assert.equal(p.payout, null);
  assert.deepEqual(p.invoices, []);
  assert.equal(p.proof, null);
  assert.equal(p.itaVerdict, null);
  for (const k of ['createdAt', 'updatedAt', 'sentAt']) assert.match(p[k], /^\d{4}-\d\d-\d\dT/, k);
  for (const k of ['supplierSubmittedAt', 'readyAt', 'paidAt', 'canceledAt']) assert.equal(p[k], null, k);
});

test("returns the supplier's payout details, invoices and proof with working download links, and the ITA verdict", async () => {
  const { h } = env;
  const b = h.owner.businessId;
  const created = await createPayment(h, { channel: 'link' });
  await simulateSubmission(h, created.id);
  const files = h.app.services.files;
  const inv = await files.save(b, { fileName: 'invoice.pdf', contentType: 'application/pdf', bytes: PDF });
  await h.app.services.store.update(paymentsPath(b, created.id), {
    invoices: [{ fileId: inv.fileId, fileName: 'invoice.pdf', contentType: 'application/pdf', size: PDF.length, sha256: 'x', uploadedAt: '2026-02-01T00:00:00.000Z' }],
    itaVerdict: 'match',
  });
  await h.call('markPaid', { paymentId: created.id, proof: { fileName: 'transfer.png', mimeType: 'image/png', dataBase64: PNG.toString('base64') } });
  const p = await h.call('paymentGet', { paymentId: created.id });
  assert.deepEqual(p.payout, { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Cohen' });
  assert.equal(p.itaVerdict, 'match');
  assert.equal(p.invoices.length, 1);
  assert.equal(p.invoices[0].url, inv.url);
  assert.deepEqual(p.invoice, { fileName: 'invoice.pdf', url: inv.url });
  assert.equal((await files.open(fileToken(p.invoices[0].url)))?.bytes.equals(PDF), true);
  assert.equal(p.proof.fileName, 'transfer.png');
  assert.equal(p.proof.contentType, 'image/png');
  assert.equal(p.proof.size, PNG.length);
  assert.equal((await files.open(fileToken(p.proof.url)))?.bytes.equals(PNG), true);
  assert.equal(p.status, 'paid');
  assert.ok(p.supplierSubmittedAt && p.readyAt && p.paidAt);
});

test("another business's payment id, or an unknown one, is not-found", async () => {
  const { h } = env;
  const other = await h.newBusiness('Other Co');
  const theirs = await createPayment(h, { channel: 'link' }, other);
  await assert.rejects(h.call('paymentGet', { paymentId: theirs.id }), { code: 'not-found', message: /^paymentId: payment .* not found/ });
  await assert.rejects(h.call('paymentGet', { paymentId: 'nope' }), { code: 'not-found' });
  await assert.rejects(h.call('paymentGet', { paymentId: '../x' }), { code: 'invalid-argument', message: /^paymentId: not a valid id/ });
  assert.equal((await h.call('paymentGet', { paymentId: theirs.id }, other)).id, theirs.id);
});

test('is read-only: served over GET with the id in the query string', async () => {
  const { h } = env;
  const origin = await h.listen();
  const created = await createPayment(h, { channel: 'link' });
  const res = await get(origin, `/v1/paymentGet?paymentId=${created.id}`, h.owner.apiKey);
  assert.equal(res.status, 200);
  assert.equal(res.body.result.id, created.id);
  assert.equal(res.headers.get('x-doc-writes'), '0');
  assert.equal(h.registry.get('paymentGet')!.flags.readOnly, true);
});
