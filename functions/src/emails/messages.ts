import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { EmailMessage } from '../ports/outbox.ts';
import { renderEmail, type EmailDoc, type EmailFact, type EmailLang } from './render.ts';
import { iso } from './bidi.ts';
import { amountWords } from '../domain/vat.ts';
import type { PaymentRecord } from '../domain/payments/payments.ts';

/**
 * The words of every email, Hebrew first, English for recipients marked English. Each builder returns
 * the message with its HTML and plain-text parts, From named for the business and Reply-To its email.
 */

/** Who a message speaks for. */
export interface BusinessIdentity {
  businessName: string;
  businessNameEn: string;
  companyId: string;
  /** The business's email (the owner's): replies go there. */
  email: string | null;
  /** A verified phone, E.164. */
  phone: string | null;
}

export interface MailCtx {
  productName: string;
}

const nameIn = (b: BusinessIdentity, lang: EmailLang) => (lang === 'en' ? b.businessNameEn || b.businessName : b.businessName || b.businessNameEn) || (lang === 'en' ? 'A business' : 'עסק');

/** "050-123-4567" for an Israeli number, the international form otherwise. */
export function phoneText(e164: string): string {
  const n = parsePhoneNumberFromString(e164);
  if (!n) return e164;
  return n.country === 'IL' ? n.formatNational() : n.formatInternational();
}

