import type { DocStore, Transaction } from '../../ports/store.ts';
import { notFound, precondition, invalid } from '../../core/errors.ts';
import { invoicesPath } from '../invoices/invoices.ts';
import { changeRule, vendorRulesPath, type VendorRuleRecord } from '../invoices/vendorRules.ts';
import { paymentsPath } from './payments.ts';
import { CARD_FIELDS, suppliersPath, type SupplierCard, type SupplierRecord } from './suppliers.ts';
import { supplierAliasesPath, type SupplierAlias } from './supplierAliases.ts';

/** A supplier record with the keys merged into it: their contacts find it (suppliersList's q). */
export type MergedSupplier = SupplierRecord & { aliases?: string[] };

/** Writes per transaction while moving: under Firestore's 500, with room for the reads. */
export const MERGE_CHUNK = 400;

export interface MergeResult {
  from: string;
  into: string;
  name: string;
  payments: number;
  invoices: number;
  /** The call found the merge already done and changed nothing. */
  alreadyMerged: boolean;
}

/** The issuer key (vendorKeys.ts) an invoice from this contact carries when it has no VAT id. */
const vendorKeyOfSupplier = (key: string) => (key.includes('@') ? `email:${key}` : `phone:${key}`);

/**
 * Pure: `into` after taking `from` in. Into's values win; its empty fields (name, contacts, card fields, payout,
 * language) are filled from `from`; counts add up; `from` and its own aliases become aliases of `into`.
 */
export function mergedRecord(into: MergedSupplier, from: MergedSupplier, at: string): MergedSupplier {
  const card: Partial<SupplierCard> = { ...into.card };
  for (const f of CARD_FIELDS) if (!card[f] && from.card?.[f]) card[f] = from.card[f];
  const last = [into.lastPaymentAt, from.lastPaymentAt].filter((x): x is string => !!x).sort().at(-1) ?? null;
  const aliases = [...new Set([...(into.aliases ?? []), from.key, ...(from.aliases ?? [])])].filter((k) => k !== into.key);
  return {
    ...into,
    name: into.name || from.name,
    phone: into.phone ?? from.phone ?? null,
    email: into.email ?? from.email ?? null,
    manual: into.manual && from.manual,
    paymentCount: (into.paymentCount ?? 0) + (from.paymentCount ?? 0),
    lastPaymentAt: last,
    card,
    supplierSide: into.supplierSide ?? from.supplierSide ?? null,
    ...(into.lang ?? from.lang ? { lang: into.lang ?? from.lang } : {}),
    aliases,
    updatedAt: at,
  };
}

/**
 * Moves one chunk of `collection`'s documents of supplier `from` to `into`, in one transaction; the number moved
 * (0: none left). Each chunk commits on its own, so an interrupted merge resumes where it stopped.
 */
async function moveChunk(store: DocStore, collection: string, from: string, into: string, extra: Record<string, unknown>, at: string): Promise<number> {
  return store.runTransaction(async (tx) => {
    const docs = await tx.query({ collection, where: [['supplierKey', '==', from]], limit: MERGE_CHUNK });
    for (const d of docs) tx.update(d.path, { supplierKey: into, ...extra, updatedAt: at });
    return docs.length;
  });
}

async function moveAll(store: DocStore, collection: string, from: string, into: string, extra: Record<string, unknown>, at: string): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await moveChunk(store, collection, from, into, extra, at);
    total += n;
    if (n < MERGE_CHUNK) return total;
  }
}

/**
 * supplierMerge: `from` becomes an alias of `into`. Three steps, each safe to repeat: (1) the alias is written
 * (`moving`), so new payments to from's contact already land on `into`; (2) payments and invoices move in chunks;
 * (3) one transaction merges the records and vendor rules, deletes `from` and marks the alias `done`.
 * A repeat after the end finds the alias done and moves whatever a racing write left behind.
 */
export async function mergeSuppliers(store: DocStore, businessId: string, from: string, into: string, at: string): Promise<MergeResult> {
  if (from === into) throw invalid('into', 'a supplier cannot be merged into itself', { reason: 'mergeIntoSelf' });
  const fromPath = suppliersPath(businessId, from);
  const intoPath = suppliersPath(businessId, into);
  const aliasPath = supplierAliasesPath(businessId, from);

  const start = await store.runTransaction(async (tx) => {
    const [fromDoc, intoDoc, aliasDoc] = await tx.getAll([fromPath, intoPath, aliasPath]);
    const alias = (aliasDoc?.data as unknown as SupplierAlias | undefined) ?? null;
    if (alias && alias.into !== into) throw precondition(`from: supplier ${from} was already merged into ${alias.into}`, { reason: 'alreadyMerged', params: { into: alias.into } });
    if (!fromDoc && !alias) throw notFound(`from: supplier ${from}`, 'supplier');
    if (!intoDoc) throw notFound(`into: supplier ${into}`, 'supplier');
    const intoAlias = await tx.get(supplierAliasesPath(businessId, into));
    if (intoAlias) throw precondition(`into: supplier ${into} is being merged into ${String(intoAlias.data.into)}`, { reason: 'alreadyMerged', params: { into: String(intoAlias.data.into) } });
    const done = alias?.state === 'done';
    if (!alias) tx.set(aliasPath, { from, into, state: 'moving', at } satisfies SupplierAlias);
    return { done, name: String(intoDoc.data.name ?? '') };
  });

  const name = start.name;
  const payments = await moveAll(store, paymentsPath(businessId), from, into, {}, at);
  const invoices = await moveAll(store, invoicesPath(businessId), from, into, { supplierName: name }, at);

  // Suppliers merged into `from` before now point at `into` (no chains to follow).
  for (;;) {
    const n = await store.runTransaction(async (tx) => {
      const docs = await tx.query({ collection: supplierAliasesPath(businessId), where: [['into', '==', from]], limit: MERGE_CHUNK });
      for (const d of docs) tx.update(d.path, { into, at });
      return docs.length;
    });
    if (n < MERGE_CHUNK) break;
  }

  if (!start.done) {
    await store.runTransaction(async (tx) => {
      const fromRule = vendorRulesPath(businessId, vendorKeyOfSupplier(from));
      const intoRule = vendorRulesPath(businessId, vendorKeyOfSupplier(into));
      const [fromDoc, intoDoc, fromRuleDoc, intoRuleDoc] = await tx.getAll([fromPath, intoPath, fromRule, intoRule]);
      if (!intoDoc) throw notFound(`into: supplier ${into}`, 'supplier');
      if (fromDoc) {
        tx.set(intoPath, { ...mergedRecord(intoDoc.data as unknown as SupplierRecord, fromDoc.data as unknown as SupplierRecord, at) });
        tx.delete(fromPath);
      }
      // Rules follow: into's rules stay, the ones it lacks come from `from`. From's record stays too, for
      // invoices whose issuer still reads as from's contact.
      if (fromRuleDoc) {
        const f = fromRuleDoc.data as unknown as VendorRuleRecord;
        const i = (intoRuleDoc?.data as unknown as VendorRuleRecord | undefined) ?? null;
        const next = changeRule(i, vendorKeyOfSupplier(into), { payRule: i?.payRule || f.payRule, category: i?.category || f.category, name: i?.name || name }, at);
        if (next) tx.set(intoRule, { ...next });
      }
      tx.update(aliasPath, { state: 'done', at });
    });
  }
  return { from, into, name, payments, invoices, alreadyMerged: start.done && payments === 0 && invoices === 0 };
}
