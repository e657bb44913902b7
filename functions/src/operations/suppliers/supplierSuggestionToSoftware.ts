import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { softwarePath, suggestionsPath, type SoftwareRecord, type SuggestionRecord } from '../../domain/invoices/issuers.ts';
import { countInvoicesOf, moveIssuerToSoftware, recordIssuerClass, softwareRow, softwareRowSchema } from '../../domain/invoices/software.ts';

export default defineOperation({
  name: 'supplierSuggestionToSoftware',
  group: 'suppliers',
  summary: 'Move a supplier suggestion to the software list',
  description:
    "Move a suggestion with its invoices to the software list: the issuer's software record (new ones visible, cadence auto) gets " +
    'the invoices, the suggestion is closed, and softwareSync will not move it back. Returns the software record.',
  flags: { idempotent: true },
  input: input({ id: id().describe('Suggestion id (from supplierSuggestionsList).') }),
  output: softwareRowSchema,
  async run({ id: sid }, ctx) {
    const { businessId } = ctx.caller;
    const at = iso(ctx.clock.now());
    const doc = await ctx.store.get(suggestionsPath(businessId, sid));
    if (!doc) throw notFound(`suggestion ${sid}`, 'suggestion');
    const s = doc.data as unknown as SuggestionRecord;
    if (s.status === 'created') throw precondition(`suggestion ${sid} is already supplier ${s.supplierKey ?? ''}; it cannot move to software`.trim(), { reason: 'suggestionUsed' });
    const { softwareId } = await moveIssuerToSoftware(ctx.store, businessId, { vendorKey: s.vendorKey, name: s.name }, at);
    const batch = ctx.store.batch();
    recordIssuerClass(batch, businessId, { vendorKey: s.vendorKey, class: 'software', by: 'hand', generation: 0, classifiedAt: at });
    await batch.commit();
    const sw = await ctx.store.get(softwarePath(businessId, softwareId));
    if (!sw) throw notFound(`software ${softwareId}`, 'software'); // moved back by a parallel call
    return softwareRow(sw.data as unknown as SoftwareRecord, await countInvoicesOf(ctx.store, businessId, 'softwareId', softwareId));
  },
  activity: (_input, r) => ({ params: { name: r.name, count: r.docCount }, targetIds: [r.id], summary: `suggestion moved to software ${r.name} with ${r.docCount} invoice(s)` }),
});
