import type { AiPayMethod, InvoiceDoc, PayMark } from './invoices.ts';
import type { PaymentRecord } from '../payments/payments.ts';

/** Per-issuer pay rules (spec §2): `card` or `not_card`; "" = no rule. */
export const PAY_RULES = ['card', 'not_card'] as const;
export type PayRule = (typeof PAY_RULES)[number];

/** The mark the AI's pay method stands for; null when the AI saw no method. */
export function aiPayMark(method: AiPayMethod | null | undefined): PayMark | null {
  switch (method) {
    case 'card':
      return 'paid_card';
    case 'paypal':
      return 'paid_paypal';
    case 'bank_transfer':
      return 'paid_transfer';
    case 'cash':
    case 'check':
    case 'other':
      return 'paid_other';
    default:
      return null;
  }
}

/** The AI's mark with a card reading ignored: what `not_card` keeps. */
const nonCardMark = (method: AiPayMethod | null | undefined): PayMark | null => {
  const m = aiPayMark(method);
  return m === 'paid_card' ? null : m;
};

/**
 * What a paid payment's record says of how it was paid: bank → paid_transfer, Bit → paid_other.
 * null when it says nothing: not paid (yet, or reverted), or paid with no payout details given.
 */
export function paymentPayMark(p: Pick<PaymentRecord, 'status' | 'payout'>): PayMark | null {
  if (p.status !== 'paid' || !p.payout) return null;
  return p.payout.method === 'bank' ? 'paid_transfer' : 'paid_other';
}

export interface PayMarkInputs {
  /** The explicit mark; "" lets the rest decide. */
  payMark: PayMark | '';
  /** paymentPayMark of the payment the invoice is attached to; null/undefined when none says. */
  paymentMark: PayMark | null | undefined;
  payRule: PayRule | '';
  aiPayMethod: AiPayMethod | null | undefined;
}

/** Who decided the mark in force: the owner's mark, the payment's record, the issuer's pay rule, the AI, or nobody (unpaid). */
export type PayMarkBy = 'hand' | 'payment' | 'rule' | 'ai' | 'none';

/**
 * The mark in force, in one place so lists, rules, edits, the spend report and the accountant's ZIP agree:
 * explicit mark > the paid payment's method > pay rule (card → paid_card; not_card → the AI's non-card mark,
 * else unpaid) > the AI's pay method > unpaid.
 */
export function payMarkInForce({ payMark, paymentMark, payRule, aiPayMethod }: PayMarkInputs): { mark: PayMark; by: PayMarkBy } {
  if (payMark) return { mark: payMark, by: 'hand' };
  if (paymentMark) return { mark: paymentMark, by: 'payment' };
  if (payRule === 'card') return { mark: 'paid_card', by: 'rule' };
  if (payRule === 'not_card') return { mark: nonCardMark(aiPayMethod) ?? 'unpaid', by: 'rule' };
  const ai = aiPayMark(aiPayMethod);
  return ai ? { mark: ai, by: 'ai' } : { mark: 'unpaid', by: 'none' };
}

export const effectivePayMark = (inputs: PayMarkInputs): PayMark => payMarkInForce(inputs).mark;

/** payMarkInForce of a stored document (tolerant of fields older documents lack). */
export const docPayMark = (d: Pick<InvoiceDoc, 'payMark' | 'payRule' | 'paymentMark' | 'reading'>) =>
  payMarkInForce({ payMark: d.payMark ?? '', paymentMark: d.paymentMark, payRule: d.payRule ?? '', aiPayMethod: d.reading?.payMethod });

/** The marks in words, as the spend report and the accountant's index.csv show them. */
export const PAY_MARK_LABELS: Record<PayMark, string> = {
  unpaid: 'לא שולם',
  paid_card: 'כרטיס אשראי',
  paid_paypal: 'PayPal',
  paid_transfer: 'העברה בנקאית',
  paid_other: 'שולם אחרת',
  not_payable: 'לא לתשלום',
};

/**
 * The explicit mark invoiceBulkPayRule writes. `card` → paid_card. `not_card` keeps a non-card
 * mark already in force (a hand-set transfer stays a transfer); a card mark becomes the AI's
 * non-card mark, or unpaid.
 */
export function bulkPayMark(rule: PayRule, current: PayMark, aiPayMethod: AiPayMethod | null | undefined): PayMark {
  if (rule === 'card') return 'paid_card';
  return current === 'paid_card' ? (nonCardMark(aiPayMethod) ?? 'unpaid') : current;
}
