import { assertNotInOpenRun } from '../../domain/payruns/payRuns.ts';
import { z } from 'zod';
import { defineOperation } from '../../core/defineOperation.ts';
import { bool, day, emailOrEmpty, id, input, int, LIMITS, text, multilineText } from '../../core/schema.ts';
import { checkDueDate } from '../../domain/payments/dueDates.ts';
import { approverNotices } from '../../domain/payments/approvalNotices.ts';
import { businessContact } from '../../domain/payments/paymentMessages.ts';
import { invalid, precondition } from '../../core/errors.ts';
import { normalizeEmail, normalizePhone, requireMobileForWhatsApp, supplierKeyOf } from '../../domain/contacts.ts';
import { CURRENCIES, MAX_AMOUNT_AGOROT } from '../../domain/money.ts';
import { normalizePayMethods, PAY_METHODS, paymentSearchTokens, paymentsPath, SETTINGS_RULES, statusAfterSubmission, type Channel, type PaymentRecord } from '../../domain/payments/payments.ts';
import { recordPaymentToSupplier, suppliersPath, type SupplierRecord } from '../../domain/payments/suppliers.ts';
import { getPayment, PHONE_MAX, paymentView, paymentViewSchema, viewDeps } from '../../domain/payments/paymentView.ts';
import { defaultNoVat } from '../../domain/vat.ts';

type Settings = Pick<
  PaymentRecord,
  'invoiceRequired' | 'payMethods' | 'amountAgorot' | 'currency' | 'vatIncluded' | 'noVat' | 'description' | 'supplierName' | 'supplierPhone' | 'supplierEmail' | 'channel' | 'dueDate'
>;
type Field = keyof Settings;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** A record written before noVat existed has none: it means false. */
const current = (p: PaymentRecord, f: Field) => (f === 'noVat' ? p.noVat === true : f === 'dueDate' ? (p.dueDate ?? null) : (p[f] ?? null));

