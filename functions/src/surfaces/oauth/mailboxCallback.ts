import type { App } from '../../app.ts';
import type { HttpResponse } from '../http/types.ts';
import { completeMailboxConsent, MailboxConsentFailure, type MailboxConsentFailureReason } from '../../domain/mail/mailboxes.ts';
import { consentPage, dashboardLink, stateFailureTexts, type FailureText, type PageText } from './page.ts';

/** GET /oauth/mailbox/callback: the browser's return from the mailbox provider's consent. */

const FAILURES: Record<MailboxConsentFailureReason, FailureText> = {
  ...stateFailureTexts('the mailbox'),
  declined: { status: 400, he: 'ההרשאה לתיבת הדואר לא ניתנה.', en: 'Access to the mailbox was not granted. Start again to connect.' },
  missing_code: { status: 400, he: 'ספק הדואר לא החזיר קוד הרשאה. יש להתחיל את החיבור מחדש.', en: 'The mailbox provider returned no authorization code. Start connecting again.' },
  not_configured: { status: 503, he: 'החיבור לתיבת דואר אינו מוגדר בשרת.', en: 'Mailbox connections are not configured on this server.' },
  code_refused: { status: 400, he: 'ספק הדואר דחה את קוד ההרשאה. יש להתחיל את החיבור מחדש.', en: 'The mailbox provider refused the authorization code. Start connecting again.' },
  unavailable: { status: 503, he: 'ספק הדואר אינו זמין כרגע. יש לנסות שוב מאוחר יותר.', en: 'The mailbox provider is not answering right now. Try again later.' },
  too_many: { status: 400, he: 'לעסק כבר מחוברות 20 תיבות דואר. יש לנתק אחת לפני חיבור נוספת.', en: 'The business already has 20 mailboxes connected. Disconnect one first.' },
};

export async function mailboxCallback(app: App, params: URLSearchParams): Promise<HttpResponse> {
  try {
    const r = await completeMailboxConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    const link = dashboardLink(r.origin);
    const text: PageText = {
      he: { title: 'תיבת הדואר חוברה', body: `תיבת הדואר ${r.email} חוברה לעסק ${r.businessName}. המשך בלוח הבקרה כדי לייבא חשבוניות מהדואר.`, link: link.he },
      en: { title: 'Mailbox connected', body: `The mailbox ${r.email} is connected to ${r.businessName}. Continue on the dashboard to import invoices from mail.`, link: link.en },
    };
    return consentPage(200, text);
  } catch (e) {
    if (!(e instanceof MailboxConsentFailure)) throw e;
    const f = FAILURES[e.reason];
    const link = e.origin ? dashboardLink(e.origin) : null;
    return consentPage(f.status, {
      he: { title: 'תיבת הדואר לא חוברה', body: f.he, ...(link ? { link: link.he } : {}) },
      en: { title: 'Mailbox not connected', body: f.en, ...(link ? { link: link.en } : {}) },
    });
  }
}
