import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, LIMITS, text } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { notFound } from '../../core/errors.ts';
import { normalizeSupplierKey } from '../../domain/contacts.ts';
import { suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { softwarePath, suggestionsPath } from '../../domain/invoices/issuers.ts';
import { placementOf, planRefile, readAll, writeBuiltIns } from '../../domain/invoices/invoiceDocs.ts';
import type { Transaction } from '../../ports/store.ts';
import { bulkDocIds, chunks, refuseRepeats } from '../../domain/invoices/bulkInvoices.ts';

/** Invoices per commit: each costs at most four writes (itself, its suggestion, its software item, a built-in folder). */
const BATCH = 120;

export default defineOperation({
  name: 'invoicesAssignSupplier',
  group: 'invoices',
  summary: 'Assign many invoices to one supplier by hand',
  description:
    'Assign invoices to an existing supplier by hand, as updateInvoiceDoc does for one. An unknown id assigns nothing.',
  flags: { idempotent: true },
  input: input({ docIds: bulkDocIds(), supplierKey: text(LIMITS.email).describe("The supplier's phone or email (suppliersList).") }),
  output: z.object({ supplierKey: z.string(), supplierName: z.string(), assigned: z.int() }),
  async run({ docIds, supplierKey }, ctx) {
    const { businessId } = ctx.caller;
    refuseRepeats(docIds);
    const key = normalizeSupplierKey(supplierKey);
    const at = iso(ctx.clock.now());
    const readSupplier = async (tx: Transaction) => {
      const s = await tx.get(suppliersPath(businessId, key));
      if (!s) throw notFound(`supplierKey: supplier ${key}`, 'supplier');
      return (s.data as unknown as SupplierRecord).name ?? '';
    };
    // Everything is checked first; the writes then go in commits of BATCH, each repeatable by a retry.
    const name = await ctx.store.runTransaction(async (tx) => {
      const n = await readSupplier(tx);
      await readAll(tx, businessId, docIds);
      return n;
    });
    for (const ids of chunks(docIds, BATCH)) {
      await ctx.store.runTransaction(async (tx) => {
        await readSupplier(tx);
        const found = await tx.getAll(ids.map((d) => invoicesPath(businessId, d)));
        // One deleted since the check is simply gone.
        const docs = found.flatMap((d) => (d ? [d.data as unknown as InvoiceDoc] : []));
        const fields = { supplierKey: key, supplierName: name, supplierBy: 'hand' as const, suggestionId: null, softwareId: null };
        // Folder rules can name a supplier.
        const plan = await planRefile(tx, businessId, docs.map((d) => ({ ...d, ...fields })), at);
        const holders = [...new Set(docs.flatMap((d) => [d.suggestionId ? suggestionsPath(businessId, d.suggestionId) : '', d.softwareId ? softwarePath(businessId, d.softwareId) : '']).filter(Boolean))];
        const records = await tx.getAll(holders);
        const leaving = new Set(docs.map((d) => d.docId));
        writeBuiltIns(tx, businessId, plan);
        for (const r of records) if (r) tx.update(r.path, { docIds: ((r.data.docIds as string[]) ?? []).filter((x) => !leaving.has(x)), updatedAt: at });
        for (const d of docs) tx.update(invoicesPath(businessId, d.docId), { ...fields, ...placementOf(plan, d.docId), updatedAt: at });
      });
    }
    return { supplierKey: key, supplierName: name, assigned: docIds.length };
  },
  activity: (input, result) => ({
    params: { count: result.assigned, supplier: result.supplierName },
    targetIds: [...input.docIds, result.supplierKey],
    summary: `assigned ${result.assigned} invoice(s) to supplier ${result.supplierKey} by hand`,
  }),
});
