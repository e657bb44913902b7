import type { App } from '../../app.ts';
import type { HttpResponse } from '../http/types.ts';
import { ChatConsentFailure, confirmChatConsent, receiveChatConsent, type ChatConsentFailureReason } from '../../domain/people/chat.ts';
import { cancelConsent, StateFailure } from '../../domain/oauthState.ts';
import { cancelledPage, confirmPage, consentPage, stateFailureTexts, type FailureText, type PageText } from './page.ts';

/**
 * GET /oauth/chat/callback: the browser's return from Slack's consent (OAuth v2), which asks to confirm;
 * POST /oauth/chat/confirm: the confirmation, which stores the connection.
 */

const FAILURES: Record<ChatConsentFailureReason, FailureText> = {
  ...stateFailureTexts('Slack'),
  declined: { status: 400, he: 'ההרשאה לא ניתנה ב-Slack.', en: 'The access was not granted in Slack. Start again to connect.' },
  missing_code: { status: 400, he: 'Slack לא החזיר קוד הרשאה. יש להתחיל את החיבור מחדש.', en: 'Slack returned no authorization code. Start connecting again.' },
  not_configured: { status: 503, he: 'החיבור ל-Slack אינו מוגדר בשרת.', en: 'The Slack connection is not configured on this server.' },
  code_refused: { status: 400, he: 'Slack דחה את קוד ההרשאה. יש להתחיל את החיבור מחדש.', en: 'Slack refused the authorization code. Start connecting again.' },
  unavailable: { status: 503, he: 'Slack אינו זמין כרגע. יש לנסות שוב מאוחר יותר.', en: 'Slack is not answering right now. Try again later.' },
};

const VIEW_NAMES: Record<string, { he: string; en: string }> = {
  employees: { he: 'מסך העובדים', en: 'the Employees screen' },
  integrations: { he: 'מסך החיבורים', en: 'the Integrations screen' },
};

/** Where the page sends the user next: `{origin}/{returnView}` of the app that started the consent. */
function nextLink(next: { origin: string; returnView: string }) {
  const view = VIEW_NAMES[next.returnView] ?? VIEW_NAMES.employees;
  const href = `${next.origin}/${Object.hasOwn(VIEW_NAMES, next.returnView) ? next.returnView : 'employees'}`;
  return { view, he: { href, label: `חזרה אל ${view.he}` }, en: { href, label: `Back to ${view.en}` } };
}

const WHAT = { he: 'סביבת העבודה ב-Slack', en: 'the Slack workspace' };

function failurePage(e: unknown): HttpResponse {
  if (!(e instanceof ChatConsentFailure)) throw e;
  const f = FAILURES[e.reason];
  const link = e.next ? nextLink(e.next) : null;
  return consentPage(f.status, {
    he: { title: 'Slack לא חובר', body: f.he, ...(link ? { link: link.he } : {}) },
    en: { title: 'Slack not connected', body: f.en, ...(link ? { link: link.en } : {}) },
  });
}

export async function chatCallback(app: App, params: URLSearchParams): Promise<HttpResponse> {
  try {
    const r = await receiveChatConsent(app.services, { state: params.get('state'), code: params.get('code'), error: params.get('error') });
    return confirmPage(WHAT, r);
  } catch (e) {
    return failurePage(e);
  }
}

export async function chatConfirm(app: App, form: URLSearchParams): Promise<HttpResponse> {
  try {
    if (form.get('decision') === 'cancel') {
      let extra;
      try {
        extra = await cancelConsent(app.services.store, 'chat', form.get('token'), app.services.clock.now());
      } catch (e) {
        throw e instanceof StateFailure ? new ChatConsentFailure(e.reason) : e;
      }
      return cancelledPage(WHAT, nextLink({ origin: extra.origin ?? new URL(app.services.config.dashboardUrl).origin, returnView: extra.returnView ?? 'employees' }));
    }
    const r = await confirmChatConsent(app.services, form.get('token'));
    const link = nextLink(r);
    const text: PageText = {
      he: {
        title: 'Slack חובר',
        body: `העסק ${r.businessName} מחובר לסביבת העבודה ${r.teamName} ב-Slack. המשך ב${link.view.he} כדי לייבא עובדים.`,
        link: link.he,
      },
      en: {
        title: 'Slack connected',
        body: `${r.businessName} is connected to the Slack workspace ${r.teamName}. Continue on ${link.view.en} to import employees.`,
        link: link.en,
      },
    };
    return consentPage(200, text);
  } catch (e) {
    return failurePage(e);
  }
}
