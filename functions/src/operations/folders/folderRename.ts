import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { BASE_BUILT_INS, folderName, folderOutput, foldersPath, folderView, missingBuiltInFolders, readFolder, siblingWithName, type FolderRecord } from '../../domain/invoices/folders.ts';

export default defineOperation({
  name: 'folderRename',
  group: 'folders',
  summary: 'Rename a folder',
  description:
    'Rename a folder; built-in folders may be renamed too (their role stays). Names are unique among siblings (ignoring case).',
  flags: { idempotent: true },
  input: input({ id: id().describe('Folder id (from foldersList).'), name: folderName().describe('New name, 1-100 characters, unique among its siblings.') }),
  output: folderOutput,
  async run({ id: folderId, name }, ctx) {
    const { businessId } = ctx.caller;
    const now = iso(ctx.clock.now());
    return ctx.store.runTransaction(async (tx) => {
      const unstored = await missingBuiltInFolders(tx, businessId, BASE_BUILT_INS, now);
      const found = await readFolder(tx, businessId, folderId, now);
      if (!found) throw notFound(`folder ${folderId}`, 'folder');
      const { parentId } = found.folder;
      const siblings = (await tx.query({ collection: foldersPath(businessId), where: [['parentId', '==', parentId]] })).map((d) => d.data as unknown as FolderRecord);
      const clash = siblingWithName(parentId ? siblings : [...siblings, ...unstored], parentId, name, folderId);
      if (clash) throw new ApiError('already-exists', `name: a folder named "${clash.name}" already exists there (${clash.id})`, { reason: 'folderNameTaken', params: { name: clash.name } });
      const renamed: FolderRecord = { ...found.folder, name };
      for (const f of unstored) tx.set(foldersPath(businessId, f.id), { ...(f.id === folderId ? renamed : f) });
      if (found.stored) tx.update(foldersPath(businessId, folderId), { name });
      return folderView(renamed);
    });
  },
  activity: (_input, result) => ({ params: { name: result.name }, targetIds: [result.id], summary: `renamed folder to "${result.name}"` }),
});
