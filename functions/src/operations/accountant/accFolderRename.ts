import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { accFolderName, accFoldersPath, accFolderOutput, accTree, accView, assertUniqueName, readAccFolders, requireFolder } from '../../domain/accountant/accountant.ts';

export default defineOperation({
  name: 'accFolderRename',
  group: 'accountant',
  summary: 'Rename an accountant folder',
  description:
    "Changes only the name: the folder keeps its place, its source rule and the folders below it. The name must be unique among the folder's siblings (compared ignoring case, as Hebrew collation does), else already-exists naming the folder that has it. The new name shows in the next ZIP's paths.",
  flags: { idempotent: true },
  input: input({ id: id().describe('Accountant folder id (accountantFoldersList).'), name: accFolderName().describe('New name, unique among its siblings.') }),
  output: accFolderOutput,
  async run({ id: folderId, name }, ctx) {
    const { businessId } = ctx.caller;
    const folders = await ctx.store.runTransaction(async (tx) => {
      const all = await readAccFolders(tx, businessId);
      const f = requireFolder(all, folderId);
      assertUniqueName(all, f.parentId, name, f.id);
      tx.update(accFoldersPath(businessId, f.id), { name, updatedAt: iso(ctx.clock.now()) });
      return all.map((x) => (x.id === f.id ? { ...x, name } : x));
    });
    return accView(accTree(folders).find((e) => e.folder.id === folderId)!);
  },
  activity: (input) => ({ params: { name: input.name }, targetIds: [input.id], summary: `renamed accountant folder to ${input.name}` }),
});
