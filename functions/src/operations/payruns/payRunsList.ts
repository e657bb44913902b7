import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { decodePageToken, encodePageToken, fingerprint, pageTokenField, scanPage } from '../../core/pageToken.ts';
import type { Query } from '../../ports/store.ts';
import { payRunsPath, RUN_STATUSES, runView, runViewSchema, type PayRunRecord } from '../../domain/payruns/payRuns.ts';

export default defineOperation({
  name: 'payRunsList',
  group: 'payruns',
  summary: 'Payment runs, newest first.',
  description: 'Each item is a run as payRunGet gives it, plus paymentCount; its files are those whose links still work (payRunGet renews an open run\'s). status: open, paid, partly_paid or canceled. limit: 1 to 50 (default 20). Pass nextPageToken as pageToken for the next page.',
  flags: { readOnly: true },
  input: input({
    status: z.enum(RUN_STATUSES).optional().describe('Status.'),
    limit: z.int().min(1).max(50).default(20).describe('Limit.'),
    pageToken: pageTokenField().describe('Page token.'),
  }),
  output: z.object({ items: z.array(runViewSchema.extend({ paymentCount: z.int() })), nextPageToken: z.string().nullable() }),
  async run({ status, limit, pageToken }, ctx) {
    const { businessId } = ctx.caller;
    const fp = fingerprint({ runs: status ?? null });
    const cursor = pageToken ? decodePageToken(pageToken, fp, 0) : undefined;
    const q: Query = { collection: payRunsPath(businessId), where: status ? [['status', '==', status]] : [], orderBy: [['createdAtMs', 'desc']] };
    const { docs, next } = await scanPage(ctx.store, q, { limit, offset: 0, cursor });
    const items = [];
    for (const d of docs) {
      const view = await runView(ctx, d.data as unknown as PayRunRecord, { renew: false });
      items.push({ ...view, paymentCount: view.items.length });
    }
    return { items, nextPageToken: next ? encodePageToken(fp, { ...next, total: 0, totalIsEstimate: false }) : null };
  },
});
