import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { id, input } from '../../core/schema.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { businessPath, profileOf } from '../../domain/business.ts';
import { invoicesPath, type InvoiceDoc } from '../../domain/invoices/invoices.ts';
import { paymentsPath, type PaymentRecord } from '../../domain/payments/payments.ts';
import { getPayment } from '../../domain/payments/paymentView.ts';
import { allocationNumberOf, israeliVatNumber, itaSettings, itaVerdict, withItaAccess } from '../../domain/invoices/ita.ts';

const amounts = z.object({ totalAgorot: z.int().nullable(), vatAgorot: z.int().nullable() });

/** The payment's supplier invoice to check: the earliest attached file first, then by upload time. */
function pickInvoice(payment: PaymentRecord, docs: InvoiceDoc[]): InvoiceDoc {
  const position = (d: InvoiceDoc) => {
    const i = (payment.invoices ?? []).findIndex((f) => f.fileId === d.fileId);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  const read = docs.filter((d) => d.readingStatus === 'read' && d.reading).sort((a, b) => position(a) - position(b) || a.createdAtMs - b.createdAtMs);
  if (!read.length) {
    throw precondition(
      (payment.invoices ?? []).length
        ? `analyze the payment's invoice first: its reading is missing (analyzeInvoice with paymentId ${payment.id})`
        : `the payment has no invoice yet; once the supplier attaches one, analyze it (analyzeInvoice with paymentId ${payment.id})`,
      (payment.invoices ?? []).length ? { reason: 'analyzeFirst' } : { reason: 'noInvoiceAttached' },
    );
  }
  const withNumber = read.find((d) => d.reading?.allocationNumber?.trim());
  if (!withNumber) throw precondition('the invoice has no allocation number: none was read on the supplier\'s invoice', { reason: 'noAllocationNumber' });
  return withNumber;
}

export default defineOperation({
  name: 'itaVerifyAllocation',
  group: 'account',
  summary: "Check a payment's invoice allocation number with the tax authority",
  description:
    "Check the allocation number on the payment's supplier invoice with the tax authority (ITA): takes the number and amounts from the invoice's AI reading, asks the ITA, and stores the verdict on the payment (match, amount_mismatch or not_found). Needs a valid ITA consent (itaConnectStart), the business's companyId (VAT number), and an analyzed invoice.",
  flags: { idempotent: true, openWorld: true },
  input: input({ paymentId: id().describe('Payment id (from createPayment or paymentsList).') }),
  output: z.object({
    paymentId: z.string().describe('Payment id (from createPayment or paymentsList).'),
    verdict: z.enum(['match', 'amount_mismatch', 'not_found']),
    allocationNumber: z.string(),
    docId: z.string(),
    checkedAt: z.string(),
    /** From the invoice reading. */
    invoice: amounts,
    /** From the ITA; null when it knows no such invoice. */
    ita: amounts.nullable(),
  }),
  async run({ paymentId }, ctx) {
    const { businessId } = ctx.caller;
    const payment = await getPayment(ctx.store, businessId, paymentId);
    const docs = await ctx.store.query({ collection: invoicesPath(businessId), where: [['paymentId', '==', paymentId], ['source', '==', 'supplier']] });
    const doc = pickInvoice(payment, docs.map((d) => d.data as unknown as InvoiceDoc));
    const reading = doc.reading!;
    const allocationNumber = allocationNumberOf(reading.allocationNumber);
    if (!allocationNumber) throw precondition(`the invoice's allocation number "${reading.allocationNumber}" is not one (9 or more digits expected); correct the reading or analyze the invoice again`, { reason: 'badAllocationNumber', params: { value: reading.allocationNumber ?? '' } });
    if (reading.totalMinor === null) throw precondition('the invoice reading has no total to compare; analyze the invoice again', { reason: 'readingNoTotal' });
    if (reading.currency && reading.currency !== 'ILS') throw precondition(`the invoice is in ${reading.currency}; allocation numbers are checked against amounts in ILS`, { reason: 'shekelsOnly', params: { currency: reading.currency } });

    const business = await ctx.store.get(businessPath(businessId));
    if (!business) throw notFound('business', 'business');
    const customerVat = israeliVatNumber(profileOf(business.data).companyId);
    if (!customerVat) throw precondition("the business's companyId must be its 9-digit VAT or company number (updateBusiness) before the tax authority can be asked", { reason: 'companyIdNeeded' });
    itaSettings(ctx.config);

    const issuerVat = israeliVatNumber(reading.issuer?.vatId);
    const details = await withItaAccess(ctx, businessId, (ita, token) =>
      ita.invoiceDetails(token, { customerVatNumber: customerVat, confirmationNumber: allocationNumber, vatNumber: issuerVat }),
    );
    const verdict = itaVerdict({ reading: { totalMinor: reading.totalMinor, vatMinor: reading.vatMinor, issuerVat }, details });

    const now = ctx.clock.now();
    const checkedAt = new Date(now).toISOString();
    await ctx.store.update(paymentsPath(businessId, paymentId), { itaVerdict: verdict, itaCheckedAt: checkedAt, itaAllocationNumber: allocationNumber, updatedAt: checkedAt });
    return {
      paymentId,
      verdict,
      allocationNumber,
      docId: doc.docId,
      checkedAt,
      invoice: { totalAgorot: reading.totalMinor, vatAgorot: reading.vatMinor },
      ita: details ? { totalAgorot: details.totalAgorot ?? (details.beforeVatAgorot ?? 0) + (details.vatAgorot ?? 0), vatAgorot: details.vatAgorot } : null,
    };
  },
  activity: ({ paymentId }, result) => ({ params: { verdict: result.verdict }, targetIds: [paymentId], summary: `tax authority check of allocation number: ${result.verdict}` }),
});
