import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { ApiError, notFound, precondition } from '../../core/errors.ts';
import {
  BASE_BUILT_INS,
  folderName,
  folderOutput,
  foldersPath,
  folderView,
  MAX_FOLDERS,
  missingBuiltInFolders,
  readFolder,
  siblingWithName,
  type FolderRecord,
} from '../../domain/invoices/folders.ts';

export default defineOperation({
  name: 'folderCreate',
  group: 'folders',
  summary: 'Create an invoice folder',
  description:
    'Create a custom folder, at the top level or inside another folder. Names are unique among siblings (ignoring case).',
  flags: {},
  input: input({ name: folderName().describe('Folder name, 1-100 characters, unique among its siblings.'), parentId: z.string().max(128).default('').describe('Parent folder id; "" (default) for the top level.') }),
  output: folderOutput,
  async run({ name, parentId }, ctx) {
    const { businessId } = ctx.caller;
    const now = iso(ctx.clock.now());
    // A soft cap, checked outside the transaction: a race can pass it by a few, which is harmless.
    if ((await ctx.store.count({ collection: foldersPath(businessId) })) >= MAX_FOLDERS) {
      throw precondition(`a business can have at most ${MAX_FOLDERS} folders; delete some first`, { reason: 'tooManyFolders', params: { max: MAX_FOLDERS } });
    }
    const id = ctx.ids();
    return ctx.store.runTransaction(async (tx) => {
      const unstored = await missingBuiltInFolders(tx, businessId, BASE_BUILT_INS, now);
      if (parentId && !(await readFolder(tx, businessId, parentId, now))) throw notFound(`parentId: folder ${parentId}`, 'folder');
      const siblings = (await tx.query({ collection: foldersPath(businessId), where: [['parentId', '==', parentId]] })).map((d) => d.data as unknown as FolderRecord);
      const clash = siblingWithName(parentId ? siblings : [...siblings, ...unstored], parentId, name);
      if (clash) throw new ApiError('already-exists', `name: a folder named "${clash.name}" already exists there (${clash.id})`, { reason: 'folderNameTaken', params: { name: clash.name } });
      for (const f of unstored) tx.set(foldersPath(businessId, f.id), { ...f });
      const folder: FolderRecord = { id, name, parentId, kind: 'custom', createdAt: now };
      tx.create(foldersPath(businessId, id), { ...folder });
      return folderView(folder);
    });
  },
  activity: (_input, result) => ({ params: { name: result.name }, targetIds: [result.id], summary: `created folder "${result.name}"${result.parentId ? ` in ${result.parentId}` : ''}` }),
});
