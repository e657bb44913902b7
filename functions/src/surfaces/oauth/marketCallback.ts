import type { App } from '../../app.ts';
import type { HttpResponse } from '../http/types.ts';
import { confirmMarketConsent, MarketConsentFailure, receiveMarketConsent, type MarketConsentFailureReason } from '../../domain/statements/market.ts';
import { cancelConsent, StateFailure } from '../../domain/oauthState.ts';
import { cancelledPage, confirmPage, consentPage, dashboardLink, stateFailureTexts, type FailureText, type PageText } from './page.ts';

/**
 * GET /oauth/market/callback: the browser's return from Upwork's consent, which asks to confirm;
 * POST /oauth/market/confirm: the confirmation, which connects the organizations.
 */

const FAILURES: Record<MarketConsentFailureReason, FailureText> = {
  ...stateFailureTexts('Upwork'),
  declined: { status: 400, he: 'ההרשאה לא ניתנה ב-Upwork.', en: 'The access was not granted in Upwork. Start again to connect.' },
  missing_code: { status: 400, he: 'Upwork לא החזיר קוד הרשאה. יש להתחיל את החיבור מחדש.', en: 'Upwork returned no authorization code. Start connecting again.' },
  not_configured: { status: 503, he: 'החיבור ל-Upwork אינו מוגדר בשרת.', en: 'The Upwork connection is not configured on this server.' },
  code_refused: { status: 400, he: 'Upwork דחה את ההרשאה. יש להתחיל את החיבור מחדש.', en: 'Upwork refused the authorization. Start connecting again.' },
  unavailable: { status: 503, he: 'Upwork אינו זמין כרגע. יש לנסות שוב מאוחר יותר.', en: 'Upwork is not answering right now. Try again later.' },
  no_organizations: { status: 400, he: 'למשתמש ב-Upwork אין ארגונים לחיבור. דבר לא נשמר.', en: 'The Upwork user has no organization to connect. Nothing was stored.' },
};

const WHAT = { he: 'Upwork', en: 'Upwork' };

/** The dashboard's screen the return page links back to. */
const VIEW = 'statements';

function failurePage(e: unknown, config: { dashboardUrl: string }): HttpResponse {
  if (!(e instanceof MarketConsentFailure)) throw e;
  const f = FAILURES[e.reason];
  const link = e.origin ? dashboardLink(e.origin, config.dashboardUrl, VIEW) : null;
  return consentPage(f.status, {
    he: { title: 'Upwork לא חובר', body: f.he, ...(link ? { link: link.he } : {}) },
    en: { title: 'Upwork not connected', body: f.en, ...(link ? { link: link.en } : {}) },
  });
}

export async function marketCallback(app: App, params: URLSearchParams): Promise<HttpResponse> {
  try {
    const r = await receiveMarketConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    return confirmPage(WHAT, r);
  } catch (e) {
    return failurePage(e, app.services.config);
  }
}

export async function marketConfirm(app: App, form: URLSearchParams): Promise<HttpResponse> {
  try {
    if (form.get('decision') === 'cancel') {
      let extra;
      try {
        extra = await cancelConsent(app.services.store, 'market', form.get('token'), app.services.clock.now());
      } catch (e) {
        throw e instanceof StateFailure ? new MarketConsentFailure(e.reason) : e;
      }
      return cancelledPage(WHAT, dashboardLink(extra.origin ?? new URL(app.services.config.dashboardUrl).origin, app.services.config.dashboardUrl, VIEW));
    }
    const r = await confirmMarketConsent(app.services, form.get('token'));
    const link = dashboardLink(r.origin, app.services.config.dashboardUrl, VIEW);
    const names = r.organizations.join(', ');
    const text: PageText = {
      he: {
        title: 'Upwork חובר',
        body: `העסק ${r.businessName} מחובר ל-Upwork (${r.organizations.length} ארגונים: ${names}). המשך בלוח הבקרה, במסך הדוחות, כדי למשוך את התנועות של חודש.`,
        link: link.he,
      },
      en: {
        title: 'Upwork connected',
        body: `${r.businessName} is connected to Upwork (${r.organizations.length} organizations: ${names}). Continue on the dashboard's statements screen to pull a month's transactions.`,
        link: link.en,
      },
    };
    return consentPage(200, text);
  } catch (e) {
    return failurePage(e, app.services.config);
  }
}
