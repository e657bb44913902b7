import type { Currency } from '../money.ts';

/**
 * The records of approvals (issue 36), apart from their rules (approvals.ts), so that the payment and business
 * records can name them without importing the rules, which read those records.
 */

export interface ApprovalPolicy {
  /** null: off (the default); 0: every payment; otherwise payments whose total (VAT included) is at or above it, in the payment's minor units. */
  thresholdAgorot: number | null;
  /** Distinct admins whose approval a payment needs. */
  approvalsRequired: 1 | 2;
}

/** The facts an approval was given on. */
export interface ApprovalBasis {
  totalAgorot: number;
  amountAgorot: number;
  currency: Currency;
  vatIncluded: boolean;
  noVat: boolean;
  /** Where the money goes (payoutTarget), '' before the supplier gave details. */
  payout: string;
  payoutChanged: boolean;
  supplierKey: string;
}

export interface ApprovalMark {
  /** The approving admin's user id and email. */
  by: string;
  byEmail: string;
  at: string;
  note?: string;
  basis: ApprovalBasis;
}

export interface Rejection {
  by: string;
  byEmail: string;
  at: string;
  reason: string;
}
