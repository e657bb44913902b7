import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approvalBasis,
  approvalOf,
  approvalRequired,
  assertApproved,
  assertMayApprove,
  assertUnpaidFor,
  payoutTarget,
  type ApprovalMark,
  type ApprovalPolicy,
} from '../../../functions/src/domain/payments/approvals.ts';
import { approverNoticeId } from '../../../functions/src/domain/payments/approvalNotices.ts';
import type { PaymentRecord } from '../../../functions/src/domain/payments/payments.ts';
import type { SupplierRecord } from '../../../functions/src/domain/payments/suppliers.ts';

/** The approval rules as pure functions: what is required, what still counts, who may approve. */

const payment = (over: Partial<PaymentRecord> = {}): PaymentRecord =>
  ({
    id: 'p1',
    businessId: 'b1',
    status: 'ready',
    supplierName: 'Dana',
    supplierPhone: '+972501234567',
    supplierEmail: null,
    supplierKey: '+972501234567',
    amountAgorot: 10_000,
    openAmount: false,
    currency: 'ILS',
    vatIncluded: false,
    noVat: false,
    invoiceRequired: false,
    payMethods: [],
    description: 'x',
    channel: 'link',
    linkToken: 't',
    invoices: [],
    proof: null,
    payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678901' },
    itaVerdict: null,
    invoiceNumber: '',
    search: [],
    submissions: [],
    viaPublicLink: false,
    createdBy: 'owner',
    createdAt: '2026-11-28T00:00:00.000Z',
    createdAtMs: 0,
    updatedAt: '2026-11-28T00:00:00.000Z',
    sentAt: null,
    supplierSubmittedAt: null,
    readyAt: null,
    paidAt: null,
    canceledAt: null,
    ...over,
  }) as PaymentRecord;

const mark = (p: PaymentRecord, by: string): ApprovalMark => ({ by, byEmail: `${by}@example.com`, at: '2026-11-28T10:00:00.000Z', basis: approvalBasis(p) });
const OFF: ApprovalPolicy = { thresholdAgorot: null, approvalsRequired: 1 };
const at = (thresholdAgorot: number, approvalsRequired: 1 | 2 = 1): ApprovalPolicy => ({ thresholdAgorot, approvalsRequired });

test('required: off by default; 0 is every payment; the threshold is at-or-above the total with VAT', () => {
  const p = payment(); // 100.00 + 18% VAT = 118.00
  assert.equal(approvalRequired(p, OFF), false);
  assert.equal(approvalRequired(payment({ amountAgorot: 1 }), at(0)), true);
  assert.equal(approvalRequired(p, at(11_800)), true);
  assert.equal(approvalRequired(p, at(11_801)), false);
  assert.equal(approvalRequired(payment({ vatIncluded: true }), at(10_001)), false, 'VAT included: the amount is the total');
  assert.equal(approvalRequired(payment({ noVat: true }), at(10_001)), false);
  assert.equal(approvalRequired(payment({ payoutChanged: true }), OFF), true, 'changed payout details always need approval');
  assert.equal(approvalRequired(payment({ needsReview: true }), OFF), true, 'so does a public filing under review');
});

test('state: pending until enough distinct admins approved; one admin twice is one approval', () => {
  const p = payment();
  assert.equal(approvalOf(p, at(0)).state, 'pending');
  assert.equal(approvalOf(payment({ approvals: [mark(p, 'a')] }), at(0)).state, 'approved');
  assert.equal(approvalOf(payment({ approvals: [mark(p, 'a')] }), at(0, 2)).state, 'pending');
  assert.equal(approvalOf(payment({ approvals: [mark(p, 'a'), mark(p, 'a')] }), at(0, 2)).state, 'pending');
  assert.equal(approvalOf(payment({ approvals: [mark(p, 'a'), mark(p, 'b')] }), at(0, 2)).state, 'approved');
  assert.equal(approvalOf(p, OFF).state, 'not_required');
  for (const status of ['paid', 'canceled'] as const) {
    const past = approvalOf(payment({ status }), at(0));
    assert.deepEqual([past.required, past.state], [false, 'not_required'], `${status}: past approving, never pending`);
  }
  assert.equal(approvalOf(payment({ status: 'paid', approvals: [mark(p, 'a')] }), at(0)).state, 'approved', 'paid after its approval');
  const rejected = payment({ rejection: { by: 'a', byEmail: 'a@example.com', at: 'x', reason: 'no' } });
  assert.equal(approvalOf(rejected, OFF).state, 'rejected', 'a rejection shows even where approval is not required');
  assert.throws(() => assertApproved(rejected, OFF), (e: any) => e.code === 'failed-precondition' && e.details.reason === 'approvalRejected');
  assert.throws(() => assertApproved(p, at(0)), (e: any) => e.code === 'failed-precondition' && /^approval: /.test(e.message));
  assert.doesNotThrow(() => assertApproved(p, OFF));
});

