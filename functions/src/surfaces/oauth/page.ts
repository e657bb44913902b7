import type { HttpResponse } from '../http/types.ts';
import type { StateFailureReason } from '../../domain/oauthState.ts';

/**
 * The small self-contained page a consent return shows: Hebrew right-to-left with English,
 * no scripts and no external resources (the CSP forbids them, and the URL carries a code).
 */
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface PageText {
  he: { title: string; body: string; link?: { href: string; label: string } };
  en: { title: string; body: string; link?: { href: string; label: string } };
}

export interface FailureText {
  status: number;
  he: string;
  en: string;
}

/** What a consent return says when its state fails, the same for every provider; `what` names what was being connected. */
export const stateFailureTexts = (what: string): Record<StateFailureReason, FailureText> => ({
  missing_state: { status: 400, he: 'בקישור חסר פרמטר state. יש להתחיל את החיבור מחדש.', en: `The link has no state parameter. Start connecting ${what} again from the service.` },
  unknown_state: { status: 400, he: 'הקישור אינו מוכר. יש להתחיל את החיבור מחדש.', en: `This link is not recognised. Start connecting ${what} again from the service.` },
  expired_state: { status: 400, he: 'תוקף הקישור פג (15 דקות). יש להתחיל את החיבור מחדש.', en: `This link has expired (it is valid for 15 minutes). Start connecting ${what} again.` },
  used_state: { status: 400, he: 'הקישור כבר נוצל. יש להתחיל את החיבור מחדש אם צריך.', en: `This link was already used. Start connecting ${what} again if needed.` },
  member_removed: { status: 400, he: 'המשתמש שהתחיל את החיבור אינו חבר עוד בעסק.', en: 'The user who started the connection is no longer a member of the business.' },
});

/**
 * The link back to `view`, the screen of the app that started the consent: under DASHBOARD_URL (its path kept) when the
 * origin is the dashboard's, else at the origin's root path.
 */
export function dashboardLink(origin: string, dashboardUrl: string, view: string) {
  const dash = URL.canParse(dashboardUrl) ? new URL(dashboardUrl) : null;
  const base = dash && dash.origin === origin ? dash.origin + dash.pathname.replace(/\/+$/, '') : origin;
  const href = `${base}/${view}`;
  return { he: { href, label: 'חזרה אל לוח הבקרה' }, en: { href, label: 'Back to the dashboard' } };
}

/** A link back into the app (http(s) only; anything else is left out). */
const linkHtml = (link?: { href: string; label: string }) =>
  link && /^https?:\/\//.test(link.href) ? `\n<p><a href="${escape(link.href)}" rel="noreferrer">${escape(link.label)}</a></p>` : '';

/** The confirmation form: one-time token, Connect and Cancel; it posts to the provider's confirm step beside the callback. */
export interface ConfirmForm {
  token: string;
}

const formHtml = (form?: ConfirmForm) =>
  form
    ? `
<form method="post" action="confirm">
<input type="hidden" name="token" value="${escape(form.token)}">
<div class="actions">
<button type="submit" name="decision" value="confirm" class="primary">חיבור · Connect</button>
<button type="submit" name="decision" value="cancel">ביטול · Cancel</button>
</div>
</form>`
    : '';

/**
 * The page a consent return shows before anything is connected: which business, which account, who started it, and a
 * form to confirm or cancel (issue 20 item 10: a consent link opened in someone else's browser is stopped here).
 */
export function confirmPage(what: { he: string; en: string }, c: { businessName: string; account: string | null; startedBy: string; token: string }): HttpResponse {
  const account = c.account ? ` (${c.account})` : '';
  return consentPage(
    200,
    {
      he: {
        title: 'לאשר את החיבור?',
        body: `לחבר את ${what.he}${account} לעסק ${c.businessName}? את החיבור התחיל ${c.startedBy}. אם לא התחלת אותו, או שזה לא העסק שלך, אין לאשר: יש לבטל או לסגור את הדף.`,
      },
      en: {
        title: 'Confirm the connection',
        body: `Connect ${what.en}${account} to ${c.businessName}? The connection was started by ${c.startedBy}. If you did not start it, or this is not your business, do not connect: cancel or close this page.`,
      },
    },
    {},
    { token: c.token },
  );
}

type Link = { href: string; label: string };

/** The page of a cancelled confirmation: nothing was stored. */
export const cancelledPage = (what: { he: string; en: string }, link: { he: Link; en: Link } | null) =>
  consentPage(200, {
    he: { title: 'החיבור בוטל', body: `החיבור של ${what.he} בוטל, ודבר לא נשמר.`, ...(link ? { link: link.he } : {}) },
    en: { title: 'Not connected', body: `The connection of ${what.en} was cancelled; nothing was stored.`, ...(link ? { link: link.en } : {}) },
  });

export function consentPage(status: number, text: PageText, extra: Record<string, string> = {}, form?: ConfirmForm): HttpResponse {
  const ok = status < 400;
  const html = `<!doctype html>
<html lang="he" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(text.he.title)} · ${escape(text.en.title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Arial,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:32rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 .75rem;color:${ok ? '#13653a' : '#a12a1f'}}
p{line-height:1.55;margin:.4rem 0}
section[lang=en]{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #e3e6ea;color:#3d4555}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}
button{font:inherit;font-weight:600;padding:.7rem 1.2rem;border-radius:9px;border:1px solid #767f8c;background:#fff;color:#1d2330;cursor:pointer}
button.primary{background:#1a5fc8;border-color:#1a5fc8;color:#fff}
</style>
</head>
<body>
<main>
<section lang="he" dir="rtl">
<h1>${escape(text.he.title)}</h1>
<p>${escape(text.he.body)}</p>${linkHtml(text.he.link)}
</section>
<section lang="en" dir="ltr">
<h1>${escape(text.en.title)}</h1>
<p>${escape(text.en.body)}</p>${linkHtml(text.en.link)}
</section>${formHtml(form)}
</main>
</body>
</html>
`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // The confirmation form posts back to this origin only; nothing else runs or loads.
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action ${form ? "'self'" : "'none'"}; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // The return URL carries the code and the state: keep it out of caches and referrers.
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      ...extra,
    },
    body: html,
  };
}
