import type { App } from '../../app.ts';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types.ts';
import { isApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { completeItaConsent, ConsentFailure, type ConsentFailureReason } from '../../domain/invoices/ita.ts';
import { consentPage, type PageText } from './page.ts';
import { chatCallback } from './chatCallback.ts';
import { mailboxCallback } from './mailboxCallback.ts';
import { marketCallback } from './marketCallback.ts';

/**
 * The browser returns of third-party consents: `GET /oauth/<provider>/callback?code&state`.
 * Each answers a small HTML page; failures are pages too, never a stack or a JSON envelope.
 */

type Callback = (app: App, params: URLSearchParams) => Promise<HttpResponse>;

const FAILURES: Record<ConsentFailureReason, { status: number; he: string; en: string }> = {
  missing_state: { status: 400, he: 'בקישור חסר פרמטר state.', en: 'The link has no state parameter. Start the connection again from the service.' },
  unknown_state: { status: 400, he: 'הקישור אינו מוכר. יש להתחיל את החיבור מחדש.', en: 'This link is not recognised. Start the connection again from the service.' },
  expired_state: { status: 400, he: 'תוקף הקישור פג (15 דקות). יש להתחיל את החיבור מחדש.', en: 'This link has expired (it is valid for 15 minutes). Start the connection again.' },
  used_state: { status: 400, he: 'הקישור כבר נוצל. יש להתחיל את החיבור מחדש.', en: 'This link was already used. Start the connection again if needed.' },
  declined: { status: 400, he: 'ההרשאה לא ניתנה ברשות המסים.', en: 'The consent was not given at the tax authority. Start again to connect.' },
  missing_code: { status: 400, he: 'רשות המסים לא החזירה קוד הרשאה.', en: 'The tax authority returned no authorization code. Start the connection again.' },
  member_removed: { status: 400, he: 'המשתמש שהתחיל את החיבור אינו חבר עוד בעסק.', en: 'The user who started the connection is no longer a member of the business.' },
  not_configured: { status: 503, he: 'החיבור לרשות המסים אינו מוגדר בשרת.', en: 'The tax authority connection is not configured on this server.' },
  code_refused: { status: 400, he: 'רשות המסים דחתה את קוד ההרשאה. יש להתחיל את החיבור מחדש.', en: 'The tax authority refused the authorization code. Start the connection again.' },
  client_refused: { status: 502, he: 'רשות המסים דחתה את פרטי השירות. יש לפנות לתמיכה.', en: "The tax authority refused this service's credentials. Contact support." },
  unavailable: { status: 503, he: 'רשות המסים אינה זמינה כרגע. יש לנסות שוב מאוחר יותר.', en: 'The tax authority is not answering right now. Try again later.' },
};

const failurePage = (status: number, he: string, en: string, headers: Record<string, string> = {}) =>
  consentPage(status, { he: { title: 'החיבור לא הושלם', body: he }, en: { title: 'Not connected', body: en } }, headers);

const itaCallback: Callback = async (app, params) => {
  try {
    const { expiresAt, businessName } = await completeItaConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    const day = expiresAt.slice(0, 10);
    const text: PageText = {
      he: { title: 'החיבור לרשות המסים הושלם', body: `העסק ${businessName} מחובר. ההרשאה בתוקף עד ${day}. אפשר לסגור את החלון.` },
      en: { title: 'Connected to the Israel Tax Authority', body: `${businessName} is connected. The consent is valid until ${day}. You can close this window.` },
    };
    return consentPage(200, text);
  } catch (e) {
    if (!(e instanceof ConsentFailure)) throw e;
    const f = FAILURES[e.reason];
    return failurePage(f.status, f.he, f.en);
  }
};

const CALLBACKS: Record<string, Callback> = { ita: itaCallback, chat: chatCallback, mailbox: mailboxCallback, market: marketCallback };

export function createOAuthHandler(app: App): HttpHandler {
  return async (req: HttpRequest) => {
    const [, , provider = '', step = '', ...rest] = req.path.split('/');
    const callback = Object.hasOwn(CALLBACKS, provider) && step === 'callback' && rest.length === 0 ? CALLBACKS[provider] : undefined;
    if (!callback) return failurePage(404, 'הדף לא נמצא.', `There is no page at ${req.path.slice(0, 200)}.`);
    // Only GET spends the state: a HEAD from a link scanner must not.
    if (req.method !== 'GET') return failurePage(405, 'שיטת הבקשה אינה נתמכת.', `${req.path} accepts GET only.`, { allow: 'GET' });
    try {
      return await callback(app, new URLSearchParams(req.query));
    } catch (e) {
      const requestId = 'req_' + newId(16);
      if (isApiError(e) && e.code === 'unavailable') {
        app.services.logger.warn('consent return unavailable', { requestId, provider, error: e.message });
        return failurePage(503, 'השירות אינו זמין כרגע. יש לנסות שוב.', 'The service is unavailable right now. Try again.', { 'x-request-id': requestId });
      }
      app.services.logger.error('unexpected error on a consent return', { requestId, provider, error: e instanceof Error ? e.stack : String(e) });
      return failurePage(500, `אירעה שגיאה. מזהה הבקשה: ${requestId}`, `Something went wrong. Quote request id ${requestId}.`, { 'x-request-id': requestId });
    }
  };
}
