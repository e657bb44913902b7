import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { ApiError } from '../../core/errors.ts';
import { z } from 'zod';
import { iso } from '../../core/clock.ts';
import { accFolderName, accFoldersPath, accFolderOutput, accSourceSchema, accTree, accView, assertUniqueName, checkParent, MAX_ACC_FOLDERS, readAccFolders, type AccFolderRecord } from '../../domain/accountant/accountant.ts';

export default defineOperation({
  name: 'accFolderCreate',
  group: 'accountant',
  summary: 'Create an accountant folder, plain or with a source rule',
  description: `Names are unique among siblings; at most ${MAX_ACC_FOLDERS} folders.`,
  flags: {},
  input: input({
    name: accFolderName().describe('Folder name as it appears in the ZIP, 1-100 characters.'),
    parentId: z.string().max(128).default('').describe('Parent folder id; "" (default) for the top level.'),
    source: accSourceSchema.nullable().default(null).describe('What a ZIP puts in this folder (section 2 source rules); null or omitted for a plain folder.'),
  }),
  output: accFolderOutput,
  async run({ name, parentId, source }, ctx) {
    const { businessId } = ctx.caller;
    const at = iso(ctx.clock.now());
    const id = ctx.ids();
    const folders = await ctx.store.runTransaction(async (tx) => {
      const all = await readAccFolders(tx, businessId);
      if (all.length >= MAX_ACC_FOLDERS) throw new ApiError('resource-exhausted', `at most ${MAX_ACC_FOLDERS} accountant folders`, { reason: 'tooManyFolders', params: { max: MAX_ACC_FOLDERS } });
      checkParent(all, parentId);
      assertUniqueName(all, parentId, name);
      const record: AccFolderRecord = { id, name, parentId, source, templateKey: null, createdAt: at, updatedAt: at };
      tx.create(accFoldersPath(businessId, id), { ...record });
      return [...all, record];
    });
    return accView(accTree(folders).find((e) => e.folder.id === id)!);
  },
  activity: (input, result) => ({ params: { name: result.name }, targetIds: [result.id], summary: `created accountant folder ${result.name}` }),
});
