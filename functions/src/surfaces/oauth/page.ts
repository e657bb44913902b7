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

/** The link back to the app that started the consent. */
export const dashboardLink = (origin: string) => ({ he: { href: origin, label: 'חזרה אל לוח הבקרה' }, en: { href: origin, label: 'Back to the dashboard' } });

/** A link back into the app (http(s) only; anything else is left out). */
const linkHtml = (link?: { href: string; label: string }) =>
  link && /^https?:\/\//.test(link.href) ? `\n<p><a href="${escape(link.href)}" rel="noreferrer">${escape(link.label)}</a></p>` : '';

export function consentPage(status: number, text: PageText, extra: Record<string, string> = {}): HttpResponse {
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
</section>
</main>
</body>
</html>
`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
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
