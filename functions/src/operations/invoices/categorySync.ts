import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { iso } from '../../core/clock.ts';
import { ApiError, precondition } from '../../core/errors.ts';
import { CATEGORIES, isCategory } from '../../domain/invoices/categories.ts';
import { invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { vendorRulesPath, type VendorRuleRecord } from '../../domain/invoices/vendorRules.ts';
import { placementOf, planRefile, writeBuiltIns } from '../../domain/invoices/invoiceDocs.ts';
import type { Query, Where } from '../../ports/store.ts';

/** Invoices classified per call: one AI request, one small transaction. */
export const SYNC_BATCH = 25;

/** AI-read invoices nobody has classified yet; without AI, those already known to need it are left out. */
function candidates(businessId: string, withAi: boolean): Query {
  const where: Where[] = [['readingStatus', '==', 'read'], ['category', '==', ''], ['categoryBy', '==', null]];
  if (!withAi) where.push(['categoryNeedsAi', '==', false]);
  return { collection: invoicesPath(businessId), where };
}

type Outcome = { category: string; by: 'rule' | 'ai' } | { needsAi: true };

export default defineOperation({
  name: 'categorySync',
  group: 'invoices',
  summary: 'Classify AI-read invoices that lack a category, in batches',
  description:
    `Classify AI-read invoices that have no category, ${SYNC_BATCH} per call: the issuer's category rule first, then AI (one request per call, ` +
    'counted against the daily AI quota). Invoices the AI cannot place are marked (categoryBy "ai", category "") and not retried. ' +
    'Call again while remaining > 0. Without AI configured only rules apply; needsAi counts invoices left for AI, and a call with nothing ' +
    'else to do answers failed-precondition "AI is not configured".',
  flags: { openWorld: true },
  input: empty(),
  output: z.object({
    /** Given a category in this call, by rule or by AI. */
    classified: z.int(),
    /** Looked at by the AI in this call without a confident category; not retried. */
    unclassified: z.int(),
    /** Invoices still to look at; call again while above 0. */
    remaining: z.int(),
    /** Without AI: invoices that no rule classifies and that wait for AI. */
    needsAi: z.int(),
  }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const withAi = ctx.ai.configured;
    const at = iso(ctx.clock.now());
    const batch = (await ctx.store.query({ ...candidates(businessId, withAi), limit: SYNC_BATCH })).map((d) => d.data as unknown as InvoiceDoc);

    const keys = [...new Set(batch.map((d) => d.vendorKey).filter((k): k is string => Boolean(k)))];
    const ruleDocs = await ctx.store.getAll(keys.map((k) => vendorRulesPath(businessId, k)));
    const ruleOf = new Map(keys.map((k, i) => [k, (ruleDocs[i]?.data as unknown as VendorRuleRecord | undefined)?.category ?? '']));
    const outcomes = new Map<string, Outcome>();
    const forAi: InvoiceDoc[] = [];
    for (const d of batch) {
      const byRule = d.vendorKey ? ruleOf.get(d.vendorKey) : '';
      if (byRule) outcomes.set(d.docId, { category: byRule, by: 'rule' });
      else if (withAi) forAi.push(d);
      else outcomes.set(d.docId, { needsAi: true });
    }

    let aiFailure: ApiError | null = null;
    if (forAi.length) {
      try {
        await ctx.consumeQuota('ai');
        const items = forAi.map((d) => ({
          id: d.docId,
          issuer: d.reading?.issuer.name ?? '',
          lineItems: (d.reading?.lineItems ?? []).map((l) => l.description),
        }));
        const r = await ctx.ai.classifyCategories(items, CATEGORIES.map((c) => ({ id: c.id, label: c.label }))).catch((e: unknown) => ({ ok: false as const, reason: String((e as Error)?.message ?? e) }));
        if (!r.ok) aiFailure = new ApiError('unavailable', `AI classification failed (${r.reason.slice(0, 200)}); nothing was marked for the AI, call categorySync again later`, { reason: 'aiFailed' });
        else {
          for (const d of forAi) {
            // Anything but a known id (a hostile or confused reply) counts as "unsure".
            const pick = r.value?.[d.docId];
            outcomes.set(d.docId, { category: typeof pick === 'string' && isCategory(pick) ? pick : '', by: 'ai' });
          }
        }
      } catch (e) {
        aiFailure = e as ApiError;
      }
    }

    // Rule outcomes are saved even when the AI step failed; a document changed meanwhile is left alone.
    const counts = await ctx.store.runTransaction(async (tx) => {
      const ids = [...outcomes.keys()];
      const fresh = (await tx.getAll(ids.map((id) => invoicesPath(businessId, id)))).map((d) => (d?.data as unknown as InvoiceDoc | undefined) ?? null);
      const updates = new Map<string, Record<string, unknown>>();
      fresh.forEach((d, i) => {
        if (!d || d.category !== '' || d.categoryBy !== null) return;
        const o = outcomes.get(ids[i])!;
        updates.set(d.docId, 'needsAi' in o ? { categoryNeedsAi: true } : { category: o.category, categoryBy: o.by, categoryNeedsAi: false });
      });
      const changed = fresh.filter((d): d is InvoiceDoc => d !== null && updates.has(d.docId) && Boolean(updates.get(d.docId)!.category));
      const plan = await planRefile(tx, businessId, changed.map((d) => ({ ...d, ...updates.get(d.docId) })), at);
      writeBuiltIns(tx, businessId, plan);
      let classified = 0;
      let unclassified = 0;
      for (const [docId, u] of updates) {
        if (u.category) classified++;
        else if (u.categoryBy === 'ai') unclassified++;
        tx.update(invoicesPath(businessId, docId), { ...u, ...placementOf(plan, docId), updatedAt: at });
      }
      return { classified, unclassified };
    });
    if (aiFailure) throw aiFailure;

    const remaining = await ctx.store.count(candidates(businessId, withAi));
    const needsAi = withAi ? 0 : await ctx.store.count({ collection: invoicesPath(businessId), where: [...candidates(businessId, true).where!, ['categoryNeedsAi', '==', true]] });
    if (!withAi && batch.length === 0 && needsAi > 0) {
      throw precondition(`AI is not configured: ${needsAi} invoice(s) have no category rule and need AI to be classified`, { reason: 'aiNotConfigured' });
    }
    return { ...counts, remaining, needsAi };
  },
  activity: (_input, result) => ({
    params: { classified: result.classified, unclassified: result.unclassified, remaining: result.remaining },
    targetIds: [],
    summary: `category sync: ${result.classified} classified, ${result.unclassified} left to the user, ${result.remaining} remaining${result.needsAi ? `, ${result.needsAi} waiting for AI` : ''}`,
  }),
});
