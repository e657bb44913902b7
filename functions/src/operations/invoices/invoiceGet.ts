import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { getInvoice, invoiceViewSchema, viewWithUrl } from '../../domain/invoices/invoiceDocs.ts';

export default defineOperation({
  name: 'invoiceGet',
  group: 'invoices',
  summary: 'One invoice document with its AI reading and download link',
  description:
    'One invoice document in full: the AI reading, duplicates, mailbox origin, folder, category, pay mark, supplier, and a download URL.',
  flags: { readOnly: true },
  input: input({ docId: id().describe('Invoice document id (from uploadInvoiceDoc or invoicesList).') }),
  output: invoiceViewSchema,
  async run({ docId }, ctx) {
    return viewWithUrl(ctx.files, ctx.store, await getInvoice(ctx.store, ctx.caller.businessId, docId));
  },
});