/** "3 Oct 2026" style date in Israel's time zone. */
const dayText = (isoTime: string, lang: EmailLang) =>
  new Intl.DateTimeFormat(lang === 'he' ? 'he-IL' : 'en-GB', { timeZone: 'Asia/Jerusalem', day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(isoTime));

/** Messages to suppliers name who sent them: the business, its company id and phone, and the product it used. */
function supplierFooter(b: BusinessIdentity, m: MailCtx, lang: EmailLang): string[] {
  const name = nameIn(b, lang);
  const ids: string[] = [];
  if (lang === 'he') {
    if (b.companyId) ids.push(`ח.פ./ע.מ. ${b.companyId}`);
    if (b.phone) ids.push(`טלפון ${phoneText(b.phone)}`);
    return [
      `ההודעה נשלחה בשם ${iso(name)}${ids.length ? ` (${ids.join(' · ')})` : ''} דרך ${m.productName}.`,
      b.email ? `תשובה להודעה הזו תגיע אל ${iso(name)}.` : `לשאלות יש לפנות אל ${iso(name)}.`,
      'לעולם לא נבקש סיסמה, קוד אימות או פרטי כרטיס אשראי.',
    ];
  }
  if (b.companyId) ids.push(`company id ${b.companyId}`);
  if (b.phone) ids.push(`phone ${phoneText(b.phone)}`);
  return [
    `Sent on behalf of ${iso(name)}${ids.length ? ` (${ids.join(' · ')})` : ''} via ${m.productName}.`,
    b.email ? `Replying to this email reaches ${iso(name)}.` : `Contact ${iso(name)} with any questions.`,
    'We never ask for a password, a verification code or card details.',
  ];
}

const ownerFooter = (b: BusinessIdentity, m: MailCtx, lang: EmailLang) =>
  lang === 'he' ? [`הודעה מ-${m.productName} אל ${iso(nameIn(b, 'he'))}.`] : [`A message from ${m.productName} to ${iso(nameIn(b, 'en'))}.`];

async function message(to: string, doc: EmailDoc, from: { name: string; replyTo: string | null }, extra: Partial<EmailMessage> = {}): Promise<EmailMessage> {
  const rendered = await renderEmail(doc);
  return { channel: 'email', to, subject: rendered.subject, text: rendered.text, html: rendered.html, fromName: from.name, ...(from.replyTo ? { replyTo: from.replyTo } : {}), ...extra };
}

const forSupplier = (b: BusinessIdentity, lang: EmailLang) => ({ name: nameIn(b, lang), replyTo: b.email });

/** The amount as the supplier page shows it; an open amount not filled yet has none. */
function amountOf(p: PaymentRecord, lang: EmailLang) {
  if (p.openAmount && p.amountAgorot === 0) return null;
  const w = amountWords(p, lang);
  return { figure: w.figure, note: w.vatLine };
}

const forFact = (p: PaymentRecord, lang: EmailLang): EmailFact[] => (p.description ? [{ label: lang === 'he' ? 'עבור' : 'For', value: p.description }] : []);

/** The supplier's payment link (createPayment, resendPayment). */
export function paymentRequestEmail(m: MailCtx, b: BusinessIdentity, p: PaymentRecord, url: string, lang: EmailLang): Promise<EmailMessage> {
  const name = nameIn(b, lang);
  const amount = amountOf(p, lang);
  const he = lang === 'he';
  const open = !amount;
  const doc: EmailDoc = {
    lang,
    subject: he ? `${name}: בקשת תשלום${open ? '' : ` על סך ${amount.figure}`}` : `${name}: payment request${open ? '' : ` for ${amount.figure}`}`,
    preheader: he ? `${iso(name)} מבקש/ת את פרטי התשלום שלך.` : `${iso(name)} asks for your payout details.`,
    heading: he ? `${iso(name)} רוצה לשלם לך` : `${iso(name)} wants to pay you`,
    paragraphs: [he ? `שלום ${iso(p.supplierName)},` : `Hello ${iso(p.supplierName)},`, ...(open ? [he ? 'את הסכום ממלאים בדף התשלום.' : 'You fill in the amount on the payment page.'] : [])],
    amount,
    facts: forFact(p, lang),
    action: {
      label: he ? `למילוי פרטי התשלום${p.invoiceRequired ? ' ולצירוף חשבונית' : ''}` : `Enter your payout details${p.invoiceRequired ? ' and attach your invoice' : ''}`,
      url,
    },
    after: [he ? 'הקישור אישי ומיועד לך בלבד.' : 'This link is personal; keep it to yourself.'],
    footer: supplierFooter(b, m, lang),
  };
  return message(p.supplierEmail!, doc, forSupplier(b, lang));
}

/** markPaid tells the supplier: one figure (what was paid) and the proof of transfer when there is one. */
export function paymentPaidEmail(m: MailCtx, b: BusinessIdentity, p: PaymentRecord, url: string, proofUrl: string | null, lang: EmailLang): Promise<EmailMessage> {
  const name = nameIn(b, lang);
  const he = lang === 'he';
  const { figure } = amountWords(p, lang);
  const facts = forFact(p, lang);
  if (p.paidAt) facts.push({ label: he ? 'תאריך' : 'Date', value: dayText(p.paidAt, lang) });
  const doc: EmailDoc = {
    lang,
    subject: he ? `${name} שילם לך ${figure}` : `${name} paid you ${figure}`,
    preheader: he ? `התשלום על סך ${figure} בוצע.` : `The payment of ${figure} was made.`,
    heading: he ? `${iso(name)} שילם לך` : `${iso(name)} paid you`,
    paragraphs: [he ? `שלום ${iso(p.supplierName)},` : `Hello ${iso(p.supplierName)},`, he ? `${iso(name)} סימן את התשלום כשולם.` : `${iso(name)} marked your payment as paid.`],
    amount: { figure, note: null },
    facts,
    links: proofUrl ? [{ label: he ? 'אסמכתת ההעברה' : 'Proof of transfer', url: proofUrl }] : [],
    action: { label: he ? 'לפרטי התשלום' : 'Payment details', url },
    footer: supplierFooter(b, m, lang),
  };
  return message(p.supplierEmail!, doc, forSupplier(b, lang));
}

/** revertPaid takes back a paid notice sent in error: the payment is not made yet. */
export function paymentPaidCorrectionEmail(m: MailCtx, b: BusinessIdentity, p: PaymentRecord, to: string, url: string, lang: EmailLang): Promise<EmailMessage> {
  const name = nameIn(b, lang);
  const he = lang === 'he';
  const { figure } = amountWords(p, lang);
  const doc: EmailDoc = {
    lang,
    subject: he ? `תיקון: התשלום מ${name} עוד לא בוצע` : `Correction: ${name} has not paid you yet`,
    preheader: he ? `ההודעה שהתשלום על סך ${figure} בוצע נשלחה בטעות.` : `The notice that ${figure} was paid was sent in error.`,
    heading: he ? `תיקון: התשלום עוד לא בוצע` : 'Correction: not paid yet',
    paragraphs: [
      he ? `שלום ${iso(p.supplierName)},` : `Hello ${iso(p.supplierName)},`,
      he
        ? `ההודעה ש${iso(name)} שילם לך נשלחה בטעות: התשלום עוד לא בוצע. הודעה נוספת תישלח כשהתשלום יבוצע.`
        : `The notice that ${iso(name)} paid you was sent in error: the payment has not been made yet. You will get another message once it is.`,
    ],
    amount: { figure, note: null },
    facts: forFact(p, lang),
    action: { label: he ? 'לפרטי התשלום' : 'Payment details', url },
    footer: supplierFooter(b, m, lang),
  };
  return message(to, doc, forSupplier(b, lang));
}

/** The standing-link filer's receipt: received, and waiting for the business's review (or for payment, when it skips review). */
export function filerReceiptEmail(m: MailCtx, b: BusinessIdentity, p: PaymentRecord, url: string, lang: EmailLang): Promise<EmailMessage> {
  const name = nameIn(b, lang);
  const he = lang === 'he';
  const review = p.needsReview === true;
  const w = amountWords(p, lang);
  const doc: EmailDoc = {
    lang,
    subject: he ? `בקשת התשלום שלך אל ${name} התקבלה` : `Your payment request to ${name} was received`,
    preheader: review ? (he ? `הבקשה ממתינה לבדיקה של ${iso(name)}.` : `It is waiting for ${iso(name)} to review it.`) : he ? `הבקשה ממתינה לתשלום.` : 'It is waiting to be paid.',
    heading: he ? `בקשת התשלום שלך אל ${iso(name)} התקבלה` : `Your payment request to ${iso(name)} was received`,
    paragraphs: [
      review
        ? he
          ? `הבקשה ממתינה לבדיקה של ${iso(name)}. אחרי הבדיקה היא תעבור לתשלום.`
          : `It is waiting for ${iso(name)} to review it. Once reviewed, it goes on to payment.`
        : he
          ? `הבקשה ממתינה לתשלום על ידי ${iso(name)}.`
          : `It is waiting for ${iso(name)} to pay it.`,
    ],
    amount: { figure: w.figure, note: w.vatLine },
    facts: forFact(p, lang),
    action: { label: he ? 'למעקב ולצירוף חשבונית' : 'Follow it and attach an invoice', url },
    footer: supplierFooter(b, m, lang),
  };
  return message(p.supplierEmail!, doc, forSupplier(b, lang));
}

export type OwnerNotice = 'ready' | 'lateInvoice' | 'publicFiling';

/** The business is told a payment turned ready, a late invoice arrived, or a request came through its standing link. */
export function ownerNoticeEmail(m: MailCtx, b: BusinessIdentity, kind: OwnerNotice, p: PaymentRecord, to: string, url: string, warning: string | null): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const w = amountWords(p, lang);
  const s = p.supplierName;
  const words = {
    ready: {
      subject: `${warning ? 'לבדוק לפני תשלום: ' : ''}${s} מוכן/ה לתשלום: ${w.figure}`,
      heading: `התשלום אל ${iso(s)} מוכן`,
      paragraphs: [`${iso(s)} מילא/ה את פרטי התשלום. אפשר לשלם.`],
    },
    publicFiling: {
      subject: `${warning ? 'לבדוק לפני תשלום: ' : ''}בקשת תשלום מ-${s} דרך הקישור הקבוע`,
      heading: `בקשת תשלום חדשה דרך הקישור הקבוע`,
      paragraphs: [
        `מישהו הגיש בקשת תשלום בשם ${iso(s)}. איש לא אימת מי הגיש אותה.`,
        p.needsReview ? 'הבקשה ממתינה לבדיקה שלך.' : 'הבקשה מוכנה לתשלום.',
      ],
    },
    lateInvoice: {
      subject: `${s} צירף/ה חשבונית לתשלום ששולם`,
      heading: `חשבונית חדשה לתשלום ששולם`,
      paragraphs: [`${iso(s)} צירף/ה חשבונית לתשלום שכבר שולם.`],
    },
  }[kind];
  const doc: EmailDoc = {
    lang,
    subject: words.subject,
    preheader: words.paragraphs[0],
    heading: words.heading,
    paragraphs: words.paragraphs,
    amount: { figure: w.figure, note: w.vatLine },
    facts: [{ label: 'ספק', value: s }, ...forFact(p, lang)],
    warning,
    action: { label: 'לפתיחת התשלום', url },
    footer: ownerFooter(b, m, lang),
  };
  return message(to, doc, { name: nameIn(b, lang), replyTo: null });
}

