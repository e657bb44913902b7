import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { invalid, notFound, precondition } from '../../core/errors.ts';
import { LIMITS, type DocStore } from '../../ports/store.ts';
import { GENERAL_FOLDER, invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { foldersPath, isBuiltInId, readAllFolders, subtreeIds } from '../../domain/invoices/folders.ts';
import { folderRulesPath } from '../../domain/invoices/folderRules.ts';

/** Invoices moved per transaction; with `in` limited to 30 folder ids per query. */
const MOVE_BATCH = 400;
const chunks = <T>(xs: T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/** Moves every invoice filed in `from` to `placement.folderId`, one bounded transaction at a time. */
async function moveInvoices(store: DocStore, businessId: string, from: string[], placement: Pick<InvoiceDoc, 'folderId' | 'folderBy' | 'folderRuleId'>, now: string): Promise<number> {
  let moved = 0;
  for (const ids of chunks(from, LIMITS.inValues)) {
    for (;;) {
      const n = await store.runTransaction(async (tx) => {
        const docs = await tx.query({ collection: invoicesPath(businessId), where: [['folderId', 'in', ids]], limit: MOVE_BATCH });
        for (const d of docs) tx.update(d.path, { ...placement, updatedAt: now });
        return docs.length;
      });
      moved += n;
      if (n < MOVE_BATCH) break;
    }
  }
  return moved;
}

export default defineOperation({
  name: 'folderDelete',
  group: 'folders',
  summary: 'Delete a folder and everything below it, moving its invoices',
  description:
    'Delete a custom folder and every folder below it. Their invoices move to moveTo (filed by hand), or by default to the general folder ' +
    '(filed by default, so rules may re-file them); folder rules aimed at a deleted folder are re-aimed at the same destination. Built-in folders cannot be deleted.',
  flags: { dangerous: true },
  input: input({ id: id().describe('Folder to delete, with every folder below it.'), moveTo: z.string().max(128).default('').describe('Folder that receives their invoices; default the general folder.') }),
  output: z.object({ id: z.string(), deletedFolderIds: z.array(z.string()), movedTo: z.string(), movedInvoices: z.int(), retargetedRules: z.array(z.string()) }),
  async run({ id: folderId, moveTo }, ctx) {
    const { businessId } = ctx.caller;
    const now = iso(ctx.clock.now());
    const dest = moveTo || GENERAL_FOLDER;
    // Check everything and make sure the destination is stored before anything moves.
    const subtree = await ctx.store.runTransaction(async (tx) => {
      const { folders, unstored } = await readAllFolders(tx, businessId, now);
      if (!folders.some((f) => f.id === folderId)) throw notFound(`folder ${folderId}`, 'folder');
      if (folderId === GENERAL_FOLDER) throw precondition('id: the general folder cannot be deleted', { reason: 'builtInFolder' });
      if (isBuiltInId(folderId)) throw precondition(`id: ${folderId} is a built-in folder and cannot be deleted`, { reason: 'builtInFolder' });
      if (!folders.some((f) => f.id === dest)) throw notFound(`moveTo: folder ${dest}`, 'folder');
      const ids = subtreeIds(folders, folderId);
      if (ids.includes(dest)) throw invalid('moveTo', `folder ${dest} is ${dest === folderId ? 'the folder being deleted' : 'inside the folder being deleted'}`, { reason: 'folderCycle' });
      for (const f of unstored) tx.set(foldersPath(businessId, f.id), { ...f });
      return ids;
    });

    // Order matters for concurrent filing: re-aim rules first, then move, then delete, then sweep stragglers.
    const retargeted = await ctx.store.runTransaction(async (tx) => {
      const hits = [];
      for (const ids of chunks(subtree, LIMITS.inValues)) hits.push(...(await tx.query({ collection: folderRulesPath(businessId), where: [['folderId', 'in', ids]] })));
      for (const r of hits) tx.update(r.path, { folderId: dest, applyCursor: '', updatedAt: now });
      return hits.map((r) => r.id);
    });
    const placement = { folderId: dest, folderBy: moveTo ? ('hand' as const) : ('default' as const), folderRuleId: null };
    let moved = await moveInvoices(ctx.store, businessId, subtree, placement, now);
    for (const ids of chunks(subtree, LIMITS.writesPerCommit)) {
      const batch = ctx.store.batch();
      for (const id of ids) batch.delete(foldersPath(businessId, id));
      await batch.commit();
    }
    moved += await moveInvoices(ctx.store, businessId, subtree, placement, now);
    return { id: folderId, deletedFolderIds: subtree, movedTo: dest, movedInvoices: moved, retargetedRules: retargeted };
  },
  activity: (_input, result) => ({
    params: { count: result.deletedFolderIds.length, moved: result.movedInvoices },
    targetIds: [...result.deletedFolderIds, result.movedTo],
    summary: `deleted ${result.deletedFolderIds.length} folder(s); ${result.movedInvoices} invoice(s) moved to ${result.movedTo}`,
  }),
});
