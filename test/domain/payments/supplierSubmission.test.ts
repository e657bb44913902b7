import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from '../../harness.ts';
import { paymentsPath, supplierLinkPath, type PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import { suppliersPath, type SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';
import type { OutboxRecord } from '../../../functions/src/core/outbox.ts';
import type { Services } from '../../../functions/src/core/context.ts';
import {
  attachInvoice,
  fileStandingRequest,
  linkSubmissionPath,
  newSubmissionId,
  parseMajorAmount,
  submitPayout,
  SubmissionInvalid,
  KEPT_SUBMISSIONS,
  type PayoutFields,
} from '../../../functions/src/domain/payments/supplierSubmission.ts';
import { messages } from '../../../functions/src/surfaces/pages/i18n.ts';
import { objectStreamBombPdf } from '../../core/bombs.ts';

let h: Harness;
let s: Services;
before(async () => {
  h = await createHarness();
  s = h.app.services;
});
after(() => h.close());

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const pdf = (tag = 'a') => ({ fileName: `invoice-${tag}.pdf`, contentType: 'application/pdf', bytes: Buffer.concat([PDF, Buffer.from(tag)]) });
const BANK: PayoutFields = { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Cohen' };

/** A payment as the business creates it (createPayment, channel link), with its token. */
async function newPayment(over: Record<string, unknown> = {}, user = h.owner) {
  const view = await h.call('createPayment', { amountAgorot: 12_345, vatIncluded: true, description: 'Kitchen work', supplierName: 'Dana Cohen', supplierPhone: '050-123-4567', channel: 'link', ...over }, user);
  return { id: view.id as string, token: new URL(view.link).pathname.split('/').pop()!, businessId: user.businessId };
}

const stored = async (id: string, businessId = h.owner.businessId) => (await s.store.get(paymentsPath(businessId, id)))!.data as unknown as PaymentRecord;
const outbox = async (businessId = h.owner.businessId) =>
  (await s.store.query({ collection: `businesses/${businessId}/outbox` })).map((d) => d.data as unknown as OutboxRecord);
const fileCount = async (businessId = h.owner.businessId) => (await s.store.query({ collection: `businesses/${businessId}/files` })).length;
const problemsOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SubmissionInvalid, `expected SubmissionInvalid, got ${e}`);
    return e.problems;
  }
  assert.fail('expected the submission to be refused');
};

test('bank payout: sent → ready, details normalised, supplier side kept, business told', async () => {
  const biz = await h.newBusiness('Bakery');
  const { id, token } = await newPayment({}, biz);
  const res = await submitPayout(s, { token, submissionId: newSubmissionId(), payout: { method: 'bank', bankCode: '4', bankBranch: '12', bankAccount: '12-3456', bankBeneficiary: ' Dana Cohen ' } });
  assert.equal(res.outcome, 'applied');
  const p = await stored(id, biz.businessId);
  assert.equal(p.status, 'ready');
  assert.deepEqual(p.payout, { method: 'bank', bankCode: '04', bankBranch: '012', bankAccount: '123456', bankBeneficiary: 'Dana Cohen' });
  assert.ok(p.readyAt && p.supplierSubmittedAt);
  assert.equal(p.submissions.length, 1);
  const supplier = (await s.store.get(suppliersPath(biz.businessId, p.supplierKey)))!.data as unknown as SupplierRecord;
  assert.equal(supplier.supplierSide?.bankAccount, '123456');
  const [mail] = await outbox(biz.businessId);
  assert.equal(mail.channel, 'email');
  assert.equal(mail.to, biz.email);
  assert.match((mail.message as { subject: string }).subject, /מוכן\/ה לתשלום/);
  const activity = await h.call('listActivity', {}, biz);
  assert.ok(activity.items.some((r: any) => r.operation === 'supplierSubmit' && r.targetIds[0] === id && r.keyName === 'supplier link'));
});

