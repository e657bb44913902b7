import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { ingestAttachment, mailsPath, type ScannedMail } from '../../domain/mail/mailImport.ts';
import { withMailbox } from '../../domain/mail/mailboxes.ts';
import { mailHtml, mailText } from '../../domain/mail/mailView.ts';
import { BODY_PART, bodyPdfName, mailToPdf } from '../../domain/mail/mailPdf.ts';
import { invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { folderRulesPath, loadRules, MAX_RULES, type FolderRuleRecord } from '../../domain/invoices/folderRules.ts';

const senderEmail = (from: string) => (/<([^>]+)>/.exec(from)?.[1] ?? from).trim().toLowerCase();

export default defineOperation({
  name: 'mailboxMailAsInvoice',
  group: 'invoices',
  summary: "Turn a scanned mail's body into an invoice (printed to PDF, read by AI)",
  description:
    'The body is printed to a PDF (sender, subject and date on top; Hebrew kept), read by AI (the AI quota applies) and filed like an attachment: duplicates, supplier, folder rules. ' +
    'rememberSender adds a folder rule that turns this sender\'s mail bodies into invoices from now on.',
  flags: { openWorld: true },
  input: input({
    seenId: z.string().min(1).max(200).regex(/^[^/]+$/, 'not a valid id').describe('The seenId of a mail from mailsList.'),
    rememberSender: bool().describe('true also adds a folder rule (bodyInvoice) for this sender.'),
  }),
  output: z.object({ seenId: z.string(), outcome: z.enum(['imported', 'duplicate', 'error']), docId: z.string().nullable(), duplicateOf: z.string().nullable(), reason: z.string(), ruleId: z.string().nullable() }),
  async run({ seenId, rememberSender }, ctx) {
    const { businessId } = ctx.caller;
    const doc = await ctx.store.get(mailsPath(businessId, seenId));
    if (!doc) throw notFound(`seenId: mail ${seenId}`, 'mail');
    const m = doc.data as unknown as ScannedMail;
    const message = await withMailbox(ctx, businessId, m.accountId, (s) => s.getMessage(m.messageId, 'full'));
    const pdf = await mailToPdf({ from: m.from, subject: m.subject, date: m.date, text: mailText(message.payload), html: mailHtml(message.payload) });
    const out = await ingestAttachment(ctx, { businessId, accountId: m.accountId, messageId: m.messageId, from: m.from, subject: m.subject, date: m.date, fileName: bodyPdfName(m.subject), partId: BODY_PART, bytes: pdf });
    const docId = out.outcome === 'imported' ? out.docId : null;
    if (docId) {
      await ctx.store.update(mailsPath(businessId, seenId), { result: 'imported', invoices: (m.invoices ?? 0) + 1, docIds: [...new Set([...(m.docIds ?? []), docId])] });
    }
    let ruleId: string | null = null;
    if (rememberSender && docId) {
      const invoice = (await ctx.store.get(invoicesPath(businessId, docId)))?.data as unknown as InvoiceDoc | undefined;
      const from = senderEmail(m.from);
      ruleId = await ctx.store.runTransaction(async (tx) => {
        const rules = await loadRules(tx, businessId);
        const same = rules.find((r) => r.bodyInvoice && r.when.from === from);
        if (same) return same.id;
        if (rules.length >= MAX_RULES) throw precondition(`a business can have at most ${MAX_RULES} folder rules`, { reason: 'tooManyRules', params: { max: MAX_RULES } });
        const now = iso(ctx.clock.now());
        const rule: FolderRuleRecord = {
          id: ctx.ids(),
          when: { from, subject: '', words: '', notWords: '', supplier: '', amountOp: '', amount: 0, currency: '', docType: '', payMethod: '', category: '', accountId: '', source: 'mailbox' },
          folderId: invoice?.folderId ?? '',
          bodyInvoice: true,
          enabled: true,
          order: rules.length ? Math.max(...rules.map((r) => r.order)) + 1 : 0,
          createdAt: now,
          updatedAt: now,
          applyCursor: '',
        };
        tx.set(folderRulesPath(businessId, rule.id), { ...rule });
        return rule.id;
      });
    }
    return {
      seenId,
      outcome: out.outcome,
      docId,
      duplicateOf: out.outcome === 'duplicate' ? out.duplicateOf : null,
      reason: out.outcome === 'error' ? out.reason : '',
      ruleId,
    };
  },
  activity: (_i, r) => ({ params: { outcome: r.outcome, remembered: !!r.ruleId }, targetIds: [r.seenId, ...(r.docId ? [r.docId] : [])], summary: `turned a mail body into an invoice: ${r.outcome}${r.ruleId ? ', sender remembered' : ''}` }),
});
