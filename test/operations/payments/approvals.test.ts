import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../../engines.ts';
import { post } from '../../http.ts';
import { connectMcp } from '../../surfaces/mcp/client.ts';
import { parseMail } from '../../fakes/smtp.ts';
import type { TestUser } from '../../harness.ts';
import { fileStandingRequest, newSubmissionId } from '../../../functions/src/domain/payments/supplierSubmission.ts';
import { createPayment, deliver, outbox, paymentsEnv, stored, tokenOf, type PaymentsEnv } from './helpers.ts';

/**
 * Approvals (issue 36 §1), on SQLite and on Firestore: the policy, who may approve, approvals going stale when
 * the supplier files other bank details on the supplier page or the amount changes, rejection, public filings under
 * review, the list's filter, the approvers' email, and another business reaching nothing; through HTTP and MCP too.
 */

/** The supplier page's form, posted as a browser posts it (multipart) through the HTTP handler. */
async function postPayoutForm(env: PaymentsEnv, link: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ submissionId: newSubmissionId(), action: 'payout', ...fields })) form.append(k, v);
  const req = new Request('http://x/', { method: 'POST', body: form });
  const res = await env.h.http({ method: 'POST', path: new URL(link).pathname, query: '', headers: { 'content-type': req.headers.get('content-type')! }, body: Buffer.from(await req.arrayBuffer()) });
  assert.equal(res.status, 303, String(res.body));
  return res;
}