test('bit payout: the phone is normalised; a method outside payMethods is refused', async () => {
  const { id, token } = await newPayment();
  await submitPayout(s, { token, submissionId: newSubmissionId(), payout: { method: 'bit', bitPhone: '050-765-4321' } });
  assert.deepEqual((await stored(id)).payout, { method: 'bit', bitPhone: '+972507654321' });

  const bankOnly = await newPayment({ payMethods: ['bank'] });
  assert.deepEqual(await problemsOf(submitPayout(s, { token: bankOnly.token, submissionId: newSubmissionId(), payout: { method: 'bit', bitPhone: '0507654321' } })), { method: 'method' });
  assert.deepEqual(await problemsOf(submitPayout(s, { token: bankOnly.token, submissionId: newSubmissionId(), payout: { bankCode: '12' } })), {
    bankBranch: 'required',
    bankAccount: 'required',
    bankBeneficiary: 'required',
  });
});

test('bad bank details are refused field by field, and nothing is stored', async () => {
  const { id, token } = await newPayment();
  const files = await fileCount();
  const problems = await problemsOf(
    submitPayout(s, { token, submissionId: newSubmissionId(), payout: { method: 'bank', bankCode: 'ab', bankBranch: '1234', bankAccount: '123', bankBeneficiary: '' }, invoice: pdf('bad') }),
  );
  assert.deepEqual(problems, { bankCode: 'bankCode', bankBranch: 'bankBranch', bankAccount: 'bankAccount', bankBeneficiary: 'required' });
  assert.deepEqual(await problemsOf(submitPayout(s, { token, submissionId: newSubmissionId(), payout: { method: 'bit', bitPhone: '12' } })), { bitPhone: 'phone' });
  const p = await stored(id);
  assert.equal(p.status, 'sent');
  assert.equal(p.payout, null);
  assert.equal(await fileCount(), files);
});

test('invoice required: no invoice → awaiting_invoice; the invoice later → ready, once', async () => {
  const biz = await h.newBusiness('Studio');
  const { id, token } = await newPayment({ invoiceRequired: true }, biz);
  await submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK });
  assert.equal((await stored(id, biz.businessId)).status, 'awaiting_invoice');
  assert.equal((await outbox(biz.businessId)).length, 0, 'not ready yet: nobody is told');

  const first = await attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: pdf('x') });
  assert.equal(first.invoiceAdded, true);
  let p = await stored(id, biz.businessId);
  assert.equal(p.status, 'ready');
  assert.equal(p.invoices.length, 1);
  assert.equal(p.invoices[0].contentType, 'application/pdf');
  assert.equal((await outbox(biz.businessId)).length, 1);

  // The same bytes again, even from a fresh form, are not added twice and leave no stray file.
  const again = await attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: pdf('x') });
  assert.equal(again.invoiceAdded, false);
  p = await stored(id, biz.businessId);
  assert.equal(p.invoices.length, 1);
  assert.equal(await fileCount(biz.businessId), 1);
  // An extra, different invoice on a ready payment is kept without a new notification.
  await attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: { fileName: 'scan.png', contentType: 'image/png', bytes: PNG } });
  assert.equal((await stored(id, biz.businessId)).invoices.length, 2);
  assert.equal((await outbox(biz.businessId)).length, 1);
});

test('open amount: the supplier must fill it; major units become agorot', async () => {
  const { id, token } = await newPayment({ openAmount: true, amountAgorot: 0 });
  assert.deepEqual(await problemsOf(submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK })), { amount: 'required' });
  assert.deepEqual(await problemsOf(submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK, amount: '-5' })), { amount: 'amount' });
  await submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK, amount: '1,250.5' });
  const p = await stored(id);
  assert.equal(p.amountAgorot, 125_050);
  assert.equal(p.status, 'ready');
});

test('a replayed submission changes nothing and keeps no second file', async () => {
  const biz = await h.newBusiness('Replay');
  const { id, token } = await newPayment({}, biz);
  const submissionId = newSubmissionId();
  const input = { token, submissionId, payout: BANK, invoice: pdf('r') };
  const [a, b] = await Promise.all([submitPayout(s, input), submitPayout(s, input)]);
  assert.deepEqual([a.outcome, b.outcome].sort(), ['applied', 'replayed']);
  const before = await stored(id, biz.businessId);
  const c = await submitPayout(s, input);
  assert.equal(c.outcome, 'replayed');
  const p = await stored(id, biz.businessId);
  assert.deepEqual(p, before);
  assert.equal(p.invoices.length, 1);
  assert.equal(await fileCount(biz.businessId), 1);
  assert.equal((await outbox(biz.businessId)).length, 1);
});