/** What an approver reads about a payment that turned ready and awaits approval (issue 36 §1). */
export interface ApprovalNeededFacts {
  /** Approvals a payment needs, and how many still count. */
  needed: number;
  given: number;
  /** The payment's due date, YYYY-MM-DD, or null. */
  dueDate: string | null;
  /** A policy is set, so its creator and whoever typed its payout details may not approve it. */
  fourEyes: boolean;
}

/** Each admin is told a payment that needs their approval is ready to pay (Hebrew, as the other owner emails). */
export function approvalNeededEmail(m: MailCtx, b: BusinessIdentity, p: PaymentRecord, to: string, url: string, f: ApprovalNeededFacts, warning: string | null): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const w = amountWords(p, lang);
  const s = p.supplierName;
  const doc: EmailDoc = {
    lang,
    subject: `${warning ? 'לבדוק לפני אישור: ' : ''}תשלום אל ${s} ממתין לאישור שלך: ${w.figure}`,
    preheader: `התשלום אל ${iso(s)} מוכן ומחכה לאישור של מנהל לפני שמשלמים אותו.`,
    heading: `תשלום אל ${iso(s)} ממתין לאישור`,
    paragraphs: [
      `התשלום אל ${iso(s)} מוכן לתשלום, וצריך אישור של מנהל לפני שמשלמים אותו.`,
      f.needed > 1 ? `נדרשים ${f.needed} אישורים של מנהלים שונים; עד עכשיו ניתנו ${f.given}.` : 'נדרש אישור אחד של מנהל.',
      ...(f.fourEyes ? ['מי שיצר את התשלום, או הקליד את פרטי הבנק בכרטיס הספק, לא יכול לאשר אותו.'] : []),
    ],
    amount: { figure: w.figure, note: w.vatLine },
    facts: [{ label: 'ספק', value: s }, ...forFact(p, lang), ...(f.dueDate ? [{ label: 'לתשלום עד', value: dayText(`${f.dueDate}T12:00:00Z`, lang) }] : [])],
    warning,
    action: { label: 'לאישור או לדחייה', url },
    footer: ownerFooter(b, m, lang),
  };
  return message(to, doc, { name: nameIn(b, lang), replyTo: null });
}

