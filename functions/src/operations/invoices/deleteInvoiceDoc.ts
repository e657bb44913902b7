import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { invoicesPath } from '../../domain/invoices/invoices.ts';
import { softwarePath, suggestionsPath } from '../../domain/invoices/issuers.ts';
import { invoiceHashPath } from '../../domain/invoices/duplicates.ts';
import { getInvoice } from '../../domain/invoices/invoiceDocs.ts';

export default defineOperation({
  name: 'deleteInvoiceDoc',
  group: 'invoices',
  summary: 'Delete an invoice document and its file',
  description:
    'Delete an invoice document and its file (the download link stops working). A supplier attachment keeps its file, which belongs to the payment.',
  flags: { dangerous: true },
  input: input({ docId: id().describe('Invoice document id (from uploadInvoiceDoc or invoicesList).') }),
  output: z.object({ docId: z.string(), fileName: z.string(), deleted: z.literal(true), fileRemoved: z.boolean() }),
  async run({ docId }, ctx) {
    const { businessId } = ctx.caller;
    const doc = await ctx.store.runTransaction(async (tx) => {
      const cur = await getInvoice(tx, businessId, docId);
      const marker = await tx.get(invoiceHashPath(businessId, cur.sha256));
      const records = await Promise.all([
        cur.suggestionId ? tx.get(suggestionsPath(businessId, cur.suggestionId)) : null,
        cur.softwareId ? tx.get(softwarePath(businessId, cur.softwareId)) : null,
      ]);
      tx.delete(invoicesPath(businessId, docId));
      if (marker?.data.docId === docId) tx.delete(marker.path);
      for (const rec of records) {
        if (rec) tx.update(rec.path, { docIds: ((rec.data.docIds as string[]) ?? []).filter((x) => x !== docId) });
      }
      return cur;
    });
    const fileRemoved = doc.source !== 'supplier';
    if (fileRemoved) await ctx.files.remove(businessId, doc.fileId);
    return { docId, fileName: doc.fileName, deleted: true as const, fileRemoved };
  },
  activity: (input, result) => ({ params: { fileName: result.fileName, fileRemoved: result.fileRemoved }, targetIds: [input.docId], summary: `deleted invoice ${result.fileName}${result.fileRemoved ? ' and its file' : ' (the file stays on its payment)'}` }),
});
