import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { email, input, month } from '../../core/schema.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { pastMonth } from '../../domain/months.ts';
import { buildAccZip } from '../../domain/accountant/accZip.ts';
import { accPackageEmail, ATTACH_ZIP_UNDER_BYTES } from '../../domain/accountant/monthPackage.ts';
import { businessContact } from '../../domain/payments/paymentMessages.ts';

export default defineOperation({
  name: 'accZipSend',
  group: 'accountant',
  summary: "Email the accountant's ZIP of a month range to the recipients",
  description:
    'Builds the ZIP accZip builds for the whole accountant tree and the months from–to, and emails each recipient its capability link; ' +
    `a ZIP under ${ATTACH_ZIP_UNDER_BYTES / 1048576} MB is attached as well (mail servers refuse larger messages). ` +
    'It goes through the outbox: an SMTP outage of up to about a day only delays the mail (retries over about 27 hours); a longer one leaves it not sent, shown on the home screen to send again.',
  flags: { openWorld: true },
  input: input({
    from: month().describe('First month, YYYY-MM (inclusive).'),
    to: month().describe('Last month, YYYY-MM (inclusive).'),
    recipients: z.array(email()).min(1).max(10).describe('Email addresses, 1 to 10.'),
  }),
  output: z.object({
    from: z.string(),
    to: z.string(),
    recipients: z.array(z.string()),
    fileId: z.string(),
    fileName: z.string(),
    url: z.string(),
    size: z.int(),
    entries: z.int(),
    missing: z.int(),
    attached: z.boolean(),
    messageIds: z.array(z.string()),
  }),
  async run({ from, to, recipients }, ctx) {
    for (const [field, v] of [['from', from], ['to', to]] as const) pastMonth(v, ctx.clock.now(), field);
    if (from > to) throw invalid('from', `${from} is after to (${to})`, { reason: 'dateRangeReversed' });
    const { businessId } = ctx.caller;
    const rcpt = [...new Set(recipients)];
    const { file, entries, missing } = await buildAccZip(ctx, businessId, undefined, { from, to }, ctx.clock.now());
    const business = await businessContact(ctx.store, businessId);
    if (!business) throw notFound('business', 'business');
    const zip = { businessId, fileId: file.fileId, fileName: file.fileName, url: file.url, size: file.size, entries, missing, expiresAt: file.expiresAt };
    const emails = await Promise.all(rcpt.map((addr) => accPackageEmail(ctx.config, business, addr, { from, to }, zip)));
    const messageIds = await ctx.store.runTransaction(async (tx) => emails.map((mail) => ctx.outbox(tx, mail, { reason: 'accZipSend' }).split('/').at(-1)!));
    return { from, to, recipients: rcpt, fileId: file.fileId, fileName: file.fileName, url: file.url, size: file.size, entries, missing, attached: file.size < ATTACH_ZIP_UNDER_BYTES, messageIds };
  },
  activity: (input, result) => ({ params: { from: result.from, to: result.to, count: result.entries, recipients: result.recipients.length }, targetIds: result.messageIds, summary: `sent the accountant's package ${result.from} – ${result.to} (${result.entries} file(s)) to ${result.recipients.length} recipient(s)` }),
});