/** Who sends an invite: their name and email, or the email alone. */
export interface Inviter {
  name: string;
  email: string;
}

/** An invitation to join the business (inviteMember; resendInvite with `resent`, whose link replaces the one sent before). */
export function inviteEmail(m: MailCtx, b: BusinessIdentity, to: string, role: 'admin' | 'user', url: string, expiresAt: string, inviter: Inviter, resent = false): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const name = nameIn(b, lang);
  const by = inviter.name ? `${inviter.name} (${inviter.email})` : inviter.email;
  const doc: EmailDoc = {
    lang,
    subject: `${resent ? 'הזמנה חדשה' : 'הזמנה'} להצטרף אל ${name}`,
    preheader: `${iso(by)} הזמין/ה אותך לנהל את הכספים של ${iso(name)}.`,
    heading: `הוזמנת להצטרף אל ${iso(name)}`,
    paragraphs: [
      `${iso(by)} הזמין/ה אותך להצטרף אל ${iso(name)} ב-${m.productName} ${role === 'admin' ? 'כמנהל/ת' : 'כמשתמש/ת'}.`,
      ...(resent ? ['זו הזמנה חדשה: הקישור מההזמנה הקודמת כבר לא עובד. יש להשתמש בקישור שבהודעה הזו.'] : []),
    ],
    facts: [{ label: 'בתוקף עד', value: dayText(expiresAt, lang) }],
    action: { label: 'לקבלת ההזמנה', url },
    after: ['אם לא ציפית להזמנה הזו, אפשר להתעלם ממנה.'],
    footer: [`ההזמנה נשלחה בשם ${iso(name)} דרך ${m.productName}.`],
  };
  return message(to, doc, { name, replyTo: b.email });
}

