import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { marketTransactions } from '../../domain/statements/market.ts';
import { syncInput } from '../../domain/statements/statements.ts';

const s = () => z.string().nullable();
const row = z.object({
  id: s().describe("Upwork's record id"),
  date: s().describe('YYYY-MM-DD'),
  type: s(),
  subtype: s(),
  description: s(),
  amount: s().describe('Decimal as a string, signed as Upwork reports it'),
  currency: s(),
  balance: s().describe('Running balance after the transaction'),
  freelancer: s(),
  agency: s(),
  company: s(),
  invoiceId: s(),
  status: s(),
});

export default defineOperation({
  name: 'marketTransactions',
  group: 'statements',
  summary: 'The stored freelance marketplace (Upwork) transactions of a month',
  description:
    'The transactions the last marketSync stored for the account and month, in Upwork\'s order, with the statement status ' +
    '(`not_synced` when the month was never synced). Reads only what is stored; nothing is fetched from Upwork.',
  flags: { readOnly: true },
  input: input({
    accountId: syncInput.accountId().describe('Marketplace statement account id (marketListAccounts).'),
    month: syncInput.month().describe('Month to read, YYYY-MM (Israel time), as synced by marketSync.'),
  }),
  output: z.object({
    accountId: z.string(),
    accountName: z.string(),
    month: z.string(),
    status: z.enum(['not_synced', 'pending', 'ready', 'failed']),
    reason: z.string().nullable(),
    syncedAt: z.string().nullable(),
    transactions: z.array(row),
  }),
  run: ({ accountId, month }, ctx) => marketTransactions(ctx, accountId, month),
});
