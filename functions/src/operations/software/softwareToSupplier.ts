import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { suggestionsPath, type SuggestionRecord } from '../../domain/invoices/issuers.ts';
import { countInvoicesOf, moveSoftwareToSuggestion, suggestionRow, suggestionRowSchema } from '../../domain/invoices/software.ts';

export default defineOperation({
  name: 'softwareToSupplier',
  group: 'software',
  summary: 'Turn a software entry into a supplier suggestion',
  description:
    'Turn a software tool back into an open supplier suggestion (same issuer, its name kept) with all its invoices; the software ' +
    'record is deleted and softwareSync will not move the issuer back. Returns the suggestion.',
  flags: {},
  input: input({ id: id().describe('Software id (from softwareList).') }),
  output: suggestionRowSchema,
  async run({ id: swId }, ctx) {
    const { businessId } = ctx.caller;
    const { suggestionId } = await moveSoftwareToSuggestion(ctx.store, businessId, swId, iso(ctx.clock.now()));
    const doc = await ctx.store.get(suggestionsPath(businessId, suggestionId));
    if (!doc) throw notFound(`suggestion ${suggestionId}`, 'suggestion');
    return suggestionRow(doc.data as unknown as SuggestionRecord, await countInvoicesOf(ctx.store, businessId, 'suggestionId', suggestionId));
  },
  activity: (_input, r) => ({ params: { name: r.name, count: r.docCount }, targetIds: [r.id], summary: `software moved to the supplier suggestions with ${r.docCount} invoice(s)` }),
});
