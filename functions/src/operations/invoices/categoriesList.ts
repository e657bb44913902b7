import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { CATEGORIES } from '../../domain/invoices/categories.ts';

export default defineOperation({
  name: 'categoriesList',
  group: 'invoices',
  summary: 'The fixed expense categories, with ids and Hebrew labels',
  description:
    'The fixed list of expense categories, each with its id (used by invoiceSetCategory, rules and filters) and Hebrew label.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(z.object({ id: z.string(), label: z.string() })) }),
  async run() {
    return { items: CATEGORIES.map((c) => ({ id: c.id, label: c.label })) };
  },
});
