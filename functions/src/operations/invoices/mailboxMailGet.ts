import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { input } from '../../core/schema.ts';
import { notFound } from '../../core/errors.ts';
import { mailsPath, type ScannedMail } from '../../domain/mail/mailImport.ts';
import { withMailbox } from '../../domain/mail/mailboxes.ts';
import { mailView } from '../../domain/mail/mailView.ts';

export default defineOperation({
  name: 'mailboxMailGet',
  group: 'invoices',
  summary: 'One scanned mail: headers, the body as sanitized HTML, attachment names',
  description: 'The body is fetched from the mailbox and cleaned with an allow-list: no scripts, event handlers, forms, styles or remote resources.',
  flags: { readOnly: true, openWorld: true },
  input: input({ seenId: z.string().min(1).max(200).regex(/^[^/]+$/, 'not a valid id').describe('The seenId of a mail from mailsList.') }),
  output: z.object({
    seenId: z.string(),
    accountId: z.string(),
    result: z.string(),
    headers: z.object({ from: z.string(), to: z.string(), cc: z.string(), subject: z.string(), date: z.string() }),
    html: z.string(),
    attachments: z.array(z.string()),
  }),
  async run({ seenId }, ctx) {
    const { businessId } = ctx.caller;
    const doc = await ctx.store.get(mailsPath(businessId, seenId));
    if (!doc) throw notFound(`seenId: mail ${seenId}`, 'mail');
    const m = doc.data as unknown as ScannedMail;
    const message = await withMailbox(ctx, businessId, m.accountId, (s) => s.getMessage(m.messageId, 'full'));
    return { seenId, accountId: m.accountId, result: m.result, ...mailView(message.payload) };
  },
});
