import type { Config } from '../../config.ts';
import type { OutboundMessage } from '../../ports/outbox.ts';
import type { Reader } from '../../ports/store.ts';
import { formatAmount } from '../money.ts';
import { paymentLinkUrl, type PaymentRecord } from './payments.ts';
import { businessPath, profileOf, usersPath, type BusinessRecord } from '../business.ts';

/**
 * Every message a payment causes (spec §6). WhatsApp goes as an approved template whose
 * URL button carries the link path; email carries the full link.
 */
type Cfg = Pick<Config, 'publicLinkBase' | 'dashboardUrl' | 'whatsappTemplates'>;

const amountText = (p: PaymentRecord) => (p.openAmount && p.amountAgorot === 0 ? 'an amount you fill in' : formatAmount(p.amountAgorot, p.currency));

/** The suffix of the template's URL button: the link with the public base cut off. */
const buttonSuffix = (cfg: Cfg, url: string) => (url.startsWith(cfg.publicLinkBase + '/') ? url.slice(cfg.publicLinkBase.length + 1) : url);

function whatsapp(cfg: Cfg, to: string, template: string, bodyParams: string[], url: string): OutboundMessage {
  return { channel: 'whatsapp', to, template, language: cfg.whatsappTemplates.language, bodyParams, urlButtonParam: buttonSuffix(cfg, url) };
}

/** The supplier link, by WhatsApp to the phone and by email to the address; `only` narrows to one channel (resendPayment). */
export function paymentRequestMessages(cfg: Cfg, p: PaymentRecord, businessName: string, only?: 'wa' | 'em'): OutboundMessage[] {
  const url = paymentLinkUrl(cfg.publicLinkBase, p.linkToken);
  const out: OutboundMessage[] = [];
  if (p.supplierPhone && only !== 'em') out.push(whatsapp(cfg, p.supplierPhone, cfg.whatsappTemplates.paymentRequest, [businessName, amountText(p), p.description], url));
  if (p.supplierEmail && only !== 'wa') {
    out.push({
      channel: 'email',
      to: p.supplierEmail,
      subject: `${businessName}: payment request ${amountText(p)}`,
      text: `Hello ${p.supplierName},\n\n${businessName} wants to pay you ${amountText(p)} for: ${p.description}\n\nEnter your payout details${p.invoiceRequired ? ' and attach your invoice' : ''} here:\n${url}\n`,
    });
  }
  return out;
}

/** markPaid tells the supplier, on every contact the payment has. */
export function paymentPaidMessages(cfg: Cfg, p: PaymentRecord, businessName: string): OutboundMessage[] {
  const url = paymentLinkUrl(cfg.publicLinkBase, p.linkToken);
  const out: OutboundMessage[] = [];
  if (p.supplierPhone) out.push(whatsapp(cfg, p.supplierPhone, cfg.whatsappTemplates.paymentPaid, [businessName, formatAmount(p.amountAgorot, p.currency)], url));
  if (p.supplierEmail) {
    out.push({
      channel: 'email',
      to: p.supplierEmail,
      subject: `${businessName} paid you ${formatAmount(p.amountAgorot, p.currency)}`,
      text: `Hello ${p.supplierName},\n\n${businessName} marked your payment of ${formatAmount(p.amountAgorot, p.currency)} (${p.description}) as paid.\n\nDetails: ${url}\n`,
    });
  }
  return out;
}

export interface BusinessContact {
  businessName: string;
  email: string | null;
  /** Only a verified phone receives WhatsApp. */
  phone: string | null;
  notifyUploadWhatsApp: boolean;
  notifyUploadEmail: boolean;
  notifyLateInvoiceWhatsApp: boolean;
  notifyLateInvoiceEmail: boolean;
  /** The business opted in to standing-link filings starting `ready` (default false: they wait for review). */
  publicFilingsReady: boolean;
}

