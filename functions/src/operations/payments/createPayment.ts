import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, day, emailText, id, input, int, LIMITS, text, multilineText } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { CURRENCIES, formatAmount, MAX_AMOUNT_AGOROT } from '../../domain/money.ts';
import { newPaymentLink, PAY_METHODS, type PaymentFile } from '../../domain/payments/payments.ts';
import { checkPaymentRequest, readPaymentRequest, writePaymentRequest } from '../../domain/payments/paymentRequest.ts';
import { PHONE_MAX, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { paymentAmounts } from '../../domain/vat.ts';

import { invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';

export default defineOperation({
  name: 'createPayment',
  group: 'payments',
  summary: 'Create a payment request and send the supplier its link',
  description:
    'Create a payment request to a supplier and send them its link: by WhatsApp to supplierPhone, by email to supplierEmail (both when both are given); channel "link" sends nothing. At least one of supplierPhone or supplierEmail is required. openAmount=true with amountAgorot 0 lets the supplier fill the amount.',
  flags: { openWorld: true },
  input: input({
    amountAgorot: int().min(0).max(MAX_AMOUNT_AGOROT).describe('Amount in agorot (1 ILS = 100); for USD/EUR, cents. 0 only with openAmount true. At most 1,000,000,000.'),
    vatIncluded: bool().describe('true when the amount includes VAT; the supplier page says so.'),
    noVat: bool()
      .optional()
      .describe(
        'true: no VAT applies (a supplier abroad, an exempt dealer): the amount is the whole sum, vatIncluded is moot, and the page, the messages and the totals show no VAT line. Default: true for USD and EUR and for a supplier whose card says exempt dealer (businessType patur), false otherwise.',
      ),
    description: multilineText(LIMITS.text).trim().min(1).describe('What the payment is for; shown to the supplier. New lines allowed.'),
    supplierName: text().trim().min(1).describe('Supplier or freelancer name, as the messages and the link page address them.'),
    openAmount: bool().default(false).describe('true lets the supplier fill the amount (send amountAgorot 0).'),
    currency: z.enum(CURRENCIES).default('ILS').describe('ILS (default), USD or EUR.'),
    invoiceRequired: bool().default(false).describe('true: the payment turns ready only once the supplier attaches an invoice (default false).'),
    payMethods: z.array(z.enum(PAY_METHODS)).max(2).optional().describe('Payout methods offered: bank, bit; omit or send both for free choice.'),
    supplierPhone: text(PHONE_MAX).optional().describe('Supplier phone (Israeli forms or E.164); gets the link by WhatsApp. One of phone or email is required.'),
    supplierEmail: emailText().optional().describe('Supplier email; gets the link by email. One of phone or email is required.'),
    channel: z.enum(['link']).optional().describe('link: send nothing (you share the link yourself). Default: WhatsApp when there is a phone, else email.'),
    dueDate: day().optional().describe('YYYY-MM-DD: when you mean to pay.'),
    invoiceDocId: id().optional().describe('An uploaded invoice document to attach to the payment (its file is copied).'),
  }),
  // The payment keeps the name given here; a known supplier keeps its own (issue 17): `supplier` says which.
  output: paymentViewSchema.extend({
    supplier: z
      .object({ key: z.string(), name: z.string() })
      .describe("The supplier record after this payment. A known supplier keeps its name (change it with saveSupplierContact); supplierName above names this payment only."),
  }),
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    // Everything is checked before the transaction, so a refused call writes nothing.
    const checked = checkPaymentRequest(input);

    const now = ctx.clock.now();
    const at = new Date(now).toISOString();
    const paymentId = ctx.ids();
    const link = newPaymentLink(ctx.config.publicLinkBase);

    // The payment gets its own copy of the uploaded invoice, so deleting the document never takes the payment's file.
    let copied: PaymentFile | null = null;
    let invoiceNumber = '';
    if (input.invoiceDocId) {
      const doc = await ctx.store.get(invoicesPath(businessId, input.invoiceDocId));
      if (!doc) throw notFound(`invoiceDocId: invoice document ${input.invoiceDocId}`, 'invoice');
      const d = doc.data as unknown as InvoiceDoc;
      const bytes = await ctx.files.read(businessId, d.fileId);
      if (!bytes) throw precondition(`invoiceDocId: invoice document ${input.invoiceDocId} has no stored file`, { reason: 'fileNoLongerStored' });
      const saved = await ctx.files.save(businessId, { fileName: d.fileName, contentType: d.contentType, bytes });
      copied = { fileId: saved.fileId, fileName: d.fileName, contentType: d.contentType, size: saved.size, sha256: d.sha256, uploadedAt: at, docId: d.docId };
      invoiceNumber = d.reading?.number ?? '';
    }

    let supplierName = input.supplierName;
    const record = await ctx.store.runTransaction(async (tx) => {
      const reads = await readPaymentRequest(tx, businessId, checked.contactKey);
      const business = reads.business;
      if (!business) throw notFound('business', 'business');
      // The uploaded document names its payment (the first one), so its view can compare its reading with it.
      const uploaded = input.invoiceDocId ? await tx.get(invoicesPath(businessId, input.invoiceDocId)) : null;
      const written = await writePaymentRequest(tx, ctx.config, {
        businessId,
        paymentId,
        input,
        checked,
        reads: { ...reads, business },
        link,
        createdBy: ctx.caller.userId,
        now,
        invoices: copied ? [copied] : [],
        invoiceNumber,
        outbox: (t, message) => void ctx.outbox(t, message, { ref: paymentId }),
      });
      if (uploaded && !uploaded.data.paymentId) tx.update(uploaded.path, { paymentId, updatedAt: at });
      supplierName = written.supplierName;
      return written.record;
    }).catch(async (e) => {
      if (copied) await ctx.files.remove(businessId, copied.fileId);
      throw e;
    });
    return { ...(await paymentView(record, viewDeps(ctx))), supplier: { key: record.supplierKey, name: supplierName } };
  },
  activity: (input, result) => ({
    params: { supplier: result.supplierName, amountAgorot: result.openAmount ? null : paymentAmounts(result).totalAgorot, currency: result.currency, channel: result.channel },
    targetIds: [result.id],
    summary: `payment request to ${result.supplierName}: ${result.openAmount ? 'open amount' : formatAmount(paymentAmounts(result).totalAgorot, result.currency)}, channel ${result.channel}`,
  }),
});
