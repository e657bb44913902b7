import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { accFolderOutput, accTree, accView, readAccFolders } from '../../domain/accountant/accountant.ts';

export default defineOperation({
  name: 'accountantFoldersList',
  group: 'accountant',
  summary: 'The accountant folder tree with the source rule of each folder',
  description: 'Pre-order: each folder followed by the folders below it, with depth, path of names and child ids. source null = a plain folder.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ folders: z.array(accFolderOutput) }),
  async run(_input, ctx) {
    return { folders: accTree(await readAccFolders(ctx.store, ctx.caller.businessId)).map(accView) };
  },
});
