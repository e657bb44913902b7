import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { suggestionsPath, type SuggestionRecord } from '../../domain/invoices/issuers.ts';
import { MAX_SUGGESTION_IDS } from '../../domain/invoices/software.ts';

export default defineOperation({
  name: 'supplierSuggestionsDismiss',
  group: 'suppliers',
  summary: 'Dismiss AI supplier suggestions',
  description:
    'Hide suggestions from the suggestion list (their invoices stay as they are). Unknown ids are reported in notFound; suggestions ' +
    'already made suppliers or moved to software are reported in skipped. Dismissing twice is harmless.',
  flags: { idempotent: true },
  input: input({ ids: z.array(id()).min(1).max(MAX_SUGGESTION_IDS).describe('Suggestion ids to dismiss.') }),
  output: z.object({
    dismissed: z.array(z.string()),
    notFound: z.array(z.string()),
    skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
  }),
  async run({ ids: rawIds }, ctx) {
    const { businessId } = ctx.caller;
    const ids = [...new Set(rawIds)];
    const at = iso(ctx.clock.now());
    return ctx.store.runTransaction(async (tx) => {
      const docs = await tx.getAll(ids.map((sid) => suggestionsPath(businessId, sid)));
      const out = { dismissed: [] as string[], notFound: [] as string[], skipped: [] as { id: string; reason: string }[] };
      for (const [i, sid] of ids.entries()) {
        const s = docs[i]?.data as SuggestionRecord | undefined;
        if (!s) out.notFound.push(sid);
        else if (s.status === 'created') out.skipped.push({ id: sid, reason: `it is already supplier ${s.supplierKey ?? ''}`.trim() });
        else if (s.status === 'software') out.skipped.push({ id: sid, reason: 'it is in the software list' });
        else {
          if (s.status !== 'dismissed') tx.update(docs[i]!.path, { status: 'dismissed', updatedAt: at });
          out.dismissed.push(sid);
        }
      }
      return out;
    });
  },
  activity: (_input, r) => ({
    params: { count: r.dismissed.length },
    targetIds: r.dismissed,
    summary: `${r.dismissed.length} suggestion(s) dismissed; ${r.notFound.length} not found, ${r.skipped.length} skipped`,
  }),
});