test('a submission on a payment no longer in sent is refused naming the status', async () => {
  const { token } = await newPayment();
  await submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK });
  await assert.rejects(submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK }), { code: 'failed-precondition', message: /status is ready/ });
});

test('paid: a late invoice is kept and the business told; canceled takes nothing', async () => {
  const biz = await h.newBusiness('Late');
  const { id, token } = await newPayment({}, biz);
  await submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK });
  await h.call('markPaid', { paymentId: id }, biz);
  const res = await attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: pdf('late') });
  assert.equal(res.payment.status, 'paid');
  assert.equal(res.invoiceAdded, true);
  const late = (await outbox(biz.businessId)).filter((r) => r.reason === 'lateInvoice');
  assert.equal(late.length, 1);
  assert.equal(late[0].to, biz.email);

  const other = await newPayment({}, biz);
  await h.call('cancelPayment', { paymentId: other.id }, biz);
  const files = await fileCount(biz.businessId);
  await assert.rejects(attachInvoice(s, { token: other.token, submissionId: newSubmissionId(), invoice: pdf('c') }), { code: 'failed-precondition', message: /canceled/ });
  await assert.rejects(submitPayout(s, { token: other.token, submissionId: newSubmissionId(), payout: BANK }), { code: 'failed-precondition' });
  assert.equal(await fileCount(biz.businessId), files);
});

test('files: PDF or image by type and magic bytes, at most 5 MB', async () => {
  const { token } = await newPayment();
  const sub = (invoice: { fileName: string; contentType: string; bytes: Buffer }) => problemsOf(attachInvoice(s, { token, submissionId: newSubmissionId(), invoice }));
  assert.deepEqual(await sub({ fileName: 'x.pdf', contentType: 'application/pdf', bytes: PNG }), { invoice: 'fileType' });
  assert.deepEqual(await sub({ fileName: 'x.txt', contentType: 'text/plain', bytes: Buffer.from('hello') }), { invoice: 'fileType' });
  assert.deepEqual(await sub({ fileName: 'x.pdf', contentType: 'application/pdf', bytes: Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024)]) }), { invoice: 'fileSize' });
  assert.deepEqual(await problemsOf(attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: null })), { invoice: 'required' });
  // A browser that does not know the type says octet-stream; the bytes decide.
  const ok = await attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: { fileName: '../../etc/x', contentType: 'application/octet-stream', bytes: PDF } });
  assert.equal(ok.payment.invoices[0].contentType, 'application/pdf');
  assert.equal(ok.payment.invoices[0].fileName, 'x');
});

test('a failed transaction removes the file saved for it', async () => {
  const biz = await h.newBusiness('Fail');
  const { id, token } = await newPayment({}, biz);
  // The store with its transactions failing (its other methods come from the real one, through the prototype).
  const store = Object.assign(Object.create(s.store) as typeof s.store, { runTransaction: async () => Promise.reject(new Error('store down')) });
  const broken: Services = { ...s, store };
  await assert.rejects(submitPayout(broken, { token, submissionId: newSubmissionId(), payout: BANK, invoice: pdf('f') }), /store down/);
  assert.equal(await fileCount(biz.businessId), 0);
  assert.equal((await stored(id, biz.businessId)).status, 'sent');
});

test('only the last submission ids are kept', async () => {
  const { id, token } = await newPayment();
  await submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK });
  for (let i = 0; i < KEPT_SUBMISSIONS + 2; i++) await attachInvoice(s, { token, submissionId: newSubmissionId(), invoice: pdf('same') });
  assert.equal((await stored(id)).submissions.length, KEPT_SUBMISSIONS);
});

test('unknown or malformed tokens are not found', async () => {
  await assert.rejects(submitPayout(s, { token: 'A'.repeat(43), submissionId: newSubmissionId(), payout: BANK }), { code: 'not-found' });
  await assert.rejects(attachInvoice(s, { token: '../x', submissionId: newSubmissionId(), invoice: pdf() }), { code: 'not-found' });
  const { token } = await newPayment();
  await assert.rejects(submitPayout(s, { token, submissionId: 'short', payout: BANK }), { code: 'invalid-argument' });
});

test('parseMajorAmount', () => {
  assert.equal(parseMajorAmount('1250'), 125_000);
  assert.equal(parseMajorAmount('1,250.50'), 125_050);
  assert.equal(parseMajorAmount('₪ 0.5'), 50);
  for (const bad of ['0', '1.234', '12,34', 'abc', '-1', '', '1e5']) assert.equal(parseMajorAmount(bad), null, bad);
});

