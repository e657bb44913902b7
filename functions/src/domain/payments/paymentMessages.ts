import type { Config } from '../../config.ts';
import type { OutboundMessage } from '../../ports/outbox.ts';
import type { Reader } from '../../ports/store.ts';
import { formatAmount } from '../money.ts';
import { amountWords } from '../vat.ts';
import { ownerLinks } from '../../core/links.ts';
import { ownerNoticeEmail, paymentPaidEmail, paymentRequestEmail, type BusinessIdentity, type OwnerNotice } from '../../emails/messages.ts';
import type { EmailLang } from '../../emails/render.ts';
import { paymentLinkUrl, type PaymentRecord } from './payments.ts';
import { businessPath, profileOf, usersPath, type BusinessRecord } from '../business.ts';

/**
 * Every message a payment causes (spec §6). WhatsApp goes as an approved template whose
 * URL button carries the link path; email carries the full link, as HTML and plain text
 * (emails/messages.ts), Hebrew unless the supplier is marked English.
 */
type Cfg = Pick<Config, 'publicLinkBase' | 'dashboardUrl' | 'whatsappTemplates' | 'productName'>;

/** The amount as the page names it (VAT included), or the words for an amount the supplier fills in. */
const amountText = (cfg: Cfg, p: PaymentRecord) =>
  p.openAmount && p.amountAgorot === 0 ? (cfg.whatsappTemplates.language === 'he' ? 'סכום שממלאים בדף' : 'an amount you fill in') : amountWords(p, 'he').figure;

/** The suffix of the template's URL button: the link with the public base cut off. */
const buttonSuffix = (cfg: Cfg, url: string) => (url.startsWith(cfg.publicLinkBase + '/') ? url.slice(cfg.publicLinkBase.length + 1) : url);

function whatsapp(cfg: Cfg, to: string, template: string, bodyParams: string[], url: string): OutboundMessage {
  return { channel: 'whatsapp', to, template, language: cfg.whatsappTemplates.language, bodyParams, urlButtonParam: buttonSuffix(cfg, url) };
}

/**
 * The language a supplier reads: what they used the page in last (this payment's, else the supplier's),
 * else English for a foreign currency (the supplier is abroad), else Hebrew.
 */
export function supplierLang(p: Pick<PaymentRecord, 'supplierLang' | 'currency'>, supplier?: { lang?: 'he' | 'en' } | null): EmailLang {
  return p.supplierLang ?? supplier?.lang ?? (p.currency && p.currency !== 'ILS' ? 'en' : 'he');
}

/** The supplier link, by WhatsApp to the phone and by email to the address; `only` narrows to one channel (resendPayment). */
export async function paymentRequestMessages(cfg: Cfg, p: PaymentRecord, business: BusinessIdentity, lang: EmailLang, only?: 'wa' | 'em'): Promise<OutboundMessage[]> {
  const url = paymentLinkUrl(cfg.publicLinkBase, p.linkToken);
  const out: OutboundMessage[] = [];
  if (p.supplierPhone && only !== 'em') out.push(whatsapp(cfg, p.supplierPhone, cfg.whatsappTemplates.paymentRequest, [business.businessName || business.businessNameEn, amountText(cfg, p), p.description], url));
  if (p.supplierEmail && only !== 'wa') out.push(await paymentRequestEmail(cfg, business, p, url, lang));
  return out;
}

/** markPaid tells the supplier, on every contact the payment has; the email links the proof when there is one. */
export async function paymentPaidMessages(cfg: Cfg, p: PaymentRecord, business: BusinessIdentity, lang: EmailLang, proofUrl: string | null): Promise<OutboundMessage[]> {
  const url = paymentLinkUrl(cfg.publicLinkBase, p.linkToken);
  const out: OutboundMessage[] = [];
  if (p.supplierPhone) out.push(whatsapp(cfg, p.supplierPhone, cfg.whatsappTemplates.paymentPaid, [business.businessName || business.businessNameEn, amountWords(p, 'he').figure], url));
  if (p.supplierEmail) out.push(await paymentPaidEmail(cfg, business, p, url, proofUrl, lang));
  return out;
}

/** Who the business is (for messages in its name) and where its notifications go. */
export interface BusinessContact extends BusinessIdentity {
  /** The owner's email. */
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
    businessNameEn: profile.businessNameEn || profile.nameEn,
    companyId: profile.companyId,
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
    ? `אזהרה: פרטי התשלום שונים מאלה שמוכרים לך לספק הזה (קודם ${p.payoutChange.previous}, עכשיו ${p.payoutChange.filed}). ` +
      'שינוי פרטי בנק הוא הדרך הנפוצה ביותר להונות עסקים. לפני התשלום יש להתקשר לספק במספר שכבר מוכר לך.'
    : '';

/**
 * The business is told a payment turned ready, that an invoice arrived on a paid payment, or that a visitor
 * filed a request through the standing link (with a fraud warning when the payout changed), per its notify flags.
 */
export async function businessNotifications(cfg: Cfg, kind: OwnerNotice, p: PaymentRecord, to: BusinessContact): Promise<OutboundMessage[]> {
  const url = ownerLinks(cfg.dashboardUrl).payment(p.id);
  const wantWa = kind === 'lateInvoice' ? to.notifyLateInvoiceWhatsApp : to.notifyUploadWhatsApp;
  const wantEmail = kind === 'lateInvoice' ? to.notifyLateInvoiceEmail : to.notifyUploadEmail;
  const out: OutboundMessage[] = [];
  if (wantWa && to.phone) {
    const template = kind === 'lateInvoice' ? cfg.whatsappTemplates.lateInvoice : cfg.whatsappTemplates.paymentReady;
    out.push({ channel: 'whatsapp', to: to.phone, template, language: cfg.whatsappTemplates.language, bodyParams: [p.supplierName, amountWords(p, 'he').figure], urlButtonParam: `payments/${p.id}` });
  }
  if (wantEmail && to.email) out.push(await ownerNoticeEmail(cfg, to, kind, p, to.email, url, payoutChangeWarning(p) || null));
  return out;
}
