import { z } from 'zod';
import { id } from '../../core/schema.ts';
import { invalid } from '../../core/errors.ts';

/** Invoices per bulk move or assignment: a move is one commit, and Firestore's commit holds 500 writes. */
export const BULK_IDS_MAX = 500;

export const bulkDocIds = () => z.array(id()).min(1).max(BULK_IDS_MAX).describe(`Invoice document ids (invoicesList), at most ${BULK_IDS_MAX}, each once.`);

/** A repeated id is refused rather than folded: the caller's count would not match the result's. */
export function refuseRepeats(ids: string[], field = 'docIds'): void {
  const seen = new Set<string>();
  for (const x of ids) {
    if (seen.has(x)) throw invalid(field, `${x} is listed more than once`, { reason: 'listedTwice', params: { value: x } });
    seen.add(x);
  }
}

export const chunks = <T>(xs: T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