test('standing link: files a payment for review (status sent, filedBy public) with channel link, in the PaymentRecord shape', async () => {
  const biz = await h.newBusiness('Garage');
  await h.call('setMyPublicLink', { slug: 'garage-tlv' }, biz);
  const submissionId = newSubmissionId();
  const res = await fileStandingRequest(s, {
    slug: 'garage-tlv',
    submissionId,
    name: 'Moshe Levi',
    phone: '052-111-2222',
    email: 'Moshe@Example.com',
    amount: '800',
    vatIncluded: true,
    description: 'Tyres',
    payout: { method: 'bit', bitPhone: '052-111-2222' },
    invoice: pdf('standing'),
  });
  assert.equal(res.outcome, 'applied');
  const p = await stored(res.payment.id, biz.businessId);
  const SHAPE: Record<keyof PaymentRecord, true> = {
    id: true, businessId: true, status: true, supplierName: true, supplierPhone: true, supplierEmail: true, supplierKey: true, amountAgorot: true, openAmount: true,
    currency: true, vatIncluded: true, invoiceRequired: true, payMethods: true, description: true, channel: true, linkToken: true, invoices: true, proof: true, payout: true,
    itaVerdict: true, invoiceNumber: true, search: true, submissions: true, viaPublicLink: true, createdAt: true, createdAtMs: true, updatedAt: true, sentAt: true,
    supplierSubmittedAt: true, readyAt: true, paidAt: true, canceledAt: true, filedBy: true, needsReview: true, payoutChanged: true, payoutChange: true, noVat: true, supplierLang: true,
    createdBy: true, approvals: true, rejection: true, dueDate: true, runId: true, reminders: true,
  };
  // Nobody created it in the business, nor approved, scheduled or batched it yet: those fields come later, if ever.
  const later = ['createdBy', 'approvals', 'rejection', 'dueDate', 'runId', 'reminders'];
  assert.deepEqual(Object.keys(p).sort(), Object.keys(SHAPE).filter((k) => !later.includes(k)).sort());
  assert.equal(p.status, 'sent', 'nobody verified the filer: it waits for review by default');
  assert.deepEqual([p.filedBy, p.needsReview, p.payoutChanged], ['public', true, false]);
  assert.equal(p.channel, 'link');
  assert.equal(p.viaPublicLink, true);
  assert.equal(p.supplierPhone, '+972521112222');
  assert.equal(p.supplierEmail, 'moshe@example.com');
  assert.equal(p.supplierKey, '+972521112222');
  assert.equal(p.amountAgorot, 80_000);
  assert.equal(p.invoices.length, 1);
  assert.ok(p.search.includes('ty'));
  assert.deepEqual((await s.store.get(supplierLinkPath(p.linkToken)))!.data, { businessId: biz.businessId, paymentId: p.id });
  assert.ok(await s.store.get(linkSubmissionPath(biz.businessId, submissionId)));
  const supplier = (await s.store.get(suppliersPath(biz.businessId, p.supplierKey)))!.data as unknown as SupplierRecord;
  assert.equal(supplier.paymentCount, 1);
  assert.equal(supplier.supplierSide?.bitPhone, '+972521112222');
  assert.equal(supplier.supplierSide?.name, 'Moshe Levi');
  const mails = await outbox(biz.businessId);
  assert.deepEqual(mails.map((m) => m.to).sort(), [biz.email, 'moshe@example.com'].sort(), 'the business, and the filer (who gave an email) with their page link');
  const activity = await h.call('listActivity', {}, biz);
  assert.ok(activity.items.some((r: any) => r.operation === 'publicLinkRequest' && r.actorUserId === 'public-link' && r.targetIds[0] === p.id));
  // The operations see it like any other payment.
  const view = await h.call('paymentGet', { paymentId: p.id }, biz);
  assert.equal(view.status, 'sent');

  // A replay, even two at once, shows the first result and files nothing new.
  const again = await Promise.all([1, 2].map(() => fileStandingRequest(s, { slug: 'garage-tlv', submissionId, name: 'Moshe Levi', phone: '0521112222', amount: '800', description: 'Tyres', payout: { method: 'bit', bitPhone: '0521112222' }, invoice: pdf('other') })));
  for (const r of again) {
    assert.equal(r.outcome, 'replayed');
    assert.equal(r.payment.id, p.id);
  }
  assert.equal((await s.store.query({ collection: paymentsPath(biz.businessId) })).length, 1);
  assert.equal(await fileCount(biz.businessId), 1);
});