/** Reads where business notifications go: the owner's email, and their phone once verified. Call before any write in a transaction. */
export async function businessContact(reader: Reader, businessId: string): Promise<BusinessContact | null> {
  const business = await reader.get(businessPath(businessId));
  if (!business) return null;
  const b = business.data as unknown as BusinessRecord;
  const owner = await reader.get(usersPath(b.ownerUserId));
  const profile = profileOf(business.data);
  return {
    businessName: profile.businessName || profile.name,
    email: (owner?.data.email as string | undefined) ?? b.ownerEmail ?? null,
    phone: owner?.data.phoneVerified ? ((owner.data.phone as string | undefined) ?? null) : null,
    notifyUploadWhatsApp: profile.notifyUploadWhatsApp,
    notifyUploadEmail: profile.notifyUploadEmail,
    notifyLateInvoiceWhatsApp: profile.notifyLateInvoiceWhatsApp,
    notifyLateInvoiceEmail: profile.notifyLateInvoiceEmail,
    publicFilingsReady: profile.publicFilingsReady === true,
  };
}

/** What the business reads about a changed payout: changed bank details are the classic payment fraud. */
export const payoutChangeWarning = (p: PaymentRecord) =>
  p.payoutChanged && p.payoutChange
    ? `WARNING: the payout details differ from the ones you know for this supplier (before ${p.payoutChange.previous}, now ${p.payoutChange.filed}). ` +
      'Changed bank details are the classic way businesses are defrauded. Call the supplier on a number you already have before paying.'
    : '';

/**
 * The business is told a payment turned ready, that an invoice arrived on a paid payment, or that a visitor
 * filed a request through the standing link (with a fraud warning when the payout changed), per its notify flags.
 */
export function businessNotifications(cfg: Cfg, kind: 'ready' | 'lateInvoice' | 'publicFiling', p: PaymentRecord, to: BusinessContact): OutboundMessage[] {
  const url = `${cfg.dashboardUrl}/payments/${p.id}`;
  const wantWa = kind === 'lateInvoice' ? to.notifyLateInvoiceWhatsApp : to.notifyUploadWhatsApp;
  const wantEmail = kind === 'lateInvoice' ? to.notifyLateInvoiceEmail : to.notifyUploadEmail;
  const amount = formatAmount(p.amountAgorot, p.currency);
  const out: OutboundMessage[] = [];
  if (wantWa && to.phone) {
    const template = kind === 'lateInvoice' ? cfg.whatsappTemplates.lateInvoice : cfg.whatsappTemplates.paymentReady;
    out.push({ channel: 'whatsapp', to: to.phone, template, language: cfg.whatsappTemplates.language, bodyParams: [p.supplierName, amount], urlButtonParam: `payments/${p.id}` });
  }
  if (wantEmail && to.email) {
    const warning = payoutChangeWarning(p);
    out.push(
      kind === 'ready'
        ? { channel: 'email', to: to.email, subject: `${p.supplierName} is ready to be paid ${amount}`, text: `${p.supplierName} entered payout details for "${p.description}" (${amount}). The payment is ready.\n\n${url}\n` }
        : kind === 'publicFiling'
          ? {
              channel: 'email',
              to: to.email,
              subject: `${warning ? 'Check before paying: ' : ''}${p.supplierName} asked to be paid ${amount} through your public link`,
              text:
                `Someone filed a payment request through your public link as ${p.supplierName} for "${p.description}" (${amount}). ` +
                `Nobody verified who filed it. ${p.needsReview ? 'It waits for your review.' : 'It is ready to be paid.'}\n\n${warning ? warning + '\n\n' : ''}${url}\n`,
            }
          : { channel: 'email', to: to.email, subject: `${p.supplierName} added an invoice to a paid payment`, text: `${p.supplierName} attached an invoice to "${p.description}" (${amount}), which was already paid.\n\n${url}\n` },
    );
  }
  return out;
}
