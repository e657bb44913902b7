import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { invoicesEnv, upload, reading } from '../invoices/helpers.ts';
import { newSubmissionId, submitPayout } from '../../../functions/src/domain/payments/supplierSubmission.ts';

// Issue 34 B6: an invoice the owner uploaded and attached to a payment (createPayment's invoiceDocId) follows that
// payment's actual pay method, like an invoice the supplier attached, and not the AI's card reading.
const env = await invoicesEnv({ now: () => Date.parse('2026-11-20T09:00:00Z') });
after(() => env.close());

test("an uploaded invoice attached to a payment paid by bank transfer counts as paid by transfer in invoiceGet, invoicesList's filter and the spend report", async () => {
  const doc = await upload(env, reading({ payMethod: 'card', cardEnding: '4242', issuer: { name: 'Gal Print', vatId: '515000009' }, number: 'G-1', date: '2026-11-08', totalMinor: 9_000 }));
  const view = await env.h.call('createPayment', { amountAgorot: 9_000, vatIncluded: true, description: 'Print', supplierName: 'Gal Print', supplierPhone: '050-222-3333', channel: 'link', invoiceDocId: doc.docId });
  await submitPayout(env.h.app.services, {
    token: new URL(view.link).pathname.split('/').pop()!,
    submissionId: newSubmissionId(),
    payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Gal Print' },
  });
  await env.h.app.queue!.drain();
  await env.h.call('markPaid', { paymentId: view.id });

  assert.equal((await env.h.call('invoiceGet', { docId: doc.docId })).effectivePayMark, 'paid_transfer');
  const listed = async (payMark: string) => (await env.h.call('invoicesList', { payMark })).items.map((i: any) => i.docId);
  assert.deepEqual(await listed('paid_transfer'), [doc.docId]);
  assert.deepEqual(await listed('paid_card'), []);
  const spend = await env.h.call('spendSummary', { from: '2026-11-01', to: '2026-11-30', by: 'payMethod' });
  assert.deepEqual(spend.byKey.map((r: any) => [r.key, r.count]), [['paid_transfer', 1]]);

  // Undone, the AI's reading decides again.
  await env.h.call('revertPaid', { paymentId: view.id, status: 'ready' });
  assert.deepEqual(await listed('paid_card'), [doc.docId]);
});
