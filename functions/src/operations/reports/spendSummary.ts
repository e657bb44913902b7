import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { day, input } from '../../core/schema.ts';
import { CURRENCIES } from '../../domain/money.ts';
import { PAY_MARKS } from '../../domain/invoices/invoices.ts';
import { MAX_RANGE_DAYS, SPEND_DIMENSIONS, spendSummary } from '../../domain/reports/spend.ts';

export const spendRowSchema = z.object({
  month: z.string().nullable(),
  key: z.string().nullable(),
  label: z.string().nullable(),
  currency: z.enum(CURRENCIES),
  count: z.int(),
  totalMinor: z.int(),
  vatMinor: z.int(),
  netMinor: z.int(),
  withoutVat: z.int(),
  vatIsTotal: z.int().describe('Invoices here whose VAT equals their total.'),
  filter: z.object({ from: z.string(), to: z.string(), category: z.string().optional(), supplierKey: z.string().optional(), payMark: z.enum(PAY_MARKS).optional() }),
  exact: z.boolean(),
});

export const spendInput = {
  from: day().describe('First invoice date, YYYY-MM-DD (inclusive).'),
  to: day().describe(`Last invoice date, YYYY-MM-DD (inclusive); at most ${MAX_RANGE_DAYS} days after from.`),
  by: z.enum(SPEND_DIMENSIONS).default('category').describe('The second dimension: category (categoriesList ids), supplier (supplierKey), or payMethod (the pay mark in force). Default category.'),
};

export const SPEND_RULES =
  'Invoices count by invoice date; amounts are integer minor units per currency, never converted. ' +
  'vatMinor and netMinor cover the invoices whose reading has VAT; withoutVat counts the rest (their totals are in totalMinor only). ' +
  'Credit notes count negative; stored duplicates (duplicateOf) and invoices without a read total and currency are left out and counted (duplicates, withoutAmount). ' +
  'Supplier "" = no supplier assigned; category "" = uncategorized.';

export default defineOperation({
  name: 'spendSummary',
  group: 'reports',
  summary: 'Spend totals by month and by category, supplier or pay method, per currency',
  description:
    SPEND_RULES +
    ' Result: rows (month × value × currency), byMonth, byKey (the whole range), totals (per currency). ' +
    'Each row has filter: the invoicesList input (from, to, category | supplierKey | payMark) that lists its invoices, and exact: whether that list holds exactly the invoices counted ' +
    '(false when it also shows other currencies, unread invoices or duplicates, or for "no supplier", which invoicesList cannot filter). spendExport gives the rows as CSV.',
  flags: { readOnly: true },
  input: input(spendInput),
  output: z.object({
    from: z.string(),
    to: z.string(),
    by: z.enum(SPEND_DIMENSIONS),
    rows: z.array(spendRowSchema),
    byMonth: z.array(spendRowSchema),
    byKey: z.array(spendRowSchema),
    totals: z.array(spendRowSchema),
    withoutAmount: z.int(),
    duplicates: z.int(),
    vatIsTotal: z.array(z.string()).describe('docIds whose VAT equals their total (likely misread).'),
  }),
  async run({ from, to, by }, ctx) {
    return spendSummary(ctx.store, ctx.caller.businessId, from, to, by);
  },
});
