import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { accFoldersPath, accFolderOutput, accSourceSchema, accTree, accView, readAccFolders, requireFolder } from '../../domain/accountant/accountant.ts';

export default defineOperation({
  name: 'accFolderSetSource',
  group: 'accountant',
  summary: "Set or clear an accountant folder's source rule",
  description: 'source null makes it a plain folder. Empty lists mean all (every invoice folder, pay method or statement account).',
  flags: { idempotent: true },
  input: input({ id: id().describe('Accountant folder id (accountantFoldersList).'), source: accSourceSchema.nullable().describe('The new source rule; null makes it a plain folder.') }),
  output: accFolderOutput,
  async run({ id: folderId, source }, ctx) {
    const { businessId } = ctx.caller;
    const folders = await ctx.store.runTransaction(async (tx) => {
      const all = await readAccFolders(tx, businessId);
      requireFolder(all, folderId);
      tx.update(accFoldersPath(businessId, folderId), { source, updatedAt: iso(ctx.clock.now()) });
      return all.map((x) => (x.id === folderId ? { ...x, source } : x));
    });
    return accView(accTree(folders).find((e) => e.folder.id === folderId)!);
  },
  activity: (input) => ({ params: { source: input.source?.kind ?? null }, targetIds: [input.id], summary: input.source ? `set the accountant folder's source to ${input.source.kind}` : 'made the accountant folder a plain folder' }),
});
