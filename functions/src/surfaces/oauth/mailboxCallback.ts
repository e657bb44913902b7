import type { App } from '../../app.ts';
import type { HttpResponse } from '../http/types.ts';
import { confirmMailboxConsent, MailboxConsentFailure, receiveMailboxConsent, type MailboxConsentFailureReason } from '../../domain/mail/mailboxes.ts';
import { cancelConsent, StateFailure } from '../../domain/oauthState.ts';
import { cancelledPage, confirmPage, consentPage, dashboardLink, stateFailureTexts, type FailureText, type PageText } from './page.ts';

/**
 * GET /oauth/mailbox/callback: the browser's return from the mailbox provider's consent, which asks to confirm;
 * POST /oauth/mailbox/confirm: the confirmation, which connects the mailbox.
 */

const FAILURES: Record<MailboxConsentFailureReason, FailureText> = {
  ...stateFailureTexts('the mailbox'),
  declined: { status: 400, he: 'ההרשאה לתיבת הדואר לא ניתנה.', en: 'Access to the mailbox was not granted. Start again to connect.' },
  missing_code: { status: 400, he: 'ספק הדואר לא החזיר קוד הרשאה. יש להתחיל את החיבור מחדש.', en: 'The mailbox provider returned no authorization code. Start connecting again.' },
  not_configured: { status: 503, he: 'החיבור לתיבת דואר אינו מוגדר בשרת.', en: 'Mailbox connections are not configured on this server.' },
  code_refused: { status: 400, he: 'ספק הדואר דחה את קוד ההרשאה. יש להתחיל את החיבור מחדש.', en: 'The mailbox provider refused the authorization code. Start connecting again.' },
  unavailable: { status: 503, he: 'ספק הדואר אינו זמין כרגע. יש לנסות שוב מאוחר יותר.', en: 'The mailbox provider is not answering right now. Try again later.' },
  too_many: { status: 400, he: 'לעסק כבר מחוברות 20 תיבות דואר. יש לנתק אחת לפני חיבור נוספת.', en: 'The business already has 20 mailboxes connected. Disconnect one first.' },
};

const WHAT = { he: 'תיבת הדואר', en: 'the mailbox' };

/** The dashboard's screen the return page links back to. */
const VIEW = 'mailboxes';

function failurePage(e: unknown, config: { dashboardUrl: string }): HttpResponse {
  if (!(e instanceof MailboxConsentFailure)) throw e;
  const f = FAILURES[e.reason];
  const link = e.origin ? dashboardLink(e.origin, config.dashboardUrl, VIEW) : null;
  return consentPage(f.status, {
    he: { title: 'תיבת הדואר לא חוברה', body: f.he, ...(link ? { link: link.he } : {}) },
    en: { title: 'Mailbox not connected', body: f.en, ...(link ? { link: link.en } : {}) },
  });
}

export async function mailboxCallback(app: App, params: URLSearchParams): Promise<HttpResponse> {
  try {
    const r = await receiveMailboxConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    return confirmPage(WHAT, r);
  } catch (e) {
    return failurePage(e, app.services.config);
  }
}

export async function mailboxConfirm(app: App, form: URLSearchParams): Promise<HttpResponse> {
  try {
    if (form.get('decision') === 'cancel') {
      let extra;
      try {
        extra = await cancelConsent(app.services.store, 'mailbox', form.get('token'), app.services.clock.now());
      } catch (e) {
        throw e instanceof StateFailure ? new MailboxConsentFailure(e.reason) : e;
      }
      return cancelledPage(WHAT, dashboardLink(extra.origin ?? new URL(app.services.config.dashboardUrl).origin, app.services.config.dashboardUrl, VIEW));
    }
    const r = await confirmMailboxConsent(app.services, form.get('token'));
    const link = dashboardLink(r.origin, app.services.config.dashboardUrl, VIEW);
    const text: PageText = {
      he: { title: 'תיבת הדואר חוברה', body: `תיבת הדואר ${r.email} חוברה לעסק ${r.businessName}. המשך בלוח הבקרה כדי לייבא חשבוניות מהדואר.`, link: link.he },
      en: { title: 'Mailbox connected', body: `The mailbox ${r.email} is connected to ${r.businessName}. Continue on the dashboard to import invoices from mail.`, link: link.en },
    };
    return consentPage(200, text);
  } catch (e) {
    return failurePage(e, app.services.config);
  }
}
