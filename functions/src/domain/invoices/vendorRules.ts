import { z } from 'zod';
import { invalid } from '../../core/errors.ts';
import type { DocStore, Query, Transaction } from '../../ports/store.ts';
import { CATEGORIES, isCategory } from './categories.ts';
import { keyId } from '../contacts.ts';
import { invoicesPath, type InvoiceDoc } from './invoices.ts';
import { effectivePayMark, type PayRule } from './payMarks.ts';
import { VENDOR_KEY_PATTERN } from './vendorKeys.ts';

/**
 * Per-issuer rules (spec §2) at `businesses/{b}/vendorRules/{encoded vendorKey}`: a pay rule and a
 * category rule in one record; forgetting both deletes it.
 */
export interface VendorRuleRecord {
  key: string;
  name: string;
  payRule: PayRule | '';
  /** A category id, or "" for no category rule. */
  category: string;
  updatedAt: string;
}

export const vendorRulesPath = (businessId: string, key = '') => `businesses/${businessId}/vendorRules${key ? '/' + keyId(key) : ''}`;

export const VENDOR_KEY_MAX = 300;

/** A vendorKey input: trimmed, `vat:`, `email:`, `phone:` or `name:` and something after it. */
export function checkVendorKey(raw: string, field = 'key'): string {
  const key = raw.trim();
  if (!VENDOR_KEY_PATTERN.test(key)) throw invalid(field, `"${raw}" is not an issuer key: expected vat:, email:, phone: or name: followed by a value`, { reason: 'badFormat', params: { format: 'vat:|email:|phone:|name:' } });
  return key;
}

/** A category input: a known id, or "" (uncategorized / forget). */
export function checkCategory(raw: string, field = 'category'): string {
  const id = raw.trim();
  if (id !== '' && !isCategory(id)) throw invalid(field, `"${raw}" is not a category id; categoriesList lists them`, { reason: 'notAFolderRuleCategory', params: { value: raw } });
  return id;
}

/** The name a rule shows: the one given, else the one it had, else the key's value. */
const ruleName = (key: string, given: string | undefined, existing: VendorRuleRecord | null) =>
  given?.trim() || existing?.name || key.replace(/^\w+:/, '');

/** Pure: the record after a change, or null when both rules are now forgotten (delete it). */
export function changeRule(
  existing: VendorRuleRecord | null,
  key: string,
  change: { payRule?: PayRule | ''; category?: string; name?: string },
  at: string,
): VendorRuleRecord | null {
  const next: VendorRuleRecord = {
    key,
    name: ruleName(key, change.name, existing),
    payRule: change.payRule ?? existing?.payRule ?? '',
    category: change.category ?? existing?.category ?? '',
    updatedAt: at,
  };
  return next.payRule === '' && next.category === '' ? null : next;
}

export const payRuleRowSchema = z.object({ key: z.string(), name: z.string(), rule: z.enum(['card', 'not_card']), updatedAt: z.string() });
export const categoryRuleRowSchema = z.object({ key: z.string(), name: z.string(), category: z.string(), label: z.string(), updatedAt: z.string() });

/** What the rule-setting operations return. */
export const ruleResultSchema = z.object({
  key: z.string(),
  name: z.string(),
  payRule: z.enum(['', 'card', 'not_card']),
  category: z.string(),
  /** The issuer's documents brought in line with the change. */
  updated: z.int(),
  /** Documents of the issuer not reached in this call; call again with the same input to continue. */
  remaining: z.int(),
});

export const categoryLabel = (id: string) => CATEGORIES.find((c) => c.id === id)?.label ?? '';

// ---------------------------------------------------------------------------------------------
// Bringing existing documents in line with a changed rule, in bounded transactional batches.

/** Documents one transaction updates; well inside the 500-write commit. */
export const RULE_BATCH = 200;
/** Documents one call updates at most; a repeated call continues (every sweep below converges). */
export const RULE_BUDGET = 1000;

export interface Propagation {
  updated: number;
  /** Documents of the issuer the call did not reach; the same call again continues. */
  remaining: number;
}

/** Reads what it needs for `docs` (before any write), then writes their updates. */
export type SweepChange = (tx: Transaction, docs: { path: string; doc: InvoiceDoc }[]) => Promise<void>;

/**
 * Applies `change` to what each query finds, batch by batch, each batch in one transaction.
 * Every change must take the document out of the query's result: repeating then converges and
 * nothing is visited twice.
 */
export async function sweep(store: DocStore, queries: Query[], change: SweepChange, budget: number): Promise<Propagation> {
  let updated = 0;
  for (const q of queries) {
    while (updated < budget) {
      const take = Math.min(RULE_BATCH, budget - updated);
      const n = await store.runTransaction(async (tx) => {
        const docs = await tx.query({ ...q, limit: take });
        if (docs.length) await change(tx, docs.map((d) => ({ path: d.path, doc: d.data as unknown as InvoiceDoc })));
        return docs.length;
      });
      updated += n;
      if (n < take) break;
    }
  }
  if (updated < budget) return { updated, remaining: 0 };
  let remaining = 0;
  for (const q of queries) remaining += await store.count(q);
  return { updated, remaining };
}

const chunks = <T>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/** Recomputes effectivePayMark on the issuer's documents that carry another pay rule. */
export function applyPayRule(store: DocStore, businessId: string, key: string, rule: PayRule | '', at: string, budget = RULE_BUDGET): Promise<Propagation> {
  const others = (['card', 'not_card', ''] as const).filter((r) => r !== rule);
  const q: Query = { collection: invoicesPath(businessId), where: [['vendorKey', '==', key], ['payRule', 'in', others]] };
  return sweep(
    store,
    [q],
    async (tx, docs) => {
      for (const { path, doc } of docs) {
        tx.update(path, { payRule: rule, effectivePayMark: effectivePayMark({ payMark: doc.payMark ?? '', paymentMark: doc.paymentMark, payRule: rule, aiPayMethod: doc.reading?.payMethod }), updatedAt: at });
      }
    },
    budget,
  );
}

/**
 * The issuer's documents a category rule change reaches. A new rule outranks the AI and older
 * rules, never a hand choice: unclassified, AI-classified and otherwise rule-classified documents.
 * Forgetting ("") reaches the documents the rule classified.
 */
export function categoryRuleQueries(businessId: string, key: string, category: string): Query[] {
  const collection = invoicesPath(businessId);
  if (category === '') return [{ collection, where: [['vendorKey', '==', key], ['categoryBy', '==', 'rule']] }];
  const otherIds = CATEGORIES.map((c) => c.id as string).filter((id) => id !== category);
  return [
    { collection, where: [['vendorKey', '==', key], ['categoryBy', '==', null]] },
    { collection, where: [['vendorKey', '==', key], ['categoryBy', '==', 'ai']] },
    ...chunks(otherIds, 30).map((ids): Query => ({ collection, where: [['vendorKey', '==', key], ['categoryBy', '==', 'rule'], ['category', 'in', ids]] })),
  ];
}