test('an approval goes stale when the amount, currency, VAT, payout or supplier changes, and names what changed', () => {
  const p = payment();
  const approved = (over: Partial<PaymentRecord>) => approvalOf(payment({ approvals: [mark(p, 'a')], ...over }), at(0));
  assert.equal(approved({}).state, 'approved');
  assert.equal(approved({ description: 'other words' }).state, 'approved', 'the description is not money');
  const cases: [Partial<PaymentRecord>, string[]][] = [
    [{ amountAgorot: 10_001 }, ['amount']],
    [{ currency: 'USD' }, ['currency']],
    [{ vatIncluded: true }, ['amount', 'vat']],
    [{ payout: { method: 'bank', bankCode: '12', bankBranch: '345', bankAccount: '678902' } }, ['payout']],
    [{ payout: { method: 'bit', bitPhone: '+972501234567' } }, ['payout']],
    [{ payoutChanged: true }, ['payout']],
    [{ supplierKey: 'other@example.com' }, ['supplier']],
  ];
  for (const [over, why] of cases) {
    const v = approved(over);
    assert.deepEqual([v.state, v.staleBecause, v.approvals.length], ['pending', why, 0], JSON.stringify(over));
  }
  // The same account written with leading zeros or hyphens is the same target.
  assert.equal(approved({ payout: { method: 'bank', bankCode: '12', bankBranch: '0345', bankAccount: '00-678-901' } }).state, 'approved');
  assert.equal(payoutTarget({ method: 'bank', iban: 'DE89 3704 0044 0532 0130 00', swift: 'COBADEFFXXX' }), payoutTarget({ method: 'bank', iban: 'DE89370400440532013000', swift: 'COBADEFF' }));
});

test('who may approve under a policy: not the creator, not who typed the payout the payment pays into', () => {
  const card = (typedBy: string, c: SupplierRecord['card']): SupplierRecord =>
    ({ key: 'k', name: 'Dana', phone: null, email: null, kind: 'supplier', manual: false, paymentCount: 1, lastPaymentAt: null, card: c, supplierSide: null, payoutTypedBy: typedBy, createdAt: '', updatedAt: '' }) as SupplierRecord;
  const p = payment();
  assert.throws(() => assertMayApprove(p, null, 'owner', at(0)), (e: any) => e.code === 'permission-denied' && e.details.reason === 'selfApproval' && /self-approval rule/.test(e.message));
  assert.doesNotThrow(() => assertMayApprove(p, null, 'admin2', at(0)));
  assert.doesNotThrow(() => assertMayApprove(payment({ createdBy: undefined }), null, 'owner', at(0)), 'a public filing has no creator');
  const same = card('admin2', { bankCode: '12', bankBranch: '345', bankAccount: '678901' });
  assert.throws(() => assertMayApprove(p, same, 'admin2', at(0)), (e: any) => e.code === 'permission-denied' && e.details.reason === 'payoutTypedByYou');
  assert.doesNotThrow(() => assertMayApprove(p, same, 'admin3', at(0)), 'another admin did not type it');
  assert.doesNotThrow(() => assertMayApprove(p, card('admin2', { bankCode: '10', bankBranch: '800', bankAccount: '555012' }), 'admin2', at(0)), 'the payment pays elsewhere');
  assert.throws(() => assertMayApprove(payment({ payout: null }), same, 'admin2', at(0)), (e: any) => e.details.reason === 'payoutTypedByYou', 'no payout yet: the card typed by the caller is where it would go');
  assert.doesNotThrow(() => assertMayApprove(payment({ payout: null }), card('admin2', { notes: 'x' }), 'admin2', at(0)), 'a card without payout fields');
  // With the policy off, an approval confirms changed details or a filing: the sole admin who created the payment may give it.
  assert.doesNotThrow(() => assertMayApprove(p, same, 'owner', OFF));
  assert.doesNotThrow(() => assertMayApprove(p, same, 'admin2', OFF));
  const bit = card('admin2', { bitPhone: '+972501234567' });
  assert.throws(() => assertMayApprove(payment({ payout: { method: 'bit', bitPhone: '+972501234567' } }), bit, 'admin2', at(0)), (e: any) => e.details.reason === 'payoutTypedByYou');
});

test('only unpaid payments are approved or rejected', () => {
  for (const s of ['sent', 'awaiting_invoice', 'ready'] as const) assert.doesNotThrow(() => assertUnpaidFor('approve', s));
  for (const s of ['paid', 'canceled'] as const) {
    assert.throws(() => assertUnpaidFor('reject', s), (e: any) => e.code === 'failed-precondition' && e.details.reason === 'paymentStatusNotAllowed' && e.details.params.status === s);
  }
});

test("the approvers' email ids are deterministic per payment, admin and facts", () => {
  const p = payment();
  assert.equal(approverNoticeId(p, 'a'), approverNoticeId(payment(), 'a'));
  assert.notEqual(approverNoticeId(p, 'a'), approverNoticeId(p, 'b'));
  assert.notEqual(approverNoticeId(p, 'a'), approverNoticeId(payment({ amountAgorot: 10_001 }), 'a'), 'new facts are news');
  assert.equal(approverNoticeId(p, 'a'), approverNoticeId(payment({ readyAt: 'later', updatedAt: 'later' }), 'a'), 'timestamps are not facts');
});
