import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { ApiError, precondition } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { issuerId, suggestionsPath, type SuggestionRecord } from '../../domain/invoices/issuers.ts';
import {
  issuerClassesPath,
  moveIssuerToSoftware,
  recordIssuerClass,
  softwareSyncStatePath,
  syncGeneration,
  unassignedIssuers,
  type IssuerClass,
  type IssuerClassRecord,
} from '../../domain/invoices/software.ts';

/** Issuers sent to the AI per call. */
export const SOFTWARE_SYNC_BATCH = 50;

export default defineOperation({
  name: 'softwareSync',
  group: 'software',
  summary: 'Let the AI sort issuers into software and suppliers',
  description:
    'AI sorts issuers into software tools and ordinary suppliers: issuers of AI-read invoices that have no supplier and no software ' +
    `record, plus open suggestions; up to ${SOFTWARE_SYNC_BATCH} per call. Software issuers get a software record and their invoices ` +
    '(their suggestion moves along); suppliers stay suggestions. Issuers already decided are not sent again unless force is true ' +
    '(a forced run, too, converges when called again while remaining > 0). Issuers moved by hand are never overridden. One AI quota unit per call that asks the AI.',
  flags: { openWorld: true },
  input: input({ force: z.boolean().default(false).describe('true re-runs even when nothing changed since the last run.') }),
  output: z.object({ classified: z.int().min(0), software: z.int().min(0), suppliers: z.int().min(0), remaining: z.int().min(0) }),
  async run({ force }, ctx) {
    if (!ctx.ai.configured) throw precondition('AI is not configured', { reason: 'aiNotConfigured' });
    const { businessId } = ctx.caller;
    const at = iso(ctx.clock.now());
    const [generation, open, candidates] = await Promise.all([
      syncGeneration(ctx.store, businessId),
      ctx.store.query({ collection: suggestionsPath(businessId), where: [['status', '==', 'open']] }),
      unassignedIssuers(ctx.store, businessId),
    ]);
    // The suggestion's name wins; line items come from an invoice when the scan saw one.
    for (const d of open) {
      const s = d.data as unknown as SuggestionRecord;
      const seen = candidates.get(s.vendorKey);
      candidates.set(s.vendorKey, { vendorKey: s.vendorKey, name: s.name || seen?.name || s.vendorKey, lineItems: seen?.lineItems ?? [] });
    }
    const keys = [...candidates.keys()].sort();
    const decided = (await ctx.store.getAll(keys.map((k) => issuerClassesPath(businessId, issuerId(k))))).map((d) => d?.data as IssuerClassRecord | undefined);
    // A forced call starts a new generation only once the previous forced run has finished, so a loop of forced calls converges.
    const unfinished = decided.some((c) => c?.by === 'ai' && c.generation < generation);
    const gen = force && !unfinished ? generation + 1 : generation;
    const need = keys.filter((_, i) => !decided[i] || (decided[i]!.by === 'ai' && decided[i]!.generation < gen));
    const batch = need.slice(0, SOFTWARE_SYNC_BATCH);
    const remaining = need.length - batch.length;
    if (batch.length === 0) return { classified: 0, software: 0, suppliers: 0, remaining: 0 };

    // An issuer the user already made a supplier is not the AI's to decide.
    const suggestions = await ctx.store.getAll(batch.map((k) => suggestionsPath(businessId, issuerId(k))));
    const madeSupplier = batch.filter((_, i) => (suggestions[i]?.data as SuggestionRecord | undefined)?.status === 'created');
    const ask = batch.filter((k) => !madeSupplier.includes(k)).map((k) => candidates.get(k)!);
    const verdict: Record<string, IssuerClass> = {};
    if (ask.length > 0) {
      await ctx.consumeQuota('ai');
      const reply = await ctx.ai.classifySoftware(ask.map((c) => ({ key: c.vendorKey, name: c.name, lineItems: c.lineItems })));
      if (!reply.ok) throw new ApiError('unavailable', `AI could not classify the issuers: ${reply.reason}. Nothing was changed; try again later.`, { reason: 'aiFailed' });
      // An issuer the AI leaves out counts as a supplier, so that calling again converges.
      for (const c of ask) verdict[c.vendorKey] = Object.hasOwn(reply.value, c.vendorKey) && reply.value[c.vendorKey] === 'software' ? 'software' : 'supplier';
    }
    let software = 0;
    for (const c of ask) {
      if (verdict[c.vendorKey] !== 'software') continue;
      await moveIssuerToSoftware(ctx.store, businessId, c, at);
      software++;
    }
    // Decisions are recorded last: an interrupted call is simply redone.
    const w = ctx.store.batch();
    for (const c of ask) recordIssuerClass(w, businessId, { vendorKey: c.vendorKey, class: verdict[c.vendorKey], by: 'ai', generation: gen, classifiedAt: at });
    for (const k of madeSupplier) recordIssuerClass(w, businessId, { vendorKey: k, class: 'supplier', by: 'hand', generation: 0, classifiedAt: at });
    if (gen !== generation) w.set(softwareSyncStatePath(businessId), { generation: gen, forcedAt: at });
    await w.commit();
    return { classified: ask.length, software, suppliers: ask.length - software, remaining };
  },
  activity: (input, r) => ({
    params: { classified: r.classified, software: r.software, suppliers: r.suppliers, remaining: r.remaining },
    targetIds: [],
    summary: `software sync${input.force ? ' (forced)' : ''}: ${r.classified} issuer(s) classified, ${r.software} software, ${r.suppliers} supplier(s), ${r.remaining} remaining`,
  }),
});
