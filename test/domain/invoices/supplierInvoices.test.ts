import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { startFakeGemini, type FakeGemini, type FakeGeminiRequest } from '../../fakes/gemini.ts';
import { invoicePdf } from '../../fakes/pdfs.ts';
import { jerusalemDay } from '../../../functions/src/core/clock.ts';
import { invoicesPath } from '../../../functions/src/domain/invoices/invoices.ts';
import { supplierDocId } from '../../../functions/src/domain/invoices/invoiceDocs.ts';
import { SUPPLIER_INVOICE_QUEUE } from '../../../functions/src/domain/invoices/supplierInvoices.ts';
import { attachInvoice, fileStandingRequest, newSubmissionId, submitPayout, type PayoutFields } from '../../../functions/src/domain/payments/supplierSubmission.ts';

// Issue 17 item 10: an invoice a supplier attaches on the link page is read by a task on arrival,
// through the real Gemini adapter against the fake Gemini, under a daily AI quota of 2 readings.
let gemini: FakeGemini;
let h: Harness;
before(async () => {
  gemini = await startFakeGemini({ apiKey: 'test-gemini-key', model: 'gemini-2.5-flash' });
  h = await createHarness({ env: { GEMINI_API_KEY: 'test-gemini-key', GEMINI_BASE_URL: gemini.baseUrl, QUOTA_AI: '2' } });
});
after(async () => {
  await h.close();
  await gemini.close();
});

