import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, id, input, int, LIMITS, text } from '../../core/schema.ts';
import { invalid, notFound, precondition } from '../../core/errors.ts';
import { normalizeEmail, normalizePhone, supplierKeyOf } from '../../domain/contacts.ts';
import { CURRENCIES, formatAmount } from '../../domain/money.ts';
import { businessPath } from '../../domain/business.ts';
import { newPaymentLink, normalizePayMethods, PAY_METHODS, paymentSearchTokens, paymentsPath, type Channel, type PaymentFile, type PaymentRecord } from '../../domain/payments.ts';
import { paymentRequestMessages } from '../../domain/paymentMessages.ts';
import { recordPaymentToSupplier, suppliersPath, type SupplierRecord } from '../../domain/suppliers.ts';
import { businessNameOf, isDocId, PHONE_MAX, paymentView, paymentViewSchema, viewDeps } from '../../domain/paymentView.ts';

/** The invoice document an invoiceDocId names (invoices issue); only its file reference is used here. */
const invoiceDocPath = (businessId: string, docId: string) => `businesses/${businessId}/invoices/${docId}`;

export default defineOperation({
  name: 'createPayment',
  group: 'payments',
  summary:
    'Create a payment request to a supplier and send them its link: by WhatsApp to supplierPhone, by email to supplierEmail (both when both are given); channel "link" sends nothing. At least one of supplierPhone or supplierEmail is required. openAmount=true with amountAgorot 0 lets the supplier fill the amount.',
  flags: {},
  input: input({
    amountAgorot: int().min(0),
    vatIncluded: bool(),
    description: text(LIMITS.text).trim().min(1),
    supplierName: text().trim().min(1),
    openAmount: bool().default(false),
    currency: z.enum(CURRENCIES).default('ILS'),
    invoiceRequired: bool().default(false),
    payMethods: z.array(z.enum(PAY_METHODS)).max(2).optional(),
    supplierPhone: text(PHONE_MAX).optional(),
    supplierEmail: text(LIMITS.email).optional(),
    channel: z.enum(['link']).optional(),
    invoiceDocId: id().optional(),
  }),
  output: paymentViewSchema,
  async run(input, ctx) {
    const { businessId } = ctx.caller;
    // Everything is checked before the transaction, so a refused call writes nothing.
    if (input.openAmount && input.amountAgorot !== 0) throw invalid('amountAgorot', 'must be 0 when openAmount is true (the supplier fills the amount)');
    if (!input.openAmount && input.amountAgorot <= 0) throw invalid('amountAgorot', 'must be a positive integer (or 0 with openAmount true)');
    const phone = input.supplierPhone?.trim() ? normalizePhone(input.supplierPhone, 'supplierPhone') : null;
    const email = input.supplierEmail?.trim() ? normalizeEmail(input.supplierEmail, 'supplierEmail') : null;
    if (!phone && !email) throw invalid('supplierPhone', 'a supplierPhone or a supplierEmail is required');
    const supplierKey = supplierKeyOf({ phone, email });
    const channel: Channel = input.channel === 'link' ? 'link' : phone ? 'wa' : 'em';

    const now = ctx.clock.now();
    const at = new Date(now).toISOString();
    const paymentId = ctx.ids();
    const link = newPaymentLink(ctx.config.publicLinkBase);

    const record = await ctx.store.runTransaction(async (tx) => {
      const business = await tx.get(businessPath(businessId));
      if (!business) throw notFound('business');
      const supplierDoc = await tx.get(suppliersPath(businessId, supplierKey));
      let invoices: PaymentFile[] = [];
      let invoiceNumber = '';
      if (input.invoiceDocId) {
        const doc = isDocId(input.invoiceDocId) ? await tx.get(invoiceDocPath(businessId, input.invoiceDocId)) : null;
        if (!doc) throw notFound(`invoiceDocId: invoice document ${input.invoiceDocId}`);
        const d = doc.data as Record<string, any>;
        if (typeof d.fileId !== 'string') throw precondition(`invoiceDocId: invoice document ${input.invoiceDocId} has no stored file`);
        invoices = [{ fileId: d.fileId, fileName: d.fileName, contentType: d.contentType, size: d.size, sha256: d.sha256 ?? '', uploadedAt: d.createdAt ?? at }];
        invoiceNumber = typeof d.reading?.number === 'string' ? d.reading.number : '';
      }
      const p: PaymentRecord = {
        id: paymentId,
        businessId,
        status: 'sent',
        supplierName: input.supplierName,
        supplierPhone: phone,
        supplierEmail: email,
        supplierKey,
        amountAgorot: input.amountAgorot,
        openAmount: input.openAmount,
        currency: input.currency,
        vatIncluded: input.vatIncluded,
        invoiceRequired: input.invoiceRequired,
        payMethods: normalizePayMethods(input.payMethods),
        description: input.description,
        channel,
        linkToken: link.token,
        invoices,
        proof: null,
        payout: null,
        itaVerdict: null,
        invoiceNumber,
        search: [],
        submissions: [],
        viaPublicLink: false,
        createdAt: at,
        createdAtMs: now,
        updatedAt: at,
        sentAt: channel === 'link' ? null : at,
        supplierSubmittedAt: null,
        readyAt: null,
        paidAt: null,
        canceledAt: null,
      };
      p.search = paymentSearchTokens(p);
      tx.create(paymentsPath(businessId, paymentId), { ...p });
      tx.create(link.path, { businessId, paymentId });
      recordPaymentToSupplier(tx, businessId, (supplierDoc?.data as unknown as SupplierRecord) ?? null, p, at);
      if (channel !== 'link') {
        for (const message of paymentRequestMessages(ctx.config, p, businessNameOf(business.data))) ctx.outbox(tx, message);
      }
      return p;
    });
    return paymentView(record, viewDeps(ctx));
  },
  activity: (input, result) => ({
    targetIds: [result.id],
    summary: `payment request to ${result.supplierName}: ${result.openAmount ? 'open amount' : formatAmount(result.amountAgorot, result.currency)}, channel ${result.channel}`,
  }),
});