/** "840 KB" under 1 MB, "3.2 MB" from there. */
export function sizeText(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.ceil(bytes / 1024))} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export interface MonthPackageFacts {
  month: string;
  url: string;
  size: number;
  /** When the link stops working and the package is deleted. */
  expiresAt: string;
  accounts: string[];
  missing: string[];
  attached: boolean;
  /** The accountant's ZIP of the month, linked (the statements automation's includeAccountantZip); it expires with its own date. */
  accountant?: { url: string; size: number; expiresAt: string; entries: number; missing: number } | null;
}

/** The month package to the accountant: what is in, what is missing, the link and its size. */
export function monthPackageEmail(m: MailCtx, b: BusinessIdentity, to: string, z: MonthPackageFacts, extra: Partial<EmailMessage>): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const name = nameIn(b, lang);
  const doc: EmailDoc = {
    lang,
    subject: `${name} – דפי חשבון ${z.month}${z.missing.length ? ` (חסרים ${z.missing.length})` : ''}`,
    preheader: `דפי החשבון של ${iso(name)} לחודש ${z.month}.`,
    heading: `דפי החשבון של ${z.month}`,
    paragraphs: [`${iso(name)} שולח/ת את דפי החשבון של החודש.`],
    facts: [
      { label: 'בחבילה', value: z.accounts.length ? z.accounts.join(', ') : 'אין דף חשבון מוכן לחודש הזה' },
      { label: 'חסרים', value: z.missing.length ? z.missing.join(', ') : 'לא חסר דבר' },
      { label: 'גודל', value: sizeText(z.size), ltr: true },
      { label: 'הקישור פעיל עד', value: dayText(z.expiresAt, lang) },
    ],
    action: { label: `להורדת החבילה (${iso(sizeText(z.size))})`, url: z.url },
    ...(z.accountant
      ? {
          links: [
            {
              label: `החבילה לרואה החשבון של ${z.month}: ${z.accountant.entries} קבצים (${iso(sizeText(z.accountant.size))})${z.accountant.missing ? `, ${z.accountant.missing} לא נקראו` : ''}`,
              url: z.accountant.url,
            },
          ],
        }
      : {}),
    after: [
      `אחרי ${dayText(z.expiresAt, lang)} הקישור מפסיק לעבוד והחבילה נמחקת.`,
      ...(z.accountant && dayText(z.accountant.expiresAt, lang) !== dayText(z.expiresAt, lang) ? [`הקישור לחבילה לרואה החשבון פעיל עד ${dayText(z.accountant.expiresAt, lang)}.`] : []),
      ...(z.attached ? ['החבילה מצורפת גם למייל הזה.'] : []),
    ],
    footer: [`נשלח בשם ${iso(name)} דרך ${m.productName}.`],
  };
  return message(to, doc, { name, replyTo: b.email }, extra);
}

export interface AccZipFacts {
  from: string;
  to: string;
  url: string;
  size: number;
  entries: number;
  /** Files that could not be read and are not in the ZIP. */
  missing: number;
  /** When the link stops working, when the file store gives one. */
  expiresAt: string | null;
  attached: boolean;
}

