import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { softwarePath, type SoftwareRecord } from '../../domain/invoices/issuers.ts';
import { countInvoicesOf, softwareRow, softwareRowSchema } from '../../domain/invoices/software.ts';

const byName = new Intl.Collator(['he', 'en'], { sensitivity: 'base', numeric: true });

export default defineOperation({
  name: 'softwareList',
  group: 'software',
  summary: 'Card-paid software tools, with cadence and hidden flag',
  description:
    'Every software tool (card-paid tool or service) with its cadence, hidden flag and invoice count, sorted by name; hidden tools are listed too.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({ items: z.array(softwareRowSchema), total: z.int().min(0) }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const docs = await ctx.store.query({ collection: softwarePath(businessId) });
    const items = await Promise.all(
      docs.map(async (d) => softwareRow(d.data as unknown as SoftwareRecord, await countInvoicesOf(ctx.store, businessId, 'softwareId', d.id))),
    );
    items.sort((a, b) => byName.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items, total: items.length };
  },
});