test('standing link: twin first submissions make one payment', async () => {
  const biz = await h.newBusiness('Twins');
  await h.call('setMyPublicLink', { slug: 'twins' }, biz);
  const input = { slug: 'twins', submissionId: newSubmissionId(), name: 'A', email: 'a@example.com', amount: '10', description: 'x', payout: BANK };
  const results = await Promise.all([fileStandingRequest(s, input), fileStandingRequest(s, input)]);
  assert.deepEqual(results.map((r) => r.outcome).sort(), ['applied', 'replayed']);
  assert.equal((await s.store.query({ collection: paymentsPath(biz.businessId) })).length, 1);
  const supplier = (await s.store.get(suppliersPath(biz.businessId, 'a@example.com')))!.data as unknown as SupplierRecord;
  assert.equal(supplier.paymentCount, 1);
});

test('standing link: validation and unknown slugs', async () => {
  const biz = await h.newBusiness('Checks');
  await h.call('setMyPublicLink', { slug: 'checks' }, biz);
  const problems = await problemsOf(fileStandingRequest(s, { slug: 'checks', submissionId: newSubmissionId(), name: ' ', amount: 'x', description: '', payout: { method: 'bank' } }));
  assert.deepEqual(problems, { name: 'required', contact: 'contact', amount: 'amount', description: 'required', bankCode: 'required', bankBranch: 'required', bankAccount: 'required', bankBeneficiary: 'required' });
  const bad = await problemsOf(fileStandingRequest(s, { slug: 'checks', submissionId: newSubmissionId(), name: 'A', phone: '12', email: 'nope', amount: '5', description: 'x', payout: BANK }));
  assert.deepEqual(bad, { phone: 'phone', email: 'email' });
  assert.equal((await s.store.query({ collection: paymentsPath(biz.businessId) })).length, 0);
  await assert.rejects(fileStandingRequest(s, { slug: 'no-such-slug', submissionId: newSubmissionId(), payout: BANK }), { code: 'not-found' });
  await assert.rejects(fileStandingRequest(s, { slug: '../x', submissionId: newSubmissionId(), payout: BANK }), { code: 'not-found' });
  // A released slug no longer leads to its old business.
  await h.call('setMyPublicLink', { slug: 'checks-2' }, biz);
  await assert.rejects(fileStandingRequest(s, { slug: 'checks', submissionId: newSubmissionId(), payout: BANK }), { code: 'not-found' });
});

