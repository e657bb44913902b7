import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { readAllFolders } from '../../domain/invoices/folders.ts';
import { accFoldersPath, accFolderOutput, accTree, accView, MAX_ACC_FOLDERS, readAccFolders, type AccFolderRecord, type AccSource } from '../../domain/accountant/accountant.ts';
import { ApiError } from '../../core/errors.ts';

interface Node {
  key: string;
  parentKey: string;
  name: string;
  source: AccSource | null;
}

const src = (kind: AccSource['kind'], over: Partial<AccSource> = {}): AccSource => ({ kind, folderIds: [], payMethods: [], accountIds: [], ...over });

export default defineOperation({
  name: 'accFolderTemplate',
  group: 'accountant',
  summary: 'Create the recommended accountant tree from what the business has',
  description:
    'Invoices by invoice folder, card invoices by card ending, statements, proofs of payment and signed forms: every document in exactly one folder (the pay method is a column of the ZIP\'s index.csv). ' +
    'Adds only what is missing (folders it made before are recognised even when renamed or moved), so running it twice changes nothing.',
  flags: { idempotent: true },
  input: empty(),
  output: z.object({ created: z.int(), folders: z.array(accFolderOutput) }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const at = iso(ctx.clock.now());
    const { folders: invoiceFolders } = await readAllFolders(ctx.store, businessId, at);
    const plan: Node[] = [{ key: 'invoices', parentKey: '', name: 'חשבוניות לפי תיקייה', source: null }];
    for (const f of invoiceFolders.filter((f) => f.kind !== 'card')) plan.push({ key: `folder:${f.id}`, parentKey: 'invoices', name: f.name, source: src('invoices', { folderIds: [f.id] }) });
    const cards = invoiceFolders.filter((f) => f.kind === 'card');
    if (cards.length) {
      plan.push({ key: 'cards', parentKey: '', name: 'כרטיסי אשראי', source: null });
      for (const f of cards) plan.push({ key: `card:${f.id}`, parentKey: 'cards', name: f.name, source: src('invoices', { folderIds: [f.id] }) });
    }
    // No branch by pay method: it would hold every invoice a second time (9 documents became 27 entries).
    plan.push({ key: 'statements', parentKey: '', name: 'דפי חשבון', source: src('statements') });
    plan.push({ key: 'proofs', parentKey: '', name: 'אסמכתאות תשלום', source: src('proofs') });
    plan.push({ key: 'signed', parentKey: '', name: 'טפסים חתומים', source: src('signed') });

    const { folders, created } = await ctx.store.runTransaction(async (tx) => {
      const all = await readAccFolders(tx, businessId);
      const byKey = new Map(all.filter((f) => f.templateKey).map((f) => [f.templateKey!, f]));
      const added: AccFolderRecord[] = [];
      for (const n of plan) {
        if (byKey.has(n.key)) continue;
        const parentId = n.parentKey ? (byKey.get(n.parentKey)?.id ?? '') : '';
        // A folder of the same name already there (made by hand) is left alone: no duplicate beside it.
        const same = [...all, ...added].find((f) => f.parentId === parentId && f.name.localeCompare(n.name, 'he', { sensitivity: 'accent' }) === 0);
        if (same) {
          byKey.set(n.key, same); // its children go under it
          continue;
        }
        const record: AccFolderRecord = { id: ctx.ids(), name: n.name, parentId, source: n.source, templateKey: n.key, createdAt: at, updatedAt: at };
        added.push(record);
        byKey.set(n.key, record);
      }
      if (all.length + added.length > MAX_ACC_FOLDERS) throw new ApiError('resource-exhausted', `the template would pass ${MAX_ACC_FOLDERS} accountant folders`, { reason: 'tooManyFolders', params: { max: MAX_ACC_FOLDERS } });
      for (const r of added) tx.create(accFoldersPath(businessId, r.id), { ...r });
      return { folders: [...all, ...added], created: added.length };
    });
    return { created, folders: accTree(folders).map(accView) };
  },
  activity: (_input, result) => ({ params: { count: result.created }, targetIds: [], summary: `accountant template: ${result.created} folder(s) added` }),
});