/** The accountant's ZIP of a month range (accZipSend): the link, its size, what is in and what is not. */
export function accZipEmail(m: MailCtx, b: BusinessIdentity, to: string, z: AccZipFacts, extra: Partial<EmailMessage>): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const name = nameIn(b, lang);
  const months = z.from === z.to ? z.from : `${z.from} – ${z.to}`;
  const doc: EmailDoc = {
    lang,
    subject: `${name} – החבילה לרואה החשבון ${months}`,
    preheader: `החבילה של ${iso(name)} לרואה החשבון: ${iso(months)}.`,
    heading: `החבילה לרואה החשבון`,
    paragraphs: [`${iso(name)} שולח/ת את החבילה לרואה החשבון. הקבצים מסודרים בתיקיות רואה החשבון; הקובץ index.csv מפרט אותם והקובץ README.txt מסביר את המבנה.`],
    facts: [
      { label: 'חודשים', value: months, ltr: true },
      { label: 'קבצים', value: String(z.entries), ltr: true },
      { label: 'גודל', value: sizeText(z.size), ltr: true },
      ...(z.expiresAt ? [{ label: 'הקישור פעיל עד', value: dayText(z.expiresAt, lang) }] : []),
    ],
    warning: z.missing ? `${z.missing} קבצים לא נקראו ואינם בחבילה.` : null,
    action: { label: `להורדת החבילה (${iso(sizeText(z.size))})`, url: z.url },
    after: z.attached ? ['החבילה מצורפת גם למייל הזה.'] : [],
    footer: [`נשלח בשם ${iso(name)} דרך ${m.productName}.`],
  };
  return message(to, doc, { name, replyTo: b.email }, extra);
}

// ---------------------------------------------------------------------------------------------
// Reminders and due notices (issue 39 §2; domain/reminders/reminders.ts)

/** A reminder of an unfilled payment link, `days` after it was sent: the same link, in the supplier's language. */
export function paymentReminderEmail(m: MailCtx, b: BusinessIdentity, p: PaymentRecord, url: string, lang: EmailLang, days: number): Promise<EmailMessage> {
  const name = nameIn(b, lang);
  const amount = amountOf(p, lang);
  const he = lang === 'he';
  const doc: EmailDoc = {
    lang,
    subject: he ? `תזכורת: ${name} מחכה לפרטי התשלום שלך${amount ? ` (${amount.figure})` : ''}` : `Reminder: ${name} is waiting for your payout details${amount ? ` (${amount.figure})` : ''}`,
    preheader: he ? `לפני ${days} ימים ${iso(name)} שלח/ה לך בקשת תשלום, והפרטים עוד לא מולאו.` : `${days} days ago ${iso(name)} sent you a payment request; the details are not filled in yet.`,
    heading: he ? `תזכורת: ${iso(name)} רוצה לשלם לך` : `Reminder: ${iso(name)} wants to pay you`,
    paragraphs: [
      he ? `שלום ${iso(p.supplierName)},` : `Hello ${iso(p.supplierName)},`,
      he ? `לפני ${days} ימים נשלחה אליך בקשת תשלום, ופרטי התשלום עוד לא מולאו. בלי הפרטים אי אפשר להעביר לך את הכסף.` : `A payment request was sent to you ${days} days ago and your payout details are not filled in yet. Without them the money cannot be sent.`,
      ...(amount ? [] : [he ? 'את הסכום ממלאים בדף התשלום.' : 'You fill in the amount on the payment page.']),
    ],
    amount,
    facts: forFact(p, lang),
    action: { label: he ? `למילוי פרטי התשלום${p.invoiceRequired ? ' ולצירוף חשבונית' : ''}` : `Enter your payout details${p.invoiceRequired ? ' and attach your invoice' : ''}`, url },
    after: [he ? 'הקישור אישי ומיועד לך בלבד. אם כבר מילאת את הפרטים, אפשר להתעלם מההודעה.' : 'This link is personal; keep it to yourself. If you already filled in the details, ignore this message.'],
    footer: supplierFooter(b, m, lang),
  };
  return message(p.supplierEmail!, doc, forSupplier(b, lang));
}

/** One payment line of an owner's digest. */
export interface DigestLine {
  supplierName: string;
  /** "₪1,234.50", or the open-amount words. */
  figure: string;
  /** YYYY-MM-DD or null. */
  dueDate: string | null;
  url: string;
}

export interface DueDigestFacts {
  /** Today in Israel, YYYY-MM-DD. */
  today: string;
  due: DigestLine[];
  /** How many are due or overdue in all (the list may be cut). */
  dueTotal: number;
  approvals: DigestLine[];
  approvalsTotal: number;
  /** The dashboard's screen of payments to pay. */
  payUrl: string;
}