const BANK: PayoutFields = { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Levi' };

/** A Gemini reply in the wire shape (major units), one per invoice number. */
const wire = (number: string, total: number) => ({
  issuer: { name: 'דנה לוי עיצובים', vatId: '540000001', email: '', phone: '' },
  docType: 'tax_invoice',
  number,
  date: '2026-03-10',
  total,
  currency: 'ILS',
  vat: 0,
  payMethod: '',
  cardEnding: '',
  lineItems: [],
  bank: null,
  allocationNumber: '',
});

/** A supplier's invoice PDF whose reading the fake Gemini answers for as long as the test runs. */
async function supplierPdf(number: string, total: number) {
  const bytes = await invoicePdf({ number });
  gemini.answer((r: FakeGeminiRequest) => Boolean(r.inline[0]?.bytes.equals(bytes)), { text: JSON.stringify(wire(number, total)) });
  return { fileName: `${number}.pdf`, contentType: 'application/pdf', bytes };
}

async function newPayment(biz: TestUser, over: Record<string, unknown> = {}) {
  const view = await h.call('createPayment', { amountAgorot: 118_00, vatIncluded: true, description: 'Logo design', supplierName: 'דנה לוי', supplierPhone: '050-123-4567', channel: 'link', ...over }, biz);
  return { id: view.id as string, token: new URL(view.link).pathname.split('/').pop()! };
}

const list = (biz: TestUser) => h.call('invoicesList', { source: 'supplier' }, biz).then((r) => r.items as any[]);
const aiUsed = async (biz: TestUser) => Number((await h.app.services.store.get(`businesses/${biz.businessId}/quotas/ai_${jerusalemDay(h.app.services.clock.now())}`))?.data.used ?? 0);
const readings = () => gemini.requests.length;

test('an invoice given with the payout details is listed at once, and read by the task; a redelivered task neither reads nor charges again', async () => {
  const biz = await h.newBusiness('Read Co');
  const { id, token } = await newPayment(biz);
  const invoice = await supplierPdf('SUP-40211', 118);
  await submitPayout(h.app.services, { token, submissionId: newSubmissionId(), payout: BANK, invoice });

  const [arrived] = await list(biz);
  assert.ok(arrived, 'the supplier invoice is in invoicesList as soon as it arrives');
  assert.deepEqual([arrived.readingStatus, arrived.paymentId, arrived.supplierName], ['unread', id, 'דנה לוי']);

  const before = readings();
  await h.app.queue!.drain();
  const [read] = await list(biz);
  assert.equal(read.docId, arrived.docId, 'the task read the listed document, not a second one');
  assert.deepEqual([read.readingStatus, read.number, read.totalMinor, read.issuerName], ['read', 'SUP-40211', 11800, 'דנה לוי עיצובים']);
  assert.equal(read.supplierKey, '+972501234567', "the payment's supplier stays the document's supplier");
  assert.equal(readings() - before, 1, 'one AI reading');
  assert.equal(await aiUsed(biz), 1, 'one reading charged');

  // At-least-once delivery: the same task again (and a drain) reads nothing and charges nothing.
  const payload = { businessId: biz.businessId, paymentId: id, fileId: (await h.call('invoiceGet', { docId: read.docId }, biz)).fileId as string };
  await h.app.taskHandlers[SUPPLIER_INVOICE_QUEUE](payload);
  await h.app.queue!.drain();
  assert.equal(readings() - before, 1, 'no second AI reading');
  assert.equal(await aiUsed(biz), 1, 'no second charge');

  // A run charged before its reading was stored (lost on a crash) is charged once only: the retry reads but does not charge.
  await h.app.services.store.delete(invoicesPath(biz.businessId, read.docId));
  await h.app.taskHandlers[SUPPLIER_INVOICE_QUEUE](payload);
  assert.equal(await aiUsed(biz), 1, 'the retry was not charged again');
  const [again] = await list(biz);
  assert.deepEqual([again.docId, again.readingStatus, again.number], [supplierDocId(id, payload.fileId), 'read', 'SUP-40211']);
});

test('with the AI quota used up, an invoice attached later is listed unread, saying why', async () => {
  const biz = await h.newBusiness('Quota Co');
  const first = await newPayment(biz);
  await submitPayout(h.app.services, { token: first.token, submissionId: newSubmissionId(), payout: BANK, invoice: await supplierPdf('Q-1', 50) });
  const second = await newPayment(biz, { supplierPhone: '050-765-4321', supplierName: 'Other Supplier' });
  await submitPayout(h.app.services, { token: second.token, submissionId: newSubmissionId(), payout: BANK, invoice: await supplierPdf('Q-2', 60) });
  await h.app.queue!.drain();
  assert.equal(await aiUsed(biz), 2, 'the two readings the quota allows');

  // The third invoice comes through attachInvoice, after the payout details.
  const third = await newPayment(biz, { supplierPhone: '052-000-1111', supplierName: 'Third Supplier' });
  await submitPayout(h.app.services, { token: third.token, submissionId: newSubmissionId(), payout: BANK });
  await attachInvoice(h.app.services, { token: third.token, submissionId: newSubmissionId(), invoice: await supplierPdf('Q-3', 70) });
  const before = readings();
  await h.app.queue!.drain();
  assert.equal(readings(), before, 'no AI call once the quota is used up');
  const rows = await list(biz);
  assert.equal(rows.length, 3);
  const unread = rows.find((r) => r.paymentId === third.id)!;
  assert.equal(unread.readingStatus, 'unread');
  const view = await h.call('invoiceGet', { docId: unread.docId }, biz);
  assert.match(view.readingError, /quota/);
  assert.deepEqual(rows.filter((r) => r.readingStatus === 'read').map((r) => r.number).sort(), ['Q-1', 'Q-2']);
  assert.equal(await aiUsed(biz), 2);
});

test('an invoice filed with an anonymous standing-link request is listed unread and spends no AI quota', async () => {
  const biz = await h.newBusiness('Public Co');
  await h.call('setMyPublicLink', { slug: 'public-co-invoices' }, biz);
  const before = readings();
  await fileStandingRequest(h.app.services, {
    slug: 'public-co-invoices',
    submissionId: newSubmissionId(),
    name: 'Moshe Levi',
    phone: '052-111-2222',
    amount: '800',
    description: 'Tyres',
    payout: { method: 'bit', bitPhone: '052-111-2222' },
    invoice: await supplierPdf('PUB-1', 800),
  });
  await h.app.queue!.drain();
  const [row] = await list(biz);
  assert.equal(row.readingStatus, 'unread');
  assert.match((await h.call('invoiceGet', { docId: row.docId }, biz)).readingError, /review/);
  assert.equal(readings(), before);
  assert.equal(await aiUsed(biz), 0);
});

test('without AI configured, the invoice is listed unread and says so', async () => {
  const plain = await createHarness();
  try {
    const view = await plain.call('createPayment', { amountAgorot: 5000, vatIncluded: true, description: 'Work', supplierName: 'Dana', supplierPhone: '050-123-4567', channel: 'link' });
    const token = new URL(view.link).pathname.split('/').pop()!;
    await submitPayout(plain.app.services, { token, submissionId: newSubmissionId(), payout: BANK, invoice: { fileName: 'x.pdf', contentType: 'application/pdf', bytes: await invoicePdf({ number: 'NOAI-1' }) } });
    await plain.app.queue!.drain();
    const { items } = await plain.call('invoicesList', { source: 'supplier' });
    assert.equal(items.length, 1);
    assert.equal(items[0].readingStatus, 'unread');
    assert.match((await plain.call('invoiceGet', { docId: items[0].docId })).readingError, /not configured/);
  } finally {
    await plain.close();
  }
});
