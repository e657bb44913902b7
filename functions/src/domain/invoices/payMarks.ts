import type { AiPayMethod, PayMark } from './invoices.ts';

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

export interface PayMarkInputs {
  /** The explicit mark; "" lets the rule and the AI decide. */
  payMark: PayMark | '';
  payRule: PayRule | '';
  aiPayMethod: AiPayMethod | null | undefined;
}

/**
 * The mark in force, in one place so lists, rules and edits agree:
 * explicit mark > pay rule (card → paid_card; not_card → the AI's non-card mark, else unpaid)
 * > the AI's pay method > unpaid.
 */
export function effectivePayMark({ payMark, payRule, aiPayMethod }: PayMarkInputs): PayMark {
  if (payMark) return payMark;
  if (payRule === 'card') return 'paid_card';
  if (payRule === 'not_card') return nonCardMark(aiPayMethod) ?? 'unpaid';
  return aiPayMark(aiPayMethod) ?? 'unpaid';
}

/**
 * The explicit mark invoiceBulkPayRule writes. `card` → paid_card. `not_card` keeps a non-card
 * mark already in force (a hand-set transfer stays a transfer); a card mark becomes the AI's
 * non-card mark, or unpaid.
 */
export function bulkPayMark(rule: PayRule, current: PayMark, aiPayMethod: AiPayMethod | null | undefined): PayMark {
  if (rule === 'card') return 'paid_card';
  return current === 'paid_card' ? (nonCardMark(aiPayMethod) ?? 'unpaid') : current;
}
