import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input, month as monthSchema } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { closedMonth } from '../../domain/months.ts';
import { accountsPath } from '../../domain/statements/statements.ts';
import { buildStatementsZip } from '../../domain/accountant/monthPackage.ts';

export default defineOperation({
  name: 'statementsZip',
  group: 'statements',
  summary: "One ZIP of a month's statements (all accounts or one)",
  description:
    'Entries are <account>/<month>/<file> for every ready statement of the month; a month with none still makes a ZIP, with a README of what was looked for. ' +
    'Returns the download link once the ZIP is stored; the link works for 7 days (expiresAt), then answers 410 and the ZIP is deleted. Long ones belong on {direct_url}/statementsZip.',
  flags: {},
  input: input({
    month: monthSchema().describe('The closed month, YYYY-MM (2000-01 or later).'),
    accountId: z.string().max(128).optional().describe('Only this statement account; omit for all.'),
  }),
  output: z.object({ fileId: z.string(), fileName: z.string(), url: z.string(), expiresAt: z.string().describe('When the link stops working (410) and the ZIP is deleted: 7 days after it was made.'), size: z.int(), entries: z.int(), accounts: z.array(z.string()), missing: z.array(z.string()) }),
  async run({ month, accountId }, ctx) {
    const m = closedMonth(month, ctx.clock.now());
    const { businessId } = ctx.caller;
    if (accountId && (accountId.includes('/') || !(await ctx.store.get(accountsPath(businessId, accountId))))) throw notFound(`accountId: statement account ${accountId}`, 'account');
    // The builder's result also names the business, which the output does not carry (issue 18 C5).
    const { fileId, fileName, url, expiresAt, size, entries, accounts, missing } = await buildStatementsZip(ctx, businessId, m, accountId ? [accountId] : []);
    return { fileId, fileName, url, expiresAt, size, entries, accounts, missing };
  },
  activity: (input, result) => ({ params: { month: input.month, count: result.entries }, targetIds: [result.fileId], summary: `built the statements ZIP of ${input.month}: ${result.entries} file(s)` }),
});
