import type { App } from '../../app.ts';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types.ts';
import { isApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { confirmItaConsent, ConsentFailure, receiveItaConsent, type ConsentFailureReason } from '../../domain/invoices/ita.ts';
import { cancelConsent, StateFailure } from '../../domain/oauthState.ts';
import { cancelledPage, confirmPage, consentPage, type PageText } from './page.ts';
import { chatCallback, chatConfirm } from './chatCallback.ts';
import { mailboxCallback, mailboxConfirm } from './mailboxCallback.ts';
import { marketCallback, marketConfirm } from './marketCallback.ts';

/**
 * The browser returns of third-party consents: `GET /oauth/<provider>/callback?code&state` exchanges the code and asks
 * the person to confirm which business and account are being connected; `POST /oauth/<provider>/confirm` (the page's
 * form, with its one-time token) connects them. Each answers a small HTML page; failures are pages too, never a stack
 * or a JSON envelope.
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

const ITA_WHAT = { he: 'העסק לרשות המסים, בחשבון שבו נכנסת זה עתה', en: 'the business to the Israel Tax Authority, with the account you just signed in with' };

const itaFailure = (e: unknown) => {
  if (!(e instanceof ConsentFailure)) throw e;
  const f = FAILURES[e.reason];
  return failurePage(f.status, f.he, f.en);
};

const itaCallback: Callback = async (app, params) => {
  try {
    const r = await receiveItaConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    return confirmPage(ITA_WHAT, r);
  } catch (e) {
    return itaFailure(e);
  }
};

const itaConfirm: Callback = async (app, form) => {
  try {
    if (form.get('decision') === 'cancel') {
      try {
        await cancelConsent(app.services.store, 'ita', form.get('token'), app.services.clock.now());
      } catch (e) {
        throw e instanceof StateFailure ? new ConsentFailure(e.reason) : e;
      }
      return cancelledPage({ he: 'רשות המסים', en: 'the Israel Tax Authority' }, null);
    }
    const { expiresAt, businessName } = await confirmItaConsent(app.services, form.get('token'));
    const day = jerusalemDay(Date.parse(expiresAt));
    const text: PageText = {
      he: { title: 'החיבור לרשות המסים הושלם', body: `העסק ${businessName} מחובר. ההרשאה בתוקף עד ${day}. אפשר לסגור את החלון.` },
      en: { title: 'Connected to the Israel Tax Authority', body: `${businessName} is connected. The consent is valid until ${day}. You can close this window.` },
    };
    return consentPage(200, text);
  } catch (e) {
    return itaFailure(e);
  }
};

/** Each provider's return (GET callback) and confirmation (POST confirm, a form with the one-time token). */
const CALLBACKS: Record<string, { callback: Callback; confirm: Callback }> = {
  ita: { callback: itaCallback, confirm: itaConfirm },
  chat: { callback: chatCallback, confirm: chatConfirm },
  mailbox: { callback: mailboxCallback, confirm: mailboxConfirm },
  market: { callback: marketCallback, confirm: marketConfirm },
};

/** The confirmation form is a few hundred bytes: anything much larger is not ours. */
const MAX_FORM_BYTES = 4096;

export function createOAuthHandler(app: App): HttpHandler {
  return async (req: HttpRequest) => {
    const [, , provider = '', step = '', ...rest] = req.path.split('/');
    const steps = Object.hasOwn(CALLBACKS, provider) && rest.length === 0 ? CALLBACKS[provider] : undefined;
    if (!steps || (step !== 'callback' && step !== 'confirm')) return failurePage(404, 'הדף לא נמצא.', `There is no page at ${req.path.slice(0, 200)}.`);
    // Only GET spends the state: a HEAD from a link scanner must not. Only a POSTed form confirms.
    if (step === 'callback' && req.method !== 'GET') return failurePage(405, 'שיטת הבקשה אינה נתמכת.', `${req.path} accepts GET only.`, { allow: 'GET' });
    if (step === 'confirm' && req.method !== 'POST') return failurePage(405, 'שיטת הבקשה אינה נתמכת.', `${req.path} accepts the confirmation form (POST) only.`, { allow: 'POST' });
    let input: URLSearchParams;
    if (step === 'confirm') {
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') return failurePage(415, 'הטופס לא נשלח כראוי.', 'The confirmation must be sent by the page\'s form.');
      if ((req.body?.length ?? 0) > MAX_FORM_BYTES) return failurePage(413, 'הטופס גדול מדי.', 'The form is too large.');
      input = new URLSearchParams((req.body ?? Buffer.alloc(0)).toString('utf8'));
      // One of the page's two buttons; anything else is not the page's form.
      if (input.get('decision') !== 'confirm' && input.get('decision') !== 'cancel') return failurePage(400, 'הטופס לא נשלח כראוי.', 'The confirmation must be sent by the page\'s Connect or Cancel button.');
    } else {
      input = new URLSearchParams(req.query);
    }
    try {
      return await steps[step](app, input);
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
