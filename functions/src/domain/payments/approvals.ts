import { z } from 'zod';
export type { ApprovalBasis, ApprovalMark, ApprovalPolicy, Rejection } from './approvalTypes.ts';
import { ApiError, precondition } from '../../core/errors.ts';
import type { Reader } from '../../ports/store.ts';
import { businessPath } from '../business.ts';
import type { ApprovalBasis, ApprovalMark, ApprovalPolicy, Rejection } from './approvalTypes.ts';
import { paymentAmounts } from '../vat.ts';
import { isForeignPayout, isUnpaid, payoutDiffers, UNPAID, type Payout, type PaymentRecord, type PaymentStatus } from './payments.ts';
import type { SupplierRecord } from './suppliers.ts';

/**
 * Approvals of payments (issue 36): a business's policy says which payments need an admin's approval
 * before they are paid, and an approval holds only for what was approved. Each approval keeps the
 * facts it was given on (its basis); when the amount, currency, VAT, payout or supplier changes after
 * it, the approval no longer counts and the payment is pending again (the payout-fraud rule). Nothing
 * has to reset approvals when a payment changes: the state is computed from the record when read.
 */


export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = { thresholdAgorot: null, approvalsRequired: 1 };

export const approvalPolicySchema = z.object({
  thresholdAgorot: z.int().nullable(),
  approvalsRequired: z.int().min(1).max(2),
});




export const APPROVAL_STATES = ['not_required', 'pending', 'approved', 'rejected'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];
/** What changed since an approval that no longer counts. */
export const STALE_REASONS = ['amount', 'currency', 'vat', 'payout', 'supplier'] as const;
export type StaleReason = (typeof STALE_REASONS)[number];

export const approvalViewSchema = z.object({
  required: z.boolean().describe('Whether this payment needs approval before it is paid: the policy threshold, changed payout details, or a public filing.'),
  state: z.enum(APPROVAL_STATES).describe('not_required, pending (approval required and not granted), approved or rejected.'),
  needed: z.int().describe("How many distinct admins must approve (the policy's approvalsRequired)."),
  approvals: z
    .array(
      z.object({
        by: z.string().describe("The approving admin's user id."),
        byEmail: z.string().describe("The approving admin's email."),
        at: z.string().describe('When (ISO 8601).'),
        note: z.string().nullable().describe("The admin's note, or null."),
      }),
    )
    .describe('Approvals that still count (given on the payment as it is now).'),
  rejection: z
    .object({
      by: z.string().describe("The rejecting admin's user id."),
      byEmail: z.string().describe("The rejecting admin's email."),
      at: z.string().describe('When (ISO 8601).'),
      reason: z.string().describe('Why it was rejected.'),
    })
    .nullable()
    .describe('The last rejection, until an approval replaces it; null when none.'),
  staleBecause: z.array(z.enum(STALE_REASONS)).describe('What changed after an approval that therefore no longer counts (empty when none went stale).'),
}).describe("The payment's approval under the business's policy (approvalPolicyGet).");
export type ApprovalView = z.output<typeof approvalViewSchema>;

/** Where a payout sends money, normalised: the same account written differently is the same target. */
export function payoutTarget(p: Payout | null | undefined): string {
  if (!p) return '';
  const up = (s: string | undefined) => (s ?? '').replace(/[\s-]/g, '').toUpperCase();
  if (p.method === 'bit') return `bit:${up(p.bitPhone)}`;
  if (isForeignPayout(p)) return `swift:${up(p.iban)}:${up(p.foreignAccount)}:${up(p.swift).replace(/^(.{8})XXX$/, '$1')}`;
  const n = (s: string | undefined) => up(s).replace(/^0+/, '');
  return `bank:${n(p.bankCode)}:${n(p.bankBranch)}:${n(p.bankAccount)}`;
}

export function approvalBasis(p: PaymentRecord): ApprovalBasis {
  return {
    totalAgorot: paymentAmounts(p).totalAgorot,
    amountAgorot: p.amountAgorot,
    currency: p.currency,
    vatIncluded: p.vatIncluded,
    noVat: p.noVat === true,
    payout: payoutTarget(p.payout),
    payoutChanged: p.payoutChanged === true,
    supplierKey: p.supplierKey,
  };
}

/** What differs between an approval's basis and the payment now. */
export function staleReasons(was: ApprovalBasis, now: ApprovalBasis): StaleReason[] {
  const out: StaleReason[] = [];
  if (was.amountAgorot !== now.amountAgorot || was.totalAgorot !== now.totalAgorot) out.push('amount');
  if (was.currency !== now.currency) out.push('currency');
  if (was.vatIncluded !== now.vatIncluded || was.noVat !== now.noVat) out.push('vat');
  if (was.payout !== now.payout || was.payoutChanged !== now.payoutChanged) out.push('payout');
  if (was.supplierKey !== now.supplierKey) out.push('supplier');
  return out;
}

/** Whether the policy, or the payment itself (changed payout details, an anonymous filing), asks for approval. */
export function approvalRequired(p: PaymentRecord, policy: ApprovalPolicy): boolean {
  if (p.payoutChanged === true || p.needsReview === true) return true;
  return policy.thresholdAgorot !== null && paymentAmounts(p).totalAgorot >= policy.thresholdAgorot;
}

