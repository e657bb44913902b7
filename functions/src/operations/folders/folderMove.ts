import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { ApiError, invalid, notFound, precondition } from '../../core/errors.ts';
import {
  BASE_BUILT_INS,
  folderOutput,
  foldersPath,
  folderView,
  isBuiltInId,
  missingBuiltInFolders,
  readFolder,
  siblingWithName,
  wouldCycle,
  type FolderRecord,
} from '../../domain/invoices/folders.ts';

export default defineOperation({
  name: 'folderMove',
  group: 'folders',
  summary: 'Move a folder, with everything below it',
  description:
    'Move a custom folder, with everything below it, under another folder or to the top level (parentId ""). A move into its own subtree is refused.',
  flags: { idempotent: true },
  input: input({ id: id().describe('Folder to move, with everything below it.'), parentId: z.string().max(128).describe('New parent folder id; "" for the top level. Not the folder itself or one below it.') }),
  output: folderOutput,
  async run({ id: folderId, parentId }, ctx) {
    const { businessId } = ctx.caller;
    const now = iso(ctx.clock.now());
    return ctx.store.runTransaction(async (tx) => {
      const unstored = await missingBuiltInFolders(tx, businessId, BASE_BUILT_INS, now);
      const found = await readFolder(tx, businessId, folderId, now);
      if (!found) throw notFound(`folder ${folderId}`, 'folder');
      if (isBuiltInId(folderId)) throw precondition(`id: ${folderId} is a built-in folder; built-in folders stay at the top level`, { reason: 'builtInFolder' });
      if (parentId) {
        if (!(await readFolder(tx, businessId, parentId, now))) throw notFound(`parentId: folder ${parentId}`, 'folder');
        // Walk up from the new parent; reading each ancestor also makes a concurrent opposite move conflict.
        const parents = new Map<string, string>();
        for (let at = parentId; at && at !== folderId && !parents.has(at); ) {
          const doc = await tx.get(foldersPath(businessId, at));
          if (!doc) break;
          parents.set(at, String(doc.data.parentId ?? ''));
          at = parents.get(at)!;
        }
        if (wouldCycle(folderId, parentId, (x) => parents.get(x))) {
          throw invalid('parentId', parentId === folderId ? 'a folder cannot be its own parent' : `folder ${parentId} is inside folder ${folderId}; moving there would make a cycle`, { reason: 'folderCycle' });
        }
      }
      const siblings = (await tx.query({ collection: foldersPath(businessId), where: [['parentId', '==', parentId]] })).map((d) => d.data as unknown as FolderRecord);
      const clash = siblingWithName(parentId ? siblings : [...siblings, ...unstored], parentId, found.folder.name, folderId);
      if (clash) throw new ApiError('already-exists', `parentId: a folder named "${clash.name}" already exists there (${clash.id}); rename one first`, { reason: 'folderNameTaken', params: { name: clash.name } });
      for (const f of unstored) tx.set(foldersPath(businessId, f.id), { ...f });
      if (found.folder.parentId !== parentId) tx.update(foldersPath(businessId, folderId), { parentId });
      return folderView({ ...found.folder, parentId });
    });
  },
  activity: (input, result) => ({ params: { name: result.name, toTop: !input.parentId }, targetIds: [result.id, ...(input.parentId ? [input.parentId] : [])], summary: `moved folder "${result.name}" ${input.parentId ? `into ${input.parentId}` : 'to the top level'}` }),
});
