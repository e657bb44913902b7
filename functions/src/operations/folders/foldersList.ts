import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invoicesPath } from '../../domain/invoices/invoices.ts';
import { buildTree, folderOutput, folderView, readAllFolders } from '../../domain/invoices/folders.ts';

export default defineOperation({
  name: 'foldersList',
  group: 'folders',
  summary: 'The invoice folder tree, with counts',
  description:
    'The folder tree as a pre-order list (each folder followed by its subfolders, with depth, path of names and child ids), ' +
    'with the number of invoices filed directly in each folder and the number not filed yet.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({
    folders: z.array(folderOutput.extend({ depth: z.int(), path: z.array(z.string()), childIds: z.array(z.string()), count: z.int() })),
    unfiled: z.int(),
  }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const { folders } = await readAllFolders(ctx.store, businessId, iso(ctx.clock.now()));
    const tree = buildTree(folders);
    // One count aggregation per folder: a read per 1000 invoices, never the invoices themselves.
    const countIn = (folderId: string) => ctx.store.count({ collection: invoicesPath(businessId), where: [['folderId', '==', folderId]] });
    const [unfiled, ...counts] = await Promise.all(['', ...tree.map((e) => e.folder.id)].map(countIn));
    return {
      folders: tree.map((e, i) => ({ ...folderView(e.folder), depth: e.depth, path: e.path, childIds: e.childIds, count: counts[i] })),
      unfiled,
    };
  },
});