/** The payment's approval as the views show it. */
export function approvalOf(p: PaymentRecord, policy: ApprovalPolicy): ApprovalView {
  const basis = approvalBasis(p);
  const marks = p.approvals ?? [];
  const counting = marks.filter((m) => staleReasons(m.basis, basis).length === 0);
  const staleBecause = [...new Set(marks.flatMap((m) => staleReasons(m.basis, basis)))].sort((a, b) => STALE_REASONS.indexOf(a) - STALE_REASONS.indexOf(b));
  // A paid or canceled payment is past approving: one paid before the policy was set is not pending now.
  const required = isUnpaid(p.status) && approvalRequired(p, policy);
  const needed = policy.approvalsRequired;
  const rejection = p.rejection ?? null;
  let state: ApprovalState;
  if (rejection) state = 'rejected';
  else if (new Set(counting.map((m) => m.by)).size >= needed) state = 'approved';
  else state = required ? 'pending' : 'not_required';
  return {
    required,
    state,
    needed,
    approvals: counting.map((m) => ({ by: m.by, byEmail: m.byEmail, at: m.at, note: m.note ?? null })),
    rejection: rejection ? { by: rejection.by, byEmail: rejection.byEmail, at: rejection.at, reason: rejection.reason } : null,
    staleBecause,
  };
}

/** Whether the payment may be paid as far as approval goes: not required, or approved (a rejection stops it either way). */
export function approvalAllowsPaying(view: ApprovalView): boolean {
  return view.state === 'approved' || view.state === 'not_required';
}

/** Refuses paying a payment whose approval is required and not granted (markPaid, payRunCreate, payRunMarkPaid). */
export function assertApproved(p: PaymentRecord, policy: ApprovalPolicy): void {
  const view = approvalOf(p, policy);
  if (approvalAllowsPaying(view)) return;
  const why = view.state === 'rejected' ? `it was rejected: ${view.rejection!.reason}` : view.staleBecause.length ? `an approval no longer counts (changed: ${view.staleBecause.join(', ')})` : `it needs ${view.needed} approval${view.needed > 1 ? 's' : ''} by an admin (paymentApprove)`;
  throw precondition(`approval: this payment cannot be paid yet: ${why}`, { reason: view.state === 'rejected' ? 'approvalRejected' : 'approvalMissing', params: { state: view.state } });
}

/** The business's approval policy (the default, off, when never set). */
export async function approvalPolicyOf(reader: Reader, businessId: string): Promise<ApprovalPolicy> {
  const doc = await reader.get(businessPath(businessId));
  const stored = (doc?.data as { approvalPolicy?: ApprovalPolicy } | undefined)?.approvalPolicy;
  return stored ? { thresholdAgorot: stored.thresholdAgorot ?? null, approvalsRequired: stored.approvalsRequired === 2 ? 2 : 1 } : DEFAULT_APPROVAL_POLICY;
}

/** The payouts the business typed on the supplier's card (bank, Bit), when the card holds any. */
export function cardPayouts(r: SupplierRecord | null): Payout[] {
  const c = r?.card ?? {};
  const out: Payout[] = [];
  if (c.bankAccount) out.push({ method: 'bank', bankCode: c.bankCode ?? '', bankBranch: c.bankBranch ?? '', bankAccount: c.bankAccount });
  if (c.bitPhone) out.push({ method: 'bit', bitPhone: c.bitPhone });
  return out;
}

/**
 * Who may not approve (issue 36 §1): the member who created the payment, and the member who typed the payout
 * details it pays into on the supplier's behalf (saveSupplierContact's bank or Bit fields): when the payment's
 * payout is the card's, or when the supplier gave none yet and the card holds details that member typed.
 * With the policy off these rules do not apply: what needs approval then (changed payout details, a public
 * filing) needs an admin to confirm it, and a business with one admin must still be able to pay (docs/decisions.md).
 */
export function assertMayApprove(p: PaymentRecord, supplier: SupplierRecord | null, userId: string, policy: ApprovalPolicy): void {
  if (policy.thresholdAgorot === null) return;
  if (p.createdBy && p.createdBy === userId) {
    throw new ApiError('permission-denied', 'self-approval rule: nobody approves a payment they created themselves; another admin must approve it', { reason: 'selfApproval' });
  }
  if (supplier?.payoutTypedBy !== userId) return;
  const typed = cardPayouts(supplier);
  if (typed.length === 0) return;
  if (!p.payout || typed.some((t) => !payoutDiffers(t, p.payout!))) {
    throw new ApiError('permission-denied', "typed-payout rule: nobody approves a payment into payout details they typed on the supplier's card themselves; another admin must approve it", { reason: 'payoutTypedByYou' });
  }
}

/** Whether a payment that turned ready needs approvers told: approval required and not granted (and not rejected). */
export const awaitsApproval = (p: PaymentRecord, policy: ApprovalPolicy) => approvalOf(p, policy).state === 'pending';

/** Approving and rejecting concern unpaid payments only (as assertAllowed words it for the other actions). */
export function assertUnpaidFor(action: 'approve' | 'reject', status: PaymentStatus): void {
  if (isUnpaid(status)) return;
  throw precondition(`cannot ${action} a payment whose status is ${status}; allowed from ${UNPAID.join(', ')}`, { reason: 'paymentStatusNotAllowed', params: { status, allowed: [...UNPAID] } });
}
