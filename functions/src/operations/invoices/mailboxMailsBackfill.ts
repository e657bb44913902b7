import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { empty } from '../../core/schema.ts';
import { headerOf, mailsPath, type ScannedMail } from '../../domain/mail/mailImport.ts';
import { withMailbox } from '../../domain/mail/mailboxes.ts';
import { searchTokensOf } from '../../domain/search.ts';
import { isApiError } from '../../core/errors.ts';

/** Mails scanned before sender, subject and date were kept have an empty `from`: those are filled, 40 a call. */
const BATCH = 40;

export default defineOperation({
  name: 'mailboxMailsBackfill',
  group: 'invoices',
  summary: 'Fill sender, subject and date on older scanned mails, 40 a call',
  description: 'Reads only the headers of each mail from its mailbox. Call again while remaining > 0; a mail whose mailbox is gone or needs reconnecting is skipped and counted in failed.',
  flags: { idempotent: true, openWorld: true },
  input: empty(),
  output: z.object({ filled: z.int(), failed: z.int(), remaining: z.int() }),
  async run(_input, ctx) {
    const { businessId } = ctx.caller;
    const missing = { collection: mailsPath(businessId), where: [['from', '==', ''] as [string, '==', string]] };
    const batch = (await ctx.store.query({ ...missing, limit: BATCH })).map((d) => d.data as unknown as ScannedMail);
    let filled = 0;
    let failed = 0;
    for (const m of batch) {
      try {
        const msg = await withMailbox(ctx, businessId, m.accountId, (s) => s.getMessage(m.messageId, 'metadata'));
        const from = headerOf(msg.payload, 'From') || '(no sender)';
        const subject = headerOf(msg.payload, 'Subject');
        const dateMs = Number.isFinite(msg.internalDate) && msg.internalDate > 0 ? msg.internalDate : Date.parse(m.createdAt);
        await ctx.store.update(mailsPath(businessId, m.seenId), { from, subject, date: new Date(dateMs).toISOString(), dateMs, search: searchTokensOf([from, subject], [], 120) });
        filled++;
      } catch (e) {
        if (!isApiError(e)) throw e;
        // Marked so the next call moves on to other mails rather than retrying this one forever.
        await ctx.store.update(mailsPath(businessId, m.seenId), { from: '(unavailable)' });
        failed++;
      }
    }
    return { filled, failed, remaining: await ctx.store.count(missing) };
  },
  activity: (_i, r) => ({ params: { count: r.filled, remaining: r.remaining }, targetIds: [], summary: `filled ${r.filled} older scanned mail(s); ${r.remaining} left` }),
});
