import type { HttpResponse } from '../http/types.ts';

/**
 * The small self-contained page a consent return shows: Hebrew right-to-left with English,
 * no scripts and no external resources (the CSP forbids them, and the URL carries a code).
 */
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface PageText {
  he: { title: string; body: string; link?: { href: string; label: string } };
  en: { title: string; body: string; link?: { href: string; label: string } };
}

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