test('standing link: a filing under a known supplier\'s phone never changes that supplier, and a different payout is flagged', async () => {
  const biz = await h.newBusiness('Fraud target');
  await h.call('setMyPublicLink', { slug: 'fraud-target' }, biz);
  await h.call('createSupplier', { name: 'Real Supplier Ltd', phone: '052-333-4444' }, biz);
  await h.call('saveSupplierContact', { supplierKey: '+972523334444', bankCode: '10', bankBranch: '600', bankAccount: '111222333', bankBeneficiary: 'Real Supplier Ltd' }, biz);
  const before = (await s.store.get(suppliersPath(biz.businessId, '+972523334444')))!.data as unknown as SupplierRecord;
  const res = await fileStandingRequest(s, {
    slug: 'fraud-target', submissionId: newSubmissionId(), name: 'Attacker', phone: '052-333-4444', amount: '9000', description: 'Invoice 77',
    payout: { method: 'bank', bankCode: '11', bankBranch: '800', bankAccount: '999888777', bankBeneficiary: 'Attacker' },
  });
  const p = await stored(res.payment.id, biz.businessId);
  assert.equal(p.status, 'sent');
  assert.equal(p.payoutChanged, true);
  assert.deepEqual(p.payoutChange, { previous: 'bank 10-600 ••••333', filed: 'bank 11-800 ••••777' });
  const after = (await s.store.get(suppliersPath(biz.businessId, '+972523334444')))!.data as unknown as SupplierRecord;
  assert.equal(after.name, 'Real Supplier Ltd', 'not renamed');
  assert.deepEqual(after.card, before.card, 'card untouched');
  assert.deepEqual(after.supplierSide, before.supplierSide, 'what the supplier set on their side is untouched');
  assert.equal(after.paymentCount, before.paymentCount + 1);
  const contact = await h.call('getSupplierContact', { supplierKey: '+972523334444' }, biz);
  assert.equal(contact.supplierSide, null);
  const view = await h.call('paymentGet', { paymentId: p.id }, biz);
  assert.deepEqual([view.payoutChanged, view.payoutChange?.previous, view.filedBy, view.needsReview], [true, 'bank 10-600 ••••333', 'public', true]);
  const flagged = await h.call('paymentsList', { payoutChanged: true }, biz);
  assert.deepEqual(flagged.items.map((i: any) => i.id), [p.id]);
  assert.equal(flagged.items[0].payoutChanged, true);
  const [mail] = (await outbox(biz.businessId)).filter((m) => m.channel === 'email' && m.to === biz.email);
  assert.match((mail.message as any).subject, /^לבדוק לפני תשלום/);
  assert.match((mail.message as any).text, /הדרך הנפוצה ביותר להונות עסקים/);
  assert.match((mail.message as any).text, /••••333.*••••777/);
  // The same payout as known is not flagged.
  const same = await fileStandingRequest(s, {
    slug: 'fraud-target', submissionId: newSubmissionId(), name: 'Real', phone: '052-333-4444', amount: '10', description: 'x',
    payout: { method: 'bank', bankCode: '10', bankBranch: '600', bankAccount: '111222333', bankBeneficiary: 'Real Supplier Ltd' },
  });
  assert.equal((await stored(same.payment.id, biz.businessId)).payoutChanged, false);
});

test('standing link: a business that opts in (publicFilingsReady) gets filings ready at once', async () => {
  const biz = await h.newBusiness('Trusting');
  await h.call('setMyPublicLink', { slug: 'trusting' }, biz);
  await h.call('updateBusiness', { publicFilingsReady: true }, biz);
  const res = await fileStandingRequest(s, { slug: 'trusting', submissionId: newSubmissionId(), name: 'A', email: 'a@example.com', amount: '10', description: 'x', payout: BANK });
  const p = await stored(res.payment.id, biz.businessId);
  assert.deepEqual([p.status, p.needsReview, p.filedBy], ['ready', false, 'public']);
});

test('an invoice PDF that is a decompression bomb is refused as fileUnreadable, in both page languages; nothing is stored', async () => {
  const { token, id } = await newPayment();
  const files = await fileCount();
  const invoice = { fileName: 'bomb.pdf', contentType: 'application/pdf', bytes: await objectStreamBombPdf(700) };
  assert.deepEqual(await problemsOf(attachInvoice(s, { token, submissionId: newSubmissionId(), invoice })), { invoice: 'fileUnreadable' });
  assert.deepEqual(await problemsOf(submitPayout(s, { token, submissionId: newSubmissionId(), payout: BANK, invoice })), { invoice: 'fileUnreadable' });
  assert.equal(await fileCount(), files);
  assert.deepEqual((await stored(id)).invoices, []);
  assert.match(messages('en').problems.fileUnreadable, /expands/);
  assert.match(messages('he').problems.fileUnreadable, /[\u0590-\u05FF]/);
});

const ABROAD: PayoutFields = { method: 'bank', bankCountry: 'de', iban: 'de89 3704 0044 0532 0130 00', swift: 'deutdeff', bankName: 'Deutsche Bank', bankBeneficiary: 'Sam Smith', beneficiaryAddress: 'Hauptstr. 1, Berlin' };

