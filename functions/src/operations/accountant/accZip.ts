import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, month } from '../../core/schema.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { accFoldersPath } from '../../domain/accountant/accountant.ts';
import { buildAccZip, rangeText } from '../../domain/accountant/accZip.ts';
import { pastMonth } from '../../domain/months.ts';

export default defineOperation({
  name: 'accZip',
  group: 'accountant',
  summary: 'One ZIP of the accountant tree (or one folder), optionally for a month range',
  description:
    'Entries mirror the accountant folders (names as they are, Hebrew included), filled by each folder\'s source rule, each document once per folder, named by date, supplier, number and total; ' +
    'every ZIP holds README.txt (Hebrew, then English) and index.csv (one row per file: date, supplier, number, total, VAT, currency, category, pay method, folder); ' +
    'from/to limit by invoice date and payment date. An empty selection still makes a ZIP, with a README of what was searched. ' +
    'Returns when the ZIP is stored, with its download link, which works for 7 days (expiresAt), then answers 410 and the ZIP is deleted; large ZIPs can take longer than Hosting\'s 60 seconds: call {direct_url}/accZip.',
  flags: {},
  input: input({
    folderId: z.string().max(128).optional().describe('Accountant folder to ZIP, with everything below it; omit for the whole tree.'),
    from: month().optional().describe('First month, YYYY-MM (inclusive).'),
    to: month().optional().describe('Last month, YYYY-MM (inclusive).'),
  }),
  output: z.object({ fileId: z.string(), fileName: z.string(), url: z.string(), expiresAt: z.string().describe('When the link stops working (410) and the ZIP is deleted: 7 days after it was made.'), size: z.int(), entries: z.int(), missing: z.int() }),
  async run({ folderId, from, to }, ctx) {
    for (const [field, v] of [['from', from], ['to', to]] as const) if (v) pastMonth(v, ctx.clock.now(), field);
    if (from && to && from > to) throw invalid('from', `${from} is after to (${to})`, { reason: 'dateRangeReversed' });
    const { businessId } = ctx.caller;
    if (folderId && !(await ctx.store.get(accFoldersPath(businessId, folderId)))) throw notFound(`folderId: accountant folder ${folderId}`, 'folder');
    const { file, entries: n, missing } = await buildAccZip(ctx, businessId, folderId, { from, to }, ctx.clock.now());
    return { fileId: file.fileId, fileName: file.fileName, url: file.url, expiresAt: file.expiresAt!, size: file.size, entries: n, missing };
  },
  activity: (input, result) => ({ params: { count: result.entries, from: input.from ?? null, to: input.to ?? null }, targetIds: [result.fileId], summary: `built an accountant ZIP of ${result.entries} file(s) (${rangeText(input)})` }),
});
