import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { email, input, month as monthSchema } from '../../core/schema.ts';
import { invalid, notFound } from '../../core/errors.ts';
import { closedMonth } from '../../domain/months.ts';
import { buildStatementsZip, monthPackageEmail, recordSend, sendRef, systemAutomationRecipients } from '../../domain/accountant/monthPackage.ts';
import { businessContact } from '../../domain/payments/paymentMessages.ts';

export default defineOperation({
  name: 'statementsSend',
  group: 'statements',
  summary: "Email a month's package (a ZIP link) to the accountant",
  description:
    "To the recipients given, else the statements automation's. The email says which accounts are in and which are missing, with a capability link to the ZIP; " +
    'it goes through the outbox: an SMTP outage of up to about a day only delays it (retries over about 27 hours); a longer one leaves it not sent, shown on the home screen to send again. Records the send on each statement of the month: statementsList shows it sending, then sent, or failed with the reason once a message finally failed.',
  flags: { openWorld: true },
  input: input({
    month: monthSchema().describe('The closed month, YYYY-MM (2000-01 or later).'),
    recipients: z.array(email()).max(20).optional().describe("Email addresses; omit for the statements automation's recipients."),
  }),
  output: z.object({ month: z.string(), to: z.array(z.string()), url: z.string(), expiresAt: z.string().describe('When the link stops working: 7 days after the ZIP was made.'), accounts: z.array(z.string()), missing: z.array(z.string()), messageIds: z.array(z.string()) }),
  async run({ month, recipients }, ctx) {
    const m = closedMonth(month, ctx.clock.now());
    const { businessId } = ctx.caller;
    const to = recipients?.length ? [...new Set(recipients)] : await systemAutomationRecipients(ctx.store, businessId);
    if (!to.length) throw invalid('recipients', 'none given, and the statements automation has no recipients', { reason: 'noRecipients' });
    const zip = await buildStatementsZip(ctx, businessId, m, []);
    const business = await businessContact(ctx.store, businessId);
    if (!business) throw notFound('business', 'business');
    const emails = await Promise.all(to.map((addr) => monthPackageEmail(ctx.config, business, addr, m, zip)));
    const at = new Date(ctx.clock.now()).toISOString();
    const messageIds = await ctx.store.runTransaction(async (tx) => {
      const ids = emails.map((message) => ctx.outbox(tx, message, { reason: 'statementsSend', ref: sendRef(m) }));
      return ids.map((p) => p.split('/').at(-1)!);
    });
    await recordSend(ctx.store, businessId, m, { at, to, messageIds, zipFileId: zip.fileId, accounts: zip.accounts, missing: zip.missing });
    return { month: m, to, url: zip.url, expiresAt: zip.expiresAt, accounts: zip.accounts, missing: zip.missing, messageIds };
  },
  activity: (input, result) => ({ params: { month: result.month, recipients: result.to.length }, targetIds: result.messageIds, summary: `sent the ${result.month} package to ${result.to.length} recipient(s)` }),
});