test('a payout abroad (USD, EUR): IBAN checksum and country, SWIFT/BIC of that country, bank, beneficiary and address required', async () => {
  const usd = await newPayment({ currency: 'USD', supplierPhone: undefined, supplierEmail: 'sam@example.com' });
  const refused = (payout: PayoutFields) => problemsOf(submitPayout(s, { token: usd.token, submissionId: newSubmissionId(), payout }));
  assert.deepEqual(await refused({ method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'x' }), {
    bankCountry: 'required', iban: 'required', swift: 'required', bankName: 'required', beneficiaryAddress: 'required',
  }, 'Israeli bank fields do not pay abroad');
  assert.deepEqual(await refused({ ...ABROAD, iban: 'DE89370400440532013001' }), { iban: 'iban' }, 'a wrong check digit');
  assert.deepEqual(await refused({ ...ABROAD, iban: 'GB82WEST12345698765432' }), { iban: 'ibanCountry' }, 'a valid IBAN of another country');
  assert.deepEqual(await refused({ ...ABROAD, swift: 'NWBKGB2L' }), { swift: 'swiftCountry' });
  assert.deepEqual(await refused({ ...ABROAD, swift: 'DEUT' }), { swift: 'swift' });
  assert.deepEqual(await refused({ ...ABROAD, bankCountry: 'XX' }), { bankCountry: 'country' });
  assert.equal((await stored(usd.id)).status, 'sent', 'nothing stored while refused');

  await submitPayout(s, { token: usd.token, submissionId: newSubmissionId(), payout: ABROAD });
  const p = await stored(usd.id);
  assert.equal(p.status, 'ready');
  assert.deepEqual(p.payout, { method: 'bank', iban: 'DE89370400440532013000', swift: 'DEUTDEFF', bankName: 'Deutsche Bank', bankCountry: 'DE', bankBeneficiary: 'Sam Smith', beneficiaryAddress: 'Hauptstr. 1, Berlin' });

  // A country without IBAN (the US) takes its account number instead.
  const us = await newPayment({ currency: 'USD', supplierPhone: undefined, supplierEmail: 'us@example.com' });
  await submitPayout(s, { token: us.token, submissionId: newSubmissionId(), payout: { ...ABROAD, bankCountry: 'US', iban: '000123456789', swift: 'CHASUS33', bankName: 'Chase' } });
  assert.equal((await stored(us.id)).payout?.foreignAccount, '000123456789');
});

test('a supplier who gives other payout details than last time is flagged on their own link too, IBAN and SWIFT included', async () => {
  const first = await newPayment({ currency: 'EUR', supplierPhone: undefined, supplierEmail: 'eu@example.com' });
  await submitPayout(s, { token: first.token, submissionId: newSubmissionId(), payout: ABROAD });
  assert.equal((await stored(first.id)).payoutChanged, false, 'nothing known before');
  const same = await newPayment({ currency: 'EUR', supplierPhone: undefined, supplierEmail: 'eu@example.com' });
  await submitPayout(s, { token: same.token, submissionId: newSubmissionId(), payout: { ...ABROAD, swift: 'DEUTDEFFXXX' } });
  assert.equal((await stored(same.id)).payoutChanged, false, 'the same bank written with its XXX branch');
  const moved = await newPayment({ currency: 'EUR', supplierPhone: undefined, supplierEmail: 'eu@example.com' });
  await submitPayout(s, { token: moved.token, submissionId: newSubmissionId(), payout: { ...ABROAD, iban: 'DE02120300000000202051', swift: 'BYLADEM1001' } });
  const p = await stored(moved.id);
  assert.equal(p.payoutChanged, true);
  assert.deepEqual(p.payoutChange, { previous: 'SWIFT DEUTDEFFXXX ••••000', filed: 'SWIFT BYLADEM1001 ••••051' });
});

test('"other bank" takes a typed 1–2 digit code; a merged bank code is refused naming where it went', async () => {
  const a = await newPayment();
  assert.deepEqual(await problemsOf(submitPayout(s, { token: a.token, submissionId: newSubmissionId(), payout: { ...BANK, bankCode: 'other', bankCodeOther: '13' } })), { bankCodeOther: 'bankMerged' });
  assert.deepEqual(await problemsOf(submitPayout(s, { token: a.token, submissionId: newSubmissionId(), payout: { ...BANK, bankCode: '13' } })), { bankCode: 'bankMerged' });
  assert.deepEqual(await problemsOf(submitPayout(s, { token: a.token, submissionId: newSubmissionId(), payout: { ...BANK, bankCode: 'other', bankCodeOther: '' } })), { bankCodeOther: 'required' });
  await submitPayout(s, { token: a.token, submissionId: newSubmissionId(), payout: { ...BANK, bankCode: 'other', bankCodeOther: '3', bankAccount: '1234567' } });
  assert.equal((await stored(a.id)).payout?.bankCode, '03', 'esh bank (03) typed as 3');
});
