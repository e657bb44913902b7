import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { invoicesPath } from '../../domain/invoices/invoices.ts';
import { foldersPath, readFolder } from '../../domain/invoices/folders.ts';

const optionalId = () => z.string().max(128).default('');

export default defineOperation({
  name: 'invoiceSetFolder',
  group: 'folders',
  summary: 'Move an invoice or a supplier attachment to a folder',
  description:
    'File an invoice into a folder by hand: a business upload or import (docId), or a supplier attachment on a payment (paymentId + fileId). ' +
    'Hand-filed invoices are never moved by rules.',
  flags: { idempotent: true },
  input: input({ folderId: id().describe('Destination folder id (foldersList).'), docId: optionalId().describe('A business upload to move; or send paymentId + fileId for a supplier attachment.'), paymentId: optionalId().describe('Payment of the supplier attachment to move (with fileId).'), fileId: optionalId().describe('The supplier attachment to move (with paymentId).') }),
  output: z.object({ docId: z.string(), folderId: z.string(), folderBy: z.literal('hand'), source: z.string() }),
  async run({ folderId, docId, paymentId, fileId }, ctx) {
    const { businessId } = ctx.caller;
    if (docId && (paymentId || fileId)) throw invalid('docId', 'send either docId, or paymentId with fileId, not both', { reason: 'notBoth', params: { other: 'paymentId' } });
    if (!docId) {
      if (!paymentId && !fileId) throw invalid('docId', 'required, unless paymentId and fileId name a supplier attachment', { reason: 'required' });
      if (!fileId) throw invalid('fileId', 'required with paymentId', { reason: 'requiredWith', params: { other: 'paymentId' } });
      if (!paymentId) throw invalid('paymentId', 'required with fileId', { reason: 'requiredWith', params: { other: 'fileId' } });
    }
    const now = iso(ctx.clock.now());
    return ctx.store.runTransaction(async (tx) => {
      const target = await readFolder(tx, businessId, folderId, now);
      if (!target) throw notFound(`folderId: folder ${folderId}`, 'folder');
      let path: string;
      let source: string;
      if (docId) {
        const doc = await tx.get(invoicesPath(businessId, docId));
        if (!doc) throw notFound(`invoice ${docId}`, 'invoice');
        [path, source] = [doc.path, String(doc.data.source)];
      } else {
        const [doc] = await tx.query({
          collection: invoicesPath(businessId),
          where: [['source', '==', 'supplier'], ['paymentId', '==', paymentId], ['fileId', '==', fileId]],
          limit: 1,
        });
        if (!doc) throw notFound(`supplier attachment (paymentId ${paymentId}, fileId ${fileId})`, 'file');
        [path, source] = [doc.path, 'supplier'];
      }
      if (!target.stored) tx.set(foldersPath(businessId, folderId), { ...target.folder });
      tx.update(path, { folderId, folderBy: 'hand', folderRuleId: null, updatedAt: now });
      return { docId: path.slice(path.lastIndexOf('/') + 1), folderId, folderBy: 'hand' as const, source };
    });
  },
  activity: (_input, result) => ({ targetIds: [result.docId, result.folderId], summary: `filed ${result.source} invoice ${result.docId} into ${result.folderId} by hand` }),
});
