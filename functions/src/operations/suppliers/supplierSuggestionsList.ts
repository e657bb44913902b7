import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { suggestionsPath, type SuggestionRecord } from '../../domain/invoices/issuers.ts';
import { countInvoicesOf, suggestionRow, suggestionRowSchema } from '../../domain/invoices/software.ts';

const byName = new Intl.Collator(['he', 'en'], { sensitivity: 'base', numeric: true });

export default defineOperation({
  name: 'supplierSuggestionsList',
  group: 'suppliers',
  summary: 'Issuers the AI found that are not suppliers yet',
  description:
    'Open supplier suggestions: issuers the AI found on invoices that are not suppliers yet, with the contacts read off the invoices ' +
    '(phone or email may be missing) and how many invoices they have. Most invoices first.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(suggestionRowSchema), total: z.int().min(0) }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const docs = await ctx.store.query({ collection: suggestionsPath(businessId), where: [['status', '==', 'open']] });
    const items = await Promise.all(
      docs.map(async (d) => suggestionRow(d.data as unknown as SuggestionRecord, await countInvoicesOf(ctx.store, businessId, 'suggestionId', d.id))),
    );
    items.sort((a, b) => b.docCount - a.docCount || byName.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items, total: items.length };
  },
});
