import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { cardFolderId, invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { BASE_BUILT_INS, cardEndingsSeen, foldersPath, missingBuiltInFolders } from '../../domain/invoices/folders.ts';
import { fileDocument, loadRules } from '../../domain/invoices/folderRules.ts';

/** Unfiled invoices filed per call. */
export const SYNC_BATCH = 100;

export default defineOperation({
  name: 'folderSync',
  group: 'folders',
  summary: 'Ensure built-in folders and file unfiled invoices, in batches',
  description:
    'Create the built-in folders that are missing (general, petty cash, one per card ending seen on invoices), then file a batch ' +
    `of up to ${SYNC_BATCH} unfiled invoices by the folder rules. Call again while remaining > 0.`,
  flags: {},
  input: empty(),
  output: z.object({ created: z.array(z.string()), filed: z.int(), remaining: z.int() }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const now = iso(ctx.clock.now());
    const endings = await cardEndingsSeen(ctx.store, businessId);
    const step = await ctx.store.runTransaction(async (tx) => {
      const rules = await loadRules(tx, businessId);
      const docs = await tx.query({ collection: invoicesPath(businessId), where: [['folderId', '==', '']], limit: SYNC_BATCH });
      const placed = docs.map((d) => ({ path: d.path, placement: fileDocument(rules, d.data as unknown as InvoiceDoc) }));
      // Placement targets too: a card seen after the scan above still gets its folder.
      const wanted = [...BASE_BUILT_INS, ...endings.map(cardFolderId), ...placed.map((p) => p.placement.folderId)];
      const created = await missingBuiltInFolders(tx, businessId, wanted, now);
      for (const f of created) tx.set(foldersPath(businessId, f.id), { ...f });
      for (const p of placed) tx.update(p.path, { ...p.placement, updatedAt: now });
      return { created: created.map((f) => f.id), filed: placed.length };
    });
    const remaining = await ctx.store.count({ collection: invoicesPath(businessId), where: [['folderId', '==', '']] });
    return { ...step, remaining };
  },
  activity: (_input, result) => ({
    params: { created: result.created.length, filed: result.filed, remaining: result.remaining },
    targetIds: result.created,
    summary: `folder sync: ${result.created.length} built-in folder(s) created, ${result.filed} invoice(s) filed, ${result.remaining} remaining`,
  }),
});