const dayOnly = (day: string) => dayText(`${day}T12:00:00Z`, 'he');

/** The morning digest to each admin: payments due today or overdue, and payments waiting for an approval (Hebrew, as the other owner emails). */
export function dueDigestEmail(m: MailCtx, b: BusinessIdentity, to: string, f: DueDigestFacts): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const line = (l: DigestLine, withDue: boolean) => ({
    label: `${iso(l.supplierName)} · ${iso(l.figure)}${withDue && l.dueDate ? ` · ${l.dueDate < f.today ? `באיחור, היה לתשלום עד ${dayOnly(l.dueDate)}` : 'לתשלום היום'}` : ''}`,
    url: l.url,
  });
  const more = (shown: number, total: number) => (total > shown ? [`ועוד ${total - shown} שלא נכנסו לרשימה.`] : []);
  const parts: string[] = [];
  if (f.dueTotal) parts.push(f.dueTotal === 1 ? 'תשלום אחד לתשלום היום או באיחור' : `${f.dueTotal} תשלומים לתשלום היום או באיחור`);
  if (f.approvalsTotal) parts.push(f.approvalsTotal === 1 ? 'תשלום אחד ממתין לאישור' : `${f.approvalsTotal} תשלומים ממתינים לאישור`);
  const doc: EmailDoc = {
    lang,
    subject: `${parts.join(', ')} – ${nameIn(b, lang)}`,
    preheader: `מה לשלם ומה לאשר היום, ${dayOnly(f.today)}.`,
    heading: `לשלם ולאשר היום`,
    paragraphs: [`${parts.join('; ')}.`],
    facts: [
      { label: 'לתשלום היום או באיחור', value: String(f.dueTotal), ltr: true },
      { label: 'ממתינים לאישור', value: String(f.approvalsTotal), ltr: true },
    ],
    links: [...f.due.map((l) => line(l, true)), ...f.approvals.map((l) => ({ ...line(l, false), label: `לאישור: ${line(l, false).label}` }))],
    action: { label: 'לרשימת התשלומים', url: f.payUrl },
    after: [...more(f.due.length, f.dueTotal), ...more(f.approvals.length, f.approvalsTotal), 'את המייל הזה אפשר לכבות בהגדרות ההתראות של העסק.'],
    footer: ownerFooter(b, m, lang),
  };
  return message(to, doc, { name: nameIn(b, lang), replyTo: null });
}

export interface RunPayDateFacts {
  payDate: string;
  count: number;
  /** "₪1,234.50" per currency. */
  totals: string[];
  note: string;
  url: string;
}

/** A payment run still open on its pay date (Hebrew, to each admin). */
export function runPayDateEmail(m: MailCtx, b: BusinessIdentity, to: string, f: RunPayDateFacts): Promise<EmailMessage> {
  const lang: EmailLang = 'he';
  const doc: EmailDoc = {
    lang,
    subject: `היום יום התשלום של אצוות התשלומים (${f.count} תשלומים, ${f.totals.join(' + ')})`,
    preheader: `אצוות התשלומים ליום ${dayOnly(f.payDate)} עדיין פתוחה.`,
    heading: `אצוות התשלומים ליום ${dayOnly(f.payDate)} עדיין פתוחה`,
    paragraphs: ['הגיע יום התשלום של האצווה, והיא עדיין לא סומנה כשולמה. אחרי ההעברה בבנק מסמנים אותה כשולמה.'],
    facts: [
      { label: 'תשלומים', value: String(f.count), ltr: true },
      { label: 'סכום', value: f.totals.join(' + '), ltr: true },
      ...(f.note ? [{ label: 'הערה', value: f.note }] : []),
    ],
    action: { label: 'לאצוות התשלומים', url: f.url },
    after: ['את המייל הזה אפשר לכבות בהגדרות ההתראות של העסק.'],
    footer: ownerFooter(b, m, lang),
  };
  return message(to, doc, { name: nameIn(b, lang), replyTo: null });
}
