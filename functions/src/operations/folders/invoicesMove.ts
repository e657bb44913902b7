import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { notFound } from '../../core/errors.ts';
import { invoicesPath } from '../../domain/invoices/invoices.ts';
import { readAll } from '../../domain/invoices/invoiceDocs.ts';
import { foldersPath, readFolder } from '../../domain/invoices/folders.ts';
import { bulkDocIds, refuseRepeats } from '../../domain/invoices/bulkInvoices.ts';

export default defineOperation({
  name: 'invoicesMove',
  group: 'folders',
  summary: 'Move many invoices to a folder by hand, all or none',
  description: 'File invoices into one folder by hand, as invoiceSetFolder does for one; an unknown id moves nothing. Rules never move them again.',
  flags: { idempotent: true },
  input: input({ docIds: bulkDocIds(), folderId: id().describe('Destination folder id (foldersList).') }),
  output: z.object({ folderId: z.string(), folderName: z.string(), moved: z.int() }),
  async run({ docIds, folderId }, ctx) {
    const { businessId } = ctx.caller;
    refuseRepeats(docIds);
    const now = iso(ctx.clock.now());
    // A built-in folder is stored first, so that the move itself fits one commit.
    const folderName = await ctx.store.runTransaction(async (tx) => {
      const target = await readFolder(tx, businessId, folderId, now);
      if (!target) throw notFound(`folderId: folder ${folderId}`, 'folder');
      if (!target.stored) tx.set(foldersPath(businessId, folderId), { ...target.folder });
      return target.folder.name;
    });
    await ctx.store.runTransaction(async (tx) => {
      if (!(await tx.get(foldersPath(businessId, folderId)))) throw notFound(`folderId: folder ${folderId}`, 'folder');
      const docs = await readAll(tx, businessId, docIds);
      for (const d of docs) {
        if (d.folderId === folderId && d.folderBy === 'hand') continue; // a retry rewrites nothing
        tx.update(invoicesPath(businessId, d.docId), { folderId, folderBy: 'hand', folderRuleId: null, updatedAt: now });
      }
    });
    return { folderId, folderName, moved: docIds.length };
  },
  activity: (input, result) => ({
    params: { count: result.moved, folder: result.folderName },
    targetIds: [...input.docIds, result.folderId],
    summary: `filed ${result.moved} invoice(s) into ${result.folderId} by hand`,
  }),
});