const BANK_A = { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901', bankBeneficiary: 'Dana Cohen' };
const BANK_B = { method: 'bank', bankCode: '10', bankBranch: '800', bankAccount: '555012', bankBeneficiary: 'Dana Cohen' };

for (const engine of engines) {
  describe(`approvals on ${engine.name}`, { skip: engine.skip }, () => {
    let env: PaymentsEnv;
    let admin2: TestUser;
    let admin3: TestUser;
    let user: TestUser;
    before(async () => {
      env = await paymentsEnv(await engine.env());
      admin2 = await env.h.addMember('admin');
      admin3 = await env.h.addMember('admin');
      user = await env.h.addMember('user');
    });
    after(() => env.close());

    const call = (op: string, input: unknown, who?: TestUser) => env.h.call(op, input, who);
    const approve = (paymentId: string, who: TestUser, note?: string) => call('paymentApprove', { paymentId, ...(note ? { note } : {}) }, who);
    const setPolicy = (thresholdAgorot: number | null, approvalsRequired?: 1 | 2) => call('approvalPolicySet', { thresholdAgorot, ...(approvalsRequired ? { approvalsRequired } : {}) });
    /** A payment the owner creates, by link (nothing sent), to its own supplier phone so suppliers do not mix. */
    const newPayment = (over: Record<string, unknown> = {}) => createPayment(env.h, { channel: 'link', supplierPhone: `050${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`, ...over });

    test('the policy: off by default, admins only, 0 = every payment, the threshold counts VAT and is at-or-above', async () => {
      assert.deepEqual(await call('approvalPolicyGet', {}), { thresholdAgorot: null, approvalsRequired: 1 });
      const before = await newPayment({ amountAgorot: 10_000, vatIncluded: false });
      assert.deepEqual([before.approval.required, before.approval.state], [false, 'not_required'], 'existing businesses behave as today');
      await assert.rejects(call('approvalPolicySet', { thresholdAgorot: 0 }, user), { code: 'permission-denied' });
      await assert.rejects(call('approvalPolicyGet', {}, user), { code: 'permission-denied' });
      await assert.rejects(call('approvalPolicySet', { thresholdAgorot: -1 }), { code: 'invalid-argument' });
      await assert.rejects(call('approvalPolicySet', { thresholdAgorot: 5, approvalsRequired: 3 }), { code: 'invalid-argument' });

      // 100.00 + 18% VAT = 118.00: a threshold of exactly 11,800 catches it, 11,801 does not.
      const paidBefore = await newPayment({ amountAgorot: 50_000 });
      await call('markPaid', { paymentId: paidBefore.id });
      assert.deepEqual(await setPolicy(11_800), { thresholdAgorot: 11_800, approvalsRequired: 1 });
      const paidView = await call('paymentGet', { paymentId: paidBefore.id });
      assert.deepEqual([paidView.approval.required, paidView.approval.state], [false, 'not_required'], 'paid before the policy: not pending now');
      assert.ok(!(await call('paymentsList', { approval: 'pending', supplierKey: paidBefore.supplierKey })).items.length);
      assert.equal((await call('paymentGet', { paymentId: before.id })).approval.state, 'pending', 'the policy applies to what is unpaid now');
      const net = await newPayment({ amountAgorot: 10_000, vatIncluded: false });
      assert.equal(net.totalAgorot, 11_800);
      assert.deepEqual([net.approval.required, net.approval.state, net.approval.needed], [true, 'pending', 1]);
      await setPolicy(11_801);
      assert.equal((await call('paymentGet', { paymentId: net.id })).approval.state, 'not_required');
      // The same integer in another currency.
      const usd = await newPayment({ amountAgorot: 11_801, currency: 'USD' });
      assert.equal(usd.approval.required, true);
      await setPolicy(0);
      assert.equal((await newPayment({ amountAgorot: 1, vatIncluded: true })).approval.state, 'pending', '0: every payment');
      assert.deepEqual(await call('approvalPolicyGet', {}), { thresholdAgorot: 0, approvalsRequired: 1 });
      await setPolicy(null);
      assert.equal((await call('paymentGet', { paymentId: net.id })).approval.required, false, 'null: off again');
    });

    test('approvalsRequired 2 needs two different admins; the same admin twice changes nothing; a user member is refused', async () => {
      await setPolicy(0, 2);
      const p = await newPayment();
      await assert.rejects(approve(p.id, user), { code: 'permission-denied' });
      const one = await approve(p.id, admin2, 'checked the quote');
      assert.deepEqual([one.approval.state, one.approval.approvals.length, one.approval.needed], ['pending', 1, 2]);
      assert.equal(one.approval.approvals[0].note, 'checked the quote');
      assert.equal(one.approval.approvals[0].byEmail, admin2.email);
      const recordBefore = await stored(env.h, p.id);
      const again = await approve(p.id, admin2);
      assert.deepEqual(again.approval, one.approval, "an admin's second approval is not a second approval");
      assert.deepEqual(await stored(env.h, p.id), recordBefore, 'nothing was written');
      const two = await approve(p.id, admin3);
      assert.deepEqual([two.approval.state, two.approval.approvals.map((a: any) => a.byEmail).sort()], ['approved', [admin2.email, admin3.email].sort()]);
      await setPolicy(null);
    });

    test('self-approval is refused: the payment you created, and payout details you typed on the card', async () => {
      await setPolicy(0);
      const mine = await newPayment();
      await assert.rejects(approve(mine.id, env.h.owner), (e: any) => {
        assert.equal(e.code, 'permission-denied');
        assert.equal(e.details.reason, 'selfApproval');
        assert.match(e.message, /self-approval rule/);
        return true;
      });
      assert.equal((await approve(mine.id, admin2)).approval.state, 'approved', 'another admin may');

      // admin2 types the supplier's bank details on the card; the supplier then files the same ones on the page.
      const p = await newPayment();
      await call('saveSupplierContact', { supplierKey: p.supplierKey, bankCode: BANK_A.bankCode, bankBranch: BANK_A.bankBranch, bankAccount: BANK_A.bankAccount }, admin2);
      await assert.rejects(approve(p.id, admin2), { code: 'permission-denied', details: { reason: 'payoutTypedByYou' } }, 'no payout filed yet, the card holds what admin2 typed');
      await postPayoutForm(env, p.link, BANK_A);
      assert.equal((await stored(env.h, p.id)).payout?.bankAccount, '678901');
      await assert.rejects(approve(p.id, admin2), { code: 'permission-denied', details: { reason: 'payoutTypedByYou' } });
      assert.equal((await approve(p.id, admin3)).approval.state, 'approved');

      // The supplier filing other details than the typed ones: admin2 did not type where this money goes.
      const q = await newPayment({ supplierPhone: p.supplierPhone });
      await postPayoutForm(env, q.link, BANK_B);
      const got = await approve(q.id, admin2);
      assert.equal(got.payoutChanged, true, 'a payout unlike the known one is flagged');
      assert.equal(got.approval.state, 'approved');
      // Editing a non-payout field of the card does not make the editor the typist of the payout.
      await call('saveSupplierContact', { supplierKey: p.supplierKey, notes: 'ok' }, admin3);
      await assert.rejects(approve((await newPayment({ supplierPhone: p.supplierPhone })).id, admin2), { details: { reason: 'payoutTypedByYou' } });
      await setPolicy(null);
    });

    test('an approval goes stale when the supplier files other bank details on the supplier page', async () => {
      await setPolicy(50_000);
      // The supplier is known with bank A (a first payment, paid).
      const first = await newPayment({ amountAgorot: 1_000 });
      await postPayoutForm(env, first.link, BANK_A);
      await call('markPaid', { paymentId: first.id });
      // The next payment is approved before the supplier gives details; then the page brings bank B.
      const p = await newPayment({ amountAgorot: 90_000, supplierPhone: first.supplierPhone });
      assert.equal((await approve(p.id, admin2)).approval.state, 'approved');
      await postPayoutForm(env, p.link, BANK_B);
      const now = await call('paymentGet', { paymentId: p.id });
      assert.equal(now.status, 'ready');
      assert.equal(now.payoutChanged, true);
      assert.deepEqual([now.approval.state, now.approval.staleBecause, now.approval.approvals], ['pending', ['payout'], []]);
      await assert.rejects(call('markPaid', { paymentId: p.id }), { code: 'failed-precondition', message: /^approval: / });
      assert.deepEqual((await call('paymentsList', { approval: 'pending', supplierKey: p.supplierKey })).items.map((i: any) => i.id), [p.id]);
      // Approved again on the new facts, it can be paid.
      const again = await approve(p.id, admin2);
      assert.deepEqual([again.approval.state, again.approval.staleBecause], ['approved', []]);
      assert.equal((await call('markPaid', { paymentId: p.id })).status, 'paid');
      await assert.rejects(approve(p.id, admin3), (e: any) => e.code === 'failed-precondition' && e.details.reason === 'paymentStatusNotAllowed', 'only unpaid payments');

      // With the policy off, changed details still need a confirmation before paying, which the creator may give
      // (a business with one admin must be able to pay).
      await setPolicy(null);
      const third = await newPayment({ amountAgorot: 1_000, supplierPhone: first.supplierPhone });
      await postPayoutForm(env, third.link, BANK_A);
      const flagged = await call('paymentGet', { paymentId: third.id });
      assert.deepEqual([flagged.payoutChanged, flagged.approval.required, flagged.approval.state], [true, true, 'pending']);
      await assert.rejects(call('markPaid', { paymentId: third.id }), { code: 'failed-precondition' });
      assert.equal((await approve(third.id, env.h.owner)).approval.state, 'approved');
      assert.equal((await call('markPaid', { paymentId: third.id })).status, 'paid');
    });

    test('an approval goes stale when updatePaymentSettings changes the amount (and VAT), not when the description changes', async () => {
      await setPolicy(0);
      const p = await newPayment({ amountAgorot: 20_000 });
      await approve(p.id, admin2);
      assert.equal((await call('updatePaymentSettings', { paymentId: p.id, description: 'new words' })).approval.state, 'approved');
      const changed = await call('updatePaymentSettings', { paymentId: p.id, amountAgorot: 20_001 });
      assert.deepEqual([changed.approval.state, changed.approval.staleBecause], ['pending', ['amount']]);
      await approve(p.id, admin2);
      const vat = await call('updatePaymentSettings', { paymentId: p.id, vatIncluded: false });
      assert.deepEqual([vat.approval.state, vat.approval.staleBecause], ['pending', ['amount', 'vat']]);
      await setPolicy(null);
    });

    test('rejected, then approved later; reason required; the list filters by approval', async () => {
      await setPolicy(0);
      const p = await newPayment({ description: 'Rejectable thing' });
      await approve(p.id, admin2);
      await assert.rejects(call('paymentReject', { paymentId: p.id, reason: '' }), { code: 'invalid-argument' });
      await assert.rejects(call('paymentReject', { paymentId: p.id, reason: 'x'.repeat(501) }), { code: 'invalid-argument' });
      await assert.rejects(call('paymentReject', { paymentId: p.id, reason: 'no' }, user), { code: 'permission-denied' });
      const r = await call('paymentReject', { paymentId: p.id, reason: 'The quote was 5,000, not 12,345' }, admin3);
      assert.equal(r.status, 'sent', 'not canceled');
      assert.deepEqual([r.approval.state, r.approval.approvals, r.approval.rejection.reason, r.approval.rejection.byEmail], ['rejected', [], 'The quote was 5,000, not 12,345', admin3.email]);
      const rejected = (await call('paymentsList', { approval: 'rejected', q: 'rejectable' })).items;
      assert.deepEqual(rejected.map((i: any) => [i.id, i.approval.state]), [[p.id, 'rejected']]);
      assert.deepEqual((await call('paymentsList', { approval: 'approved', q: 'rejectable' })).items, []);
      const later = await approve(p.id, admin2);
      assert.deepEqual([later.approval.state, later.approval.rejection], ['approved', null]);
      assert.deepEqual((await call('paymentsList', { approval: 'approved', q: 'rejectable' })).items.map((i: any) => i.id), [p.id]);
      // Activity rows name each approval and rejection.
      const rows = (await call('listActivity', {})).items.filter((a: any) => a.targetIds?.includes(p.id) || a.action === 'paymentReject');
      assert.ok(rows.some((a: any) => a.action === 'paymentReject' && a.params.reason === 'The quote was 5,000, not 12,345'));
      assert.ok(rows.some((a: any) => a.action === 'paymentApprove'));
      await setPolicy(null);
    });

    test('a public filing under review is approved with paymentApprove, which ends the review and makes it ready', async () => {
      const biz = await env.h.newBusiness('Garage');
      const slug = `garage-${engine.name.toLowerCase()}`;
      await call('setMyPublicLink', { slug }, biz);
      const bizAdmin = await env.h.addMember('admin', biz.businessId);
      const filed = await fileStandingRequest(env.h.app.services, { slug, submissionId: newSubmissionId(), name: 'Moshe Levi', phone: '052-111-2222', amount: '800', description: 'Tyres', payout: { method: 'bit', bitPhone: '0521112222' } });
      const id = filed.payment.id;
      const pending = await call('paymentGet', { paymentId: id }, biz);
      assert.deepEqual([pending.status, pending.needsReview, pending.approval.required, pending.approval.state], ['sent', true, true, 'pending']);
      await assert.rejects(call('markPaid', { paymentId: id }, biz), { code: 'failed-precondition' });
      // Nobody created it: the business's owner may approve it.
      const ok = await call('paymentApprove', { paymentId: id }, biz);
      assert.deepEqual([ok.status, ok.needsReview, ok.approval.state], ['ready', false, 'approved']);
      assert.ok(ok.readyAt);
      // Rejecting another filing keeps it under review, not canceled.
      const other = await fileStandingRequest(env.h.app.services, { slug, submissionId: newSubmissionId(), name: 'Spam', phone: '052-333-4444', amount: '90000', description: 'Invoice', payout: BANK_B });
      const rej = await call('paymentReject', { paymentId: other.payment.id, reason: 'Not a supplier of ours' }, bizAdmin);
      assert.deepEqual([rej.status, rej.needsReview, rej.approval.state], ['sent', true, 'rejected']);
    });

    test('the approvers are emailed (Hebrew, each admin, once) when a payment needing approval turns ready', async () => {
      const biz = await env.h.newBusiness('Mail Biz');
      const a2 = await env.h.addMember('admin', biz.businessId);
      await env.h.addMember('user', biz.businessId);
      await call('approvalPolicySet', { thresholdAgorot: 100_000 }, biz);
      const small = await createPayment(env.h, { channel: 'link', amountAgorot: 5_000 }, biz);
      const big = await createPayment(env.h, { channel: 'link', amountAgorot: 200_000, supplierPhone: '0529990000' }, biz);
      await postPayoutForm(env, small.link, BANK_A);
      await postPayoutForm(env, big.link, BANK_A);
      const box = (await outbox(env.h, biz.businessId)).filter((m) => m.reason === 'approvalNeeded');
      assert.deepEqual(box.map((m) => m.to).sort(), [biz.email, a2.email].sort(), 'every admin, not the user, and only for the payment that needs approval');
      assert.ok(box.every((m) => m.ref === big.id));
      const mails = env.smtp.mails.length;
      await deliver(env, { mails: mails + 2 });
      const mine = env.smtp.mails.filter((m) => m.to.includes(a2.email));
      assert.equal(mine.length, 1);
      const mail = await parseMail(mine[0]!.raw);
      assert.match(mail.subject ?? '', /ממתין לאישור/);
      assert.ok(String(mail.text).includes(`https://app.example.com/payments/${big.id}`), 'links the payment page');
      assert.match(String(mail.html), /dir="rtl"/, 'Hebrew, right to left, as the other owner emails');
      assert.match(String(mail.html), new RegExp(`href="https://app.example.com/payments/${big.id}"`));
      assert.match(String(mail.text), /מי שיצר את התשלום/, 'with a policy set, it says who may not approve');
      // The same filing replayed (its submission id) stages nothing more.
      await env.h.app.services.store.update(`businesses/${biz.businessId}/payments/${big.id}`, { status: 'awaiting_invoice' });
      const { approverNotices } = await import('../../../functions/src/domain/payments/approvalNotices.ts');
      const rec = await stored(env.h, big.id, biz.businessId);
      const again = await approverNotices(env.h.config, env.h.app.services.store, { status: 'awaiting_invoice' }, { ...rec, status: 'ready' }, { businessName: 'x', businessNameEn: '', companyId: '', email: null, phone: null });
      assert.deepEqual(again, [], 'the same payment on the same facts: the deterministic ids are already in the outbox');
      assert.equal(tokenOf(big.link).length > 0, true);
    });

    test('the approvers are also emailed when the invoice that completes a payment arrives, and when a standing-link filing starts ready', async () => {
      const biz = await env.h.newBusiness('Invoice Biz');
      await call('approvalPolicySet', { thresholdAgorot: 0 }, biz);
      const p = await createPayment(env.h, { channel: 'link', invoiceRequired: true, supplierPhone: '0528880000' }, biz);
      await postPayoutForm(env, p.link, BANK_A);
      const approvalMails = async () => (await outbox(env.h, biz.businessId)).filter((m) => m.reason === 'approvalNeeded');
      assert.equal((await stored(env.h, p.id, biz.businessId)).status, 'awaiting_invoice');
      assert.deepEqual(await approvalMails(), [], 'not ready yet');
      const form = new FormData();
      form.append('submissionId', newSubmissionId());
      form.append('action', 'invoice');
      form.append('invoice', new Blob([Buffer.from('%PDF-1.4\nlate\n%%EOF\n')], { type: 'application/pdf' }), 'invoice.pdf');
      const req = new Request('http://x/', { method: 'POST', body: form });
      const res = await env.h.http({ method: 'POST', path: new URL(p.link).pathname, query: '', headers: { 'content-type': req.headers.get('content-type')! }, body: Buffer.from(await req.arrayBuffer()) });
      assert.equal(res.status, 303, String(res.body));
      assert.equal((await stored(env.h, p.id, biz.businessId)).status, 'ready');
      assert.deepEqual((await approvalMails()).map((m) => [m.to, m.ref]), [[biz.email, p.id]]);

      // Dropping invoiceRequired on a payment waiting for its invoice makes it ready: the approvers are told too.
      const q = await createPayment(env.h, { channel: 'link', invoiceRequired: true, supplierPhone: '0528880001' }, biz);
      await postPayoutForm(env, q.link, BANK_B);
      assert.equal((await call('updatePaymentSettings', { paymentId: q.id, invoiceRequired: false }, biz)).status, 'ready');
      assert.deepEqual((await approvalMails()).filter((m) => m.ref === q.id).map((m) => m.to), [biz.email]);

      // A business that lets standing-link filings start ready: the filing needs approval under its policy.
      await call('updateBusiness', { publicFilingsReady: true }, biz);
      const slug = `ready-${engine.name.toLowerCase()}`;
      await call('setMyPublicLink', { slug }, biz);
      const filed = await fileStandingRequest(env.h.app.services, { slug, submissionId: newSubmissionId(), name: 'Rina', phone: '052-777-1111', amount: '300', description: 'Cleaning', payout: { method: 'bit', bitPhone: '0527771111' } });
      assert.equal(filed.payment.status, 'ready');
      assert.deepEqual((await approvalMails()).filter((m) => m.ref === filed.payment.id).map((m) => m.to), [biz.email]);
    });

    test('another business reaches nothing: not-found for approve, reject and get', async () => {
      await setPolicy(0);
      const p = await newPayment();
      const other = await env.h.newBusiness('Other');
      for (const op of ['paymentApprove', 'paymentGet']) await assert.rejects(call(op, { paymentId: p.id }, other), { code: 'not-found' }, op);
      await assert.rejects(call('paymentReject', { paymentId: p.id, reason: 'x' }, other), { code: 'not-found' });
      assert.equal((await call('paymentGet', { paymentId: p.id })).approval.state, 'pending', 'unchanged');
      assert.deepEqual(await call('approvalPolicyGet', {}, other), { thresholdAgorot: null, approvalsRequired: 1 }, "each business's own policy");
      await setPolicy(null);
    });

    test('through HTTP and MCP: the policy, a refused self-approval with its reason, an approval', async () => {
      const origin = await env.h.listen();
      const set = await post(origin, '/v1/approvalPolicySet', { thresholdAgorot: 0 }, env.h.owner.apiKey);
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const p = await newPayment();
      const self = await post(origin, '/v1/paymentApprove', { paymentId: p.id }, env.h.owner.apiKey);
      assert.equal(self.status, 403);
      assert.equal(self.body.error.code, 'permission-denied');
      assert.equal(self.body.error.details.reason, 'selfApproval');
      const asUser = await post(origin, '/v1/paymentApprove', { paymentId: p.id }, user.apiKey);
      assert.equal(asUser.status, 403);

      const mcp = await connectMcp(origin, admin2.apiKey, 'approvals-test');
      try {
        const policy = await mcp.call('approvalPolicyGet');
        assert.deepEqual(policy.body, { thresholdAgorot: 0, approvalsRequired: 1 });
        const ok = await mcp.call('paymentApprove', { paymentId: p.id, note: 'via MCP' });
        assert.equal(ok.isError, false, JSON.stringify(ok.body));
        assert.equal(ok.body.approval.state, 'approved');
        const list = await mcp.call('paymentsList', { approval: 'approved', supplierKey: p.supplierKey });
        assert.deepEqual(list.body.items.map((i: any) => i.id), [p.id]);
      } finally {
        await mcp.client.close();
      }
      const ownerMcp = await connectMcp(origin, env.h.owner.apiKey, 'approvals-owner');
      try {
        const q = await newPayment();
        const refused = await ownerMcp.call('paymentApprove', { paymentId: q.id });
        assert.equal(refused.isError, true);
        assert.equal(refused.body.code, 'permission-denied');
        assert.match(refused.body.message, /self-approval rule/);
      } finally {
        await ownerMcp.client.close();
      }
      await setPolicy(null);
    });
  });
}