export default defineOperation({
  name: 'updatePaymentSettings',
  group: 'payments',
  summary: "Change a payment's settings, within the rules of its state",
  description:
    'Change a payment\'s settings; send only the fields to change. invoiceRequired and payMethods any time until canceled; amountAgorot, currency, vatIncluded, noVat, description and dueDate while unpaid; supplierName, supplierPhone, supplierEmail and channel until the supplier has filled payout details. "" clears supplierPhone or supplierEmail, but one of them must remain.',
  flags: {},
  input: input({
    paymentId: id().describe('Payment id (from createPayment or paymentsList).'),
    invoiceRequired: bool().optional().describe('true: ready only with an invoice attached.'),
    payMethods: z.array(z.enum(PAY_METHODS)).max(2).optional().describe('Payout methods offered: bank, bit (both = free choice).'),
    amountAgorot: int().min(0).max(MAX_AMOUNT_AGOROT).optional().describe('New amount in agorot (1 ILS = 100), while unpaid; at most 1,000,000,000.'),
    currency: z.enum(CURRENCIES).optional().describe('ILS, USD or EUR, while unpaid.'),
    vatIncluded: bool().optional().describe('true when the amount includes VAT.'),
    noVat: bool().optional().describe('true: no VAT applies (a supplier abroad, an exempt dealer), while unpaid. A currency change without noVat sets it to the new currency\'s default (true for USD and EUR).'),
    description: multilineText(LIMITS.text).trim().min(1).optional().describe('What the payment is for; shown to the supplier.'),
    supplierName: text().trim().min(1).optional().describe('Supplier name, until payout details are filled.'),
    supplierPhone: text(PHONE_MAX).optional().describe('Supplier phone; "" clears (one of phone or email must remain).'),
    supplierEmail: emailOrEmpty().optional().describe('Supplier email; "" clears (one of phone or email must remain).'),
    channel: z.enum(['wa', 'em', 'link']).optional().describe('wa, em or link.'),
    dueDate: day().nullable().optional().describe('YYYY-MM-DD, null clears; while unpaid.'),
  }),
  output: paymentViewSchema,
  async run({ paymentId, ...sent }, ctx) {
    const { businessId } = ctx.caller;
    // Normalised before the transaction, so a bad value is refused without a read.
    const wanted: Partial<Settings> = {};
    if (sent.invoiceRequired !== undefined) wanted.invoiceRequired = sent.invoiceRequired;
    if (sent.payMethods !== undefined) wanted.payMethods = normalizePayMethods(sent.payMethods);
    if (sent.amountAgorot !== undefined) wanted.amountAgorot = sent.amountAgorot;
    if (sent.currency !== undefined) wanted.currency = sent.currency;
    if (sent.vatIncluded !== undefined) wanted.vatIncluded = sent.vatIncluded;
    if (sent.noVat !== undefined) wanted.noVat = sent.noVat;
    if (sent.description !== undefined) wanted.description = sent.description;
    if (sent.supplierName !== undefined) wanted.supplierName = sent.supplierName;
    if (sent.supplierPhone !== undefined) wanted.supplierPhone = sent.supplierPhone.trim() ? normalizePhone(sent.supplierPhone, 'supplierPhone') : null;
    if (sent.supplierEmail !== undefined) wanted.supplierEmail = sent.supplierEmail.trim() ? normalizeEmail(sent.supplierEmail, 'supplierEmail') : null;
    if (sent.channel !== undefined) wanted.channel = sent.channel;
    if (sent.dueDate !== undefined) wanted.dueDate = checkDueDate(sent.dueDate);

    const at = new Date(ctx.clock.now()).toISOString();
    const updated = await ctx.store.runTransaction(async (tx) => {
      const p = await getPayment(tx, businessId, paymentId);
      // A new currency brings its VAT default (USD and EUR: no Israeli VAT; the supplier's card when exempt) unless noVat was sent.
      if (wanted.currency !== undefined && wanted.currency !== p.currency && wanted.noVat === undefined) {
        const supplier = (await tx.get(suppliersPath(businessId, p.supplierKey)))?.data as unknown as SupplierRecord | undefined;
        wanted.noVat = defaultNoVat(wanted.currency, supplier?.card?.businessType);
      }
      // Only real changes are judged by the rules, so resending the current settings is harmless.
      const changed = (Object.keys(wanted) as Field[]).filter((f) => !same(wanted[f], current(p, f)));
      for (const field of changed) {
        const rule = SETTINGS_RULES.find((r) => (r.fields as readonly string[]).includes(field))!;
        if (!rule.allowed(p)) {
          const state = p.payout && rule.rule.startsWith('rule 3') ? `${p.status}, payout details filled` : p.status;
          throw precondition(`${rule.rule}: ${field} can change only ${rule.when}; this payment is ${state}. Nothing was changed.`, { reason: 'settingLocked', params: { status: p.status } });
        }
      }
      if (changed.length === 0) return p;
      // What a run's bank file holds (the amount paid) cannot move under it.
      const paid = changed.find((f) => f === 'amountAgorot' || f === 'currency' || f === 'vatIncluded' || f === 'noVat');
      if (paid) await assertNotInOpenRun(tx, p, paid);

      const next: PaymentRecord = { ...p };
      for (const field of changed) (next as Record<Field, unknown>)[field] = wanted[field];
      if (!next.supplierPhone && !next.supplierEmail) {
        throw invalid(wanted.supplierPhone === null ? 'supplierPhone' : 'supplierEmail', 'a payment needs a supplierPhone or a supplierEmail; this change would leave neither', { reason: 'supplierContactRequired' });
      }
      if (changed.includes('amountAgorot')) {
        // A fixed amount ends the supplier's choice; 0 is only meaningful while the supplier fills it.
        if (next.amountAgorot > 0) next.openAmount = false;
        else if (!next.openAmount) throw invalid('amountAgorot', 'must be a positive integer (0 only on an open-amount payment)', { reason: 'amountNotPositive' });
      }
      if (changed.includes('channel')) {
        if (next.channel === 'wa' && !next.supplierPhone) throw invalid('channel', 'wa needs a supplierPhone', { reason: 'channelNeedsPhone' });
        if (next.channel === 'em' && !next.supplierEmail) throw invalid('channel', 'em needs a supplierEmail', { reason: 'channelNeedsEmail' });
      } else if (next.channel !== 'link' && (changed.includes('supplierPhone') || changed.includes('supplierEmail'))) {
        // Same choice as createPayment: WhatsApp when there is a phone, else email.
        next.channel = (next.supplierPhone ? 'wa' : 'em') satisfies Channel;
      }
      if (next.channel === 'wa' && (changed.includes('channel') || changed.includes('supplierPhone'))) {
        requireMobileForWhatsApp(next.supplierPhone!, changed.includes('supplierPhone') ? 'supplierPhone' : 'channel');
      }
      next.supplierKey = supplierKeyOf({ phone: next.supplierPhone, email: next.supplierEmail });
      next.search = paymentSearchTokens(next);
      // Toggling invoiceRequired after the submission moves between ready and awaiting_invoice.
      if (next.payout && (next.status === 'ready' || next.status === 'awaiting_invoice')) {
        next.status = statusAfterSubmission(next);
        if (next.status === 'ready' && p.status !== 'ready') next.readyAt = at;
      }
      next.updatedAt = at;

      const keyMoved = next.supplierKey !== p.supplierKey;
      const supplierDoc = keyMoved ? await tx.get(suppliersPath(businessId, next.supplierKey)) : null;
      // Turning ready here (invoiceRequired dropped) tells the approvers as the supplier page does; reads come before the writes.
      const notices = next.status === 'ready' && p.status !== 'ready' ? await approverNotices(ctx.config, tx, p, next, await businessContact(tx, businessId)) : [];
      const { id: _id, businessId: _b, ...fields } = next;
      tx.update(paymentsPath(businessId, paymentId), fields);
      // The supplier page records the supplier's side on the supplier of the payment's key, so it must exist.
      if (keyMoved) recordPaymentToSupplier(tx, businessId, (supplierDoc?.data as unknown as SupplierRecord) ?? null, next, at);
      for (const n of notices) ctx.outbox(tx, n.message, { id: n.id, ref: next.id, reason: 'approvalNeeded' });
      return next;
    });
    return paymentView(updated, viewDeps(ctx));
  },
  activity: (input, result) => {
    const fields = Object.keys(input).filter((k) => k !== 'paymentId' && input[k as keyof typeof input] !== undefined);
    return { params: { supplier: result.supplierName }, targetIds: [result.id], summary: `updated ${fields.join(', ') || 'nothing'} on the payment to ${result.supplierName}` };
  },
});
