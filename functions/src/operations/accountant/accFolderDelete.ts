import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { accFoldersPath, accSubtree, readAccFolders, requireFolder } from '../../domain/accountant/accountant.ts';

export default defineOperation({
  name: 'accFolderDelete',
  group: 'accountant',
  summary: 'Delete an accountant folder and everything below it',
  description: 'Only the tree changes: no invoice, statement or file is deleted (these folders hold none).',
  flags: { dangerous: true },
  input: input({ id: id().describe('Accountant folder to delete, with every folder below it.') }),
  output: z.object({ deletedIds: z.array(z.string()) }),
  async run({ id: folderId }, ctx) {
    const { businessId } = ctx.caller;
    return ctx.store.runTransaction(async (tx) => {
      const all = await readAccFolders(tx, businessId);
      requireFolder(all, folderId);
      const ids = accSubtree(all, folderId);
      for (const x of ids) tx.delete(accFoldersPath(businessId, x));
      return { deletedIds: ids };
    });
  },
  activity: (input, result) => ({ params: { count: result.deletedIds.length }, targetIds: result.deletedIds, summary: `deleted ${result.deletedIds.length} accountant folder(s)` }),
});
