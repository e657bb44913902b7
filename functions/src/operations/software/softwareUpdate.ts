import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { text, id, input, LIMITS } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { softwarePath, type SoftwareRecord } from '../../domain/invoices/issuers.ts';
import { CADENCES, countInvoicesOf, softwareRow, softwareRowSchema } from '../../domain/invoices/software.ts';

export default defineOperation({
  name: 'softwareUpdate',
  group: 'software',
  summary: 'Rename, hide or set the cadence of a software entry',
  description:
    'Rename a software tool, hide or show it, or set its billing cadence (auto, monthly, yearly). Only the fields sent change.',
  flags: { idempotent: true },
  input: input({
    id: id().describe('Software id (from softwareList).'),
    name: text(LIMITS.shortText).trim().min(1).optional().describe('Display name.'),
    hidden: z.boolean().optional().describe('true hides it from the list.'),
    cadence: z.enum(CADENCES).optional().describe('auto (detected), monthly or yearly.'),
  }),
  output: softwareRowSchema,
  async run({ id: swId, name, hidden, cadence }, ctx) {
    const { businessId } = ctx.caller;
    const path = softwarePath(businessId, swId);
    const changes = Object.fromEntries(Object.entries({ name, hidden, cadence }).filter(([, v]) => v !== undefined));
    const record = await ctx.store.runTransaction(async (tx) => {
      const doc = await tx.get(path);
      if (!doc) throw notFound(`software ${swId}`, 'software');
      const current = doc.data as unknown as SoftwareRecord;
      if (Object.keys(changes).length === 0) return current;
      const updatedAt = iso(ctx.clock.now());
      tx.update(path, { ...changes, updatedAt });
      return { ...current, ...changes, updatedAt } as SoftwareRecord;
    });
    return softwareRow(record, await countInvoicesOf(ctx.store, businessId, 'softwareId', swId));
  },
  // Field names only, as for supplier cards.
  activity: (input, r) => ({
    params: { name: r.name },
    targetIds: [r.id],
    summary: `software ${r.id} updated: ${(['name', 'hidden', 'cadence'] as const).filter((f) => input[f] !== undefined).join(', ') || 'nothing'}`,
  }),
});
