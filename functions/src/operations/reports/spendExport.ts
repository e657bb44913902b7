import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { spendCsv, spendSummary } from '../../domain/reports/spend.ts';
import { ZIP_LIFETIME_MS } from '../../core/files.ts';
import { SPEND_RULES, spendInput } from './spendSummary.ts';

export default defineOperation({
  name: 'spendExport',
  group: 'reports',
  summary: "spendSummary's month rows as a CSV download link",
  description:
    'One row per month × value × currency, as spendSummary.rows: from and to (ISO days), key, name, currency, invoices, total, VAT, net (major units, e.g. 118.00), and the count without VAT. ' +
    'UTF-8 with a BOM, Hebrew and English headers, formula-safe cells, so Excel opens it right. ' +
    SPEND_RULES +
    ' Returns its capability link, which works 7 days (expiresAt) like a ZIP\'s, then answers 410.',
  // Like accZip and statementsZip: it stores a generated file (and logs it), nothing else.
  flags: {},
  input: input(spendInput),
  output: z.object({ fileId: z.string(), fileName: z.string(), url: z.string(), expiresAt: z.string().describe('When the link stops working (410).'), size: z.int(), rows: z.int() }),
  async run({ from, to, by }, ctx) {
    const { businessId } = ctx.caller;
    const summary = await spendSummary(ctx.store, businessId, from, to, by);
    const file = await ctx.files.save(businessId, { fileName: `spend-${by}-${from}_${to}.csv`, contentType: 'text/csv; charset=utf-8', bytes: spendCsv(summary), lifetimeMs: ZIP_LIFETIME_MS });
    return { fileId: file.fileId, fileName: file.fileName, url: file.url, expiresAt: file.expiresAt!, size: file.size, rows: summary.rows.length };
  },
  activity: (input, result) => ({ params: { by: input.by, from: input.from, to: input.to, rows: result.rows }, targetIds: [result.fileId], summary: `exported spend by ${input.by} for ${input.from} – ${input.to} (${result.rows} row(s))` }),
});
