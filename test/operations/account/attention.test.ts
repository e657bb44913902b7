import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { createPayment, simulateSubmission } from '../payments/helpers.ts';
import { paymentsPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import { approvalBasis } from '../../../functions/src/domain/payments/approvals.ts';

/** The dashboard home in one call: ready payments with totals per currency, fraud flags first, and the rest. */
let h: Harness;
before(async () => {
  h = await createHarness();
});
after(() => h.close());

test('attention: nothing to act on in a new business', async () => {
  const a = await h.call('attention', {});
  assert.deepEqual(a.ready, { items: [], count: 0, totals: [], totalsComplete: true });
  assert.deepEqual(a.flagged, []);
  assert.deepEqual(a.failedMessages, []);
});

test('attention: ready payments are totalled per currency, a changed payout comes first and is flagged', async () => {
  const a1 = await createPayment(h, { channel: 'link', amountAgorot: 125_050, currency: 'ILS' });
  const a2 = await createPayment(h, { channel: 'link', amountAgorot: 1_000, currency: 'ILS' });
  const usd = await createPayment(h, { channel: 'link', amountAgorot: 5_000, currency: 'USD' });
  // ₪100 plus VAT: the business will pay ₪118, and that is what the total counts.
  const plusVat = await createPayment(h, { channel: 'link', amountAgorot: 10_000, currency: 'ILS', vatIncluded: false });
  await createPayment(h, { channel: 'link', amountAgorot: 777, currency: 'ILS' }); // still sent: not in the totals
  for (const p of [a1, a2, usd, plusVat]) await simulateSubmission(h, p.id);
  await h.app.services.store.update(paymentsPath(h.owner.businessId, a2.id), { payoutChanged: true, payoutChange: { previous: '12-345-111', filed: '12-345-999' } });
  const a = await h.call('attention', {});
  assert.equal(a.ready.count, 4);
  assert.deepEqual(Object.fromEntries(a.ready.totals.map((t: { currency: string; amountAgorot: number }) => [t.currency, t.amountAgorot])), { ILS: 137_850, USD: 5_000 });
  assert.equal(a.ready.items[0].id, a2.id, 'the flagged payment is first');
  assert.deepEqual(a.flagged.map((p: { id: string }) => p.id), [a2.id]);
  // A paid payment drops out of both (a changed payout is paid once an admin approved it after the change: issue 36).
  const changed = (await h.app.services.store.get(paymentsPath(h.owner.businessId, a2.id)))!.data as unknown as PaymentRecord;
  await h.app.services.store.update(paymentsPath(h.owner.businessId, a2.id), { approvals: [{ by: 'another-admin', byEmail: 'a@example.com', at: new Date().toISOString(), basis: approvalBasis(changed) }] });
  await h.call('markPaid', { paymentId: a2.id });
  const after = await h.call('attention', {});
  assert.equal(after.ready.count, 3);
  assert.deepEqual(after.flagged, []);
});

test('myBusinesses with an API key is the key\'s own business; invitePreview refuses API keys', async () => {
  const mine = await h.call('myBusinesses', {});
  assert.deepEqual(mine.items, [{ businessId: h.owner.businessId, businessName: 'Test Business', role: 'admin' }]);
  await assert.rejects(h.call('invitePreview', { token: 'abc' }), (e: any) => e.code === 'permission-denied');
});
