import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { accFoldersPath, accFolderOutput, accTree, accView, assertUniqueName, checkParent, readAccFolders, requireFolder } from '../../domain/accountant/accountant.ts';

export default defineOperation({
  name: 'accFolderMove',
  group: 'accountant',
  summary: 'Move an accountant folder, with everything below it',
  description: 'The new parent may not be the folder itself or one below it.',
  flags: { idempotent: true },
  input: input({
    id: id().describe('Accountant folder to move.'),
    parentId: z.string().max(128).describe('New parent folder id; "" for the top level.'),
  }),
  output: accFolderOutput,
  async run({ id: folderId, parentId }, ctx) {
    const { businessId } = ctx.caller;
    const folders = await ctx.store.runTransaction(async (tx) => {
      const all = await readAccFolders(tx, businessId);
      const f = requireFolder(all, folderId);
      checkParent(all, parentId, f.id);
      assertUniqueName(all, parentId, f.name, f.id);
      tx.update(accFoldersPath(businessId, f.id), { parentId, updatedAt: iso(ctx.clock.now()) });
      return all.map((x) => (x.id === f.id ? { ...x, parentId } : x));
    });
    return accView(accTree(folders).find((e) => e.folder.id === folderId)!);
  },
  activity: (input) => ({ params: { toTop: !input.parentId }, targetIds: [input.id], summary: `moved an accountant folder ${input.parentId ? `under ${input.parentId}` : 'to the top level'}` }),
});
