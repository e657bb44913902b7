import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { paymentRowSchema } from '../../domain/payments/paymentView.ts';
import { invoiceRowSchema } from '../../domain/invoices/invoiceDocs.ts';
import paymentsList from '../payments/paymentsList.ts';
import invoicesList from '../invoices/invoicesList.ts';
import listActivity from '../activity/listActivity.ts';
import { outboxPath, type OutboxRecord } from '../../core/outbox.ts';

/** Messages that carried the supplier link: sending the link again (resendPayment) is their remedy. */
const LINK_REASONS = new Set(['createPayment', 'resendPayment']);

const READY_PAGE = 200;
const RECENT_INVOICES = 50;

/**
 * The dashboard's home in one call (its first screen may make at most 3): the other operations' own
 * handlers, run for the same caller, condensed to what the owner must act on.
 */
export default defineOperation({
  name: 'attention',
  group: 'account',
  summary: 'What needs the owner: ready payments, fraud flags, invoices, failed messages',
  description:
    'The dashboard home in one call: payments ready to pay (flagged payout changes first) with the total to pay per currency, VAT included, over the first 200; ' +
    'payments waiting for review or with changed payout details that are not paid yet; the newest 50 invoices that wait for a decision ' +
    '(unread, duplicates, no supplier, or a reading that disagrees with its payment); and messages that failed on the newest page of the activity log.',
  flags: { readOnly: true },
  input: empty(),
  output: z.object({
    ready: z.object({
      items: z.array(paymentRowSchema),
      count: z.int(),
      totals: z.array(z.object({ currency: z.string(), amountAgorot: z.int() })),
      /** false when more payments are ready than the totals cover. */
      totalsComplete: z.boolean(),
    }),
    flagged: z.array(paymentRowSchema),
    invoices: z.object({ unread: z.int(), duplicates: z.int(), noSupplier: z.int(), items: z.array(invoiceRowSchema) }),
    failedMessages: z.array(
      z.object({
        id: z.string(),
        at: z.number(),
        targetIds: z.array(z.string()),
        summary: z.string(),
        resend: z
          .object({ paymentId: z.string(), channel: z.enum(['wa', 'em']) })
          .nullable()
          .describe('For a supplier link that was not sent (retried for about a day, or refused): resendPayment with this paymentId and channel sends it again; null otherwise.'),
        message: z
          .object({
            channel: z.enum(['email', 'whatsapp']).describe('The channel the message went by.'),
            to: z.string(),
            status: z.enum(['pending', 'delivered', 'undelivered', 'failed']).describe('undelivered: still failing after the retries (sending again may work); failed: refused by the provider.'),
            reason: z.string().describe('What the message was for: the operation that sent it (createPayment, resendPayment, inviteMember, statementsSend, accZipSend…).'),
          })
          .nullable()
          .describe('The message itself, so a client can say in its own language what was not sent; null once the message is no longer kept (90 days).'),
      }),
    ),
  }),
  async run(_input, ctx) {
    const [ready, flagged, review, invoices, activity] = await Promise.all([
      paymentsList.run(paymentsList.input.parse({ status: 'ready', limit: READY_PAGE }), ctx),
      paymentsList.run(paymentsList.input.parse({ payoutChanged: true, limit: 50 }), ctx),
      // Standing-link filings start in `sent` with needsReview.
      paymentsList.run(paymentsList.input.parse({ status: 'sent', limit: 50 }), ctx),
      invoicesList.run(invoicesList.input.parse({ limit: RECENT_INVOICES }), ctx),
      listActivity.run(listActivity.input.parse({}), ctx),
    ]);
    const totals = new Map<string, number>();
    // What will be paid: VAT included (the figure the supplier's page names); an open amount counts once the supplier filled it.
    for (const p of ready.items) if (p.totalAgorot > 0) totals.set(p.currency, (totals.get(p.currency) ?? 0) + p.totalAgorot);
    const open = (p: { status: string }) => p.status !== 'paid' && p.status !== 'canceled';
    const flaggedOpen = [...flagged.items.filter(open), ...review.items.filter((p) => p.needsReview && !p.payoutChanged)];
    const waiting = invoices.items.filter((i) => i.readingStatus !== 'read' || i.duplicateOf || !i.supplierKey || i.readingMismatch);
    // A failed message's row names the message last (core/outbox.ts onFailed); older rows name only what it was about.
    const failed = activity.items.filter((a) => a.operation === 'messageFailed');
    const messages = failed.length ? await ctx.store.getAll(failed.map((a) => outboxPath(ctx.caller.businessId, a.targetIds.at(-1) ?? ''))) : [];
    return {
      ready: {
        items: [...ready.items].sort((a, b) => Number(b.payoutChanged) - Number(a.payoutChanged)),
        count: ready.total,
        totals: [...totals].map(([currency, amountAgorot]) => ({ currency, amountAgorot })),
        totalsComplete: ready.total <= ready.items.length,
      },
      flagged: flaggedOpen,
      invoices: {
        unread: waiting.filter((i) => i.readingStatus !== 'read').length,
        duplicates: waiting.filter((i) => i.duplicateOf).length,
        noSupplier: waiting.filter((i) => !i.supplierKey).length,
        items: waiting,
      },
      failedMessages: failed.map(({ id, at, targetIds, summary }, i) => {
        const r = messages[i]?.data as unknown as OutboxRecord | undefined;
        const resend = r && r.ref && LINK_REASONS.has(r.reason) && r.status !== 'delivered' ? { paymentId: r.ref, channel: r.channel === 'whatsapp' ? ('wa' as const) : ('em' as const) } : null;
        return { id, at, targetIds, summary, resend, message: r ? { channel: r.channel, to: r.to, status: r.status, reason: r.reason } : null };
      }),
    };
  },
});
