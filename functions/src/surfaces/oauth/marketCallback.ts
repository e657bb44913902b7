import type { App } from '../../app.ts';
import type { HttpResponse } from '../http/types.ts';
import { completeMarketConsent, MarketConsentFailure, type MarketConsentFailureReason } from '../../domain/market.ts';
import { consentPage, type PageText } from './page.ts';

/** GET /oauth/market/callback: the browser's return from Upwork's consent. */

const FAILURES: Record<MarketConsentFailureReason, { status: number; he: string; en: string }> = {
  missing_state: { status: 400, he: 'בקישור חסר פרמטר state. יש להתחיל את החיבור מחדש.', en: 'The link has no state parameter. Start connecting Upwork again from the service.' },
  unknown_state: { status: 400, he: 'הקישור אינו מוכר. יש להתחיל את החיבור מחדש.', en: 'This link is not recognised. Start connecting Upwork again from the service.' },
  expired_state: { status: 400, he: 'תוקף הקישור פג (15 דקות). יש להתחיל את החיבור מחדש.', en: 'This link has expired (it is valid for 15 minutes). Start connecting Upwork again.' },
  used_state: { status: 400, he: 'הקישור כבר נוצל. יש להתחיל את החיבור מחדש אם צריך.', en: 'This link was already used. Start connecting Upwork again if needed.' },
  member_removed: { status: 400, he: 'המשתמש שהתחיל את החיבור אינו חבר עוד בעסק.', en: 'The user who started the connection is no longer a member of the business.' },
  declined: { status: 400, he: 'ההרשאה לא ניתנה ב-Upwork.', en: 'The access was not granted in Upwork. Start again to connect.' },
  missing_code: { status: 400, he: 'Upwork לא החזיר קוד הרשאה. יש להתחיל את החיבור מחדש.', en: 'Upwork returned no authorization code. Start connecting again.' },
  not_configured: { status: 503, he: 'החיבור ל-Upwork אינו מוגדר בשרת.', en: 'The Upwork connection is not configured on this server.' },
  code_refused: { status: 400, he: 'Upwork דחה את ההרשאה. יש להתחיל את החיבור מחדש.', en: 'Upwork refused the authorization. Start connecting again.' },
  unavailable: { status: 503, he: 'Upwork אינו זמין כרגע. יש לנסות שוב מאוחר יותר.', en: 'Upwork is not answering right now. Try again later.' },
  no_organizations: { status: 400, he: 'למשתמש ב-Upwork אין ארגונים לחיבור. דבר לא נשמר.', en: 'The Upwork user has no organization to connect. Nothing was stored.' },
};

const nextLink = (origin: string) => ({ he: { href: origin, label: 'חזרה אל לוח הבקרה' }, en: { href: origin, label: 'Back to the dashboard' } });

export async function marketCallback(app: App, params: URLSearchParams): Promise<HttpResponse> {
  try {
    const r = await completeMarketConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    const link = nextLink(r.origin);
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
    if (!(e instanceof MarketConsentFailure)) throw e;
    const f = FAILURES[e.reason];
    const link = e.origin ? nextLink(e.origin) : null;
    return consentPage(f.status, {
      he: { title: 'Upwork לא חובר', body: f.he, ...(link ? { link: link.he } : {}) },
      en: { title: 'Upwork not connected', body: f.en, ...(link ? { link: link.en } : {}) },
    });
  }
}
