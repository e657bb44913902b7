import { createHash } from 'node:crypto';
import type { HttpResponse } from '../http/types.ts';
import { html, raw, type Html } from './html.ts';
import { dirOf, messages, type Lang } from './i18n.ts';

/** Mobile first: one column, 16px inputs (no zoom on focus), big tap targets. */
const CSS = `*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f2f4f7;color:#1b1f24;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
main{max-width:34rem;margin:0 auto;padding:.75rem .75rem 2rem}
.top{display:flex;justify-content:flex-end;font-size:.95rem;padding:.25rem .25rem .5rem}
.top a,.top .switch{color:#1a5fc8;text-decoration:none;padding:.25rem .5rem}
.top .switch{display:inline;width:auto;margin:0;background:none;border:0;font:inherit;font-weight:400;cursor:pointer}
.card{background:#fff;border-radius:14px;padding:1.25rem 1.1rem;box-shadow:0 1px 3px rgba(16,24,40,.1);margin-bottom:.9rem}
.card>:first-child{margin-top:0}
.card>:last-child{margin-bottom:0}
legend{padding:0}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 .5rem}
h2{font-size:1.1rem;margin:0 0 .25rem}
.amount{font-size:2rem;font-weight:700;margin:.25rem 0}
.muted{color:#5b6472}
.desc{white-space:pre-wrap;overflow-wrap:anywhere}
label,.label{display:block;font-weight:600;margin:1rem 0 .3rem}
.tag{font-weight:400;color:#5b6472;font-size:.9rem}
input[type=text],input[type=tel],input[type=email],textarea,select{display:block;width:100%;font:inherit;padding:.7rem .8rem;border:1px solid #767f8c;border-radius:9px;background:#fff;color:inherit}
textarea{min-height:5rem;resize:vertical}
input[type=file]{display:block;width:100%;font:inherit;padding:.6rem 0}
[dir=rtl] input[dir=ltr]{text-align:right}
input:focus,textarea:focus{outline:2px solid #1a5fc8;outline-offset:1px}
.invalid{border-color:#b3261e!important;background:#fff8f7!important}
.err{color:#b3261e;font-size:.9rem;margin:.3rem 0 0}
.hint{color:#5b6472;font-size:.875rem;margin:.3rem 0 0}
fieldset{border:0;padding:0;margin:0;min-width:0}
.choice{display:flex;gap:.6rem}
.choice label{flex:1;display:flex;align-items:center;gap:.5rem;margin:0;padding:.75rem .8rem;border:1px solid #767f8c;border-radius:9px;cursor:pointer}
.choice label:has(input:checked){border-color:#1a5fc8;background:#eef4fe}
.choice input{width:1.15rem;height:1.15rem;margin:0}
form:has(#m-bank:checked) .bit,form:has(#m-bit:checked) .bank{display:none}
.row{display:flex;gap:.6rem}
.row>div{flex:1;min-width:0}
.row>.branch{flex:0 0 6.5rem}
.payout{margin-top:1.6rem}
.section{font-size:1.05rem}
form:has(#bankCode option[value=other]:not(:checked)) .other-code{display:none}
.trust{font-size:.85rem;margin:1rem 0 0}
.trust .who{display:block;font-weight:600}
.proof a,a.back{color:#1a5fc8}
a.back{display:inline-block;padding:.5rem 0;font-weight:600}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
.check input{width:1.15rem;height:1.15rem;margin:0}
button{display:block;width:100%;font:inherit;font-weight:700;font-size:1.05rem;padding:.85rem;margin-top:1.4rem;border:0;border-radius:9px;background:#1a5fc8;color:#fff;cursor:pointer}
.status{border-radius:10px;padding:.8rem .9rem;margin:.75rem 0 0;font-weight:600}
.ok{background:#e6f4ea;color:#0b5a2a}
.wait{background:#fff4d6;color:#6b4a00}
.bad{background:#fdecea;color:#8c1d18}
.info{background:#e8f0fe;color:#163d7a}
ul.files{margin:.3rem 0 0;padding-inline-start:1.2rem;overflow-wrap:anywhere}`;

const CSS_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/** Only the inline stylesheet runs; no scripts, no external resources, forms post back to this origin. */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': `default-src 'none'; style-src ${CSS_HASH}; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  // The link's token is in the URL: never leak it to another site.
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex, nofollow',
  'cache-control': 'no-store',
};

/**
 * `switchForm`: the id of a form the language switch should carry along. Then the switch is a button
 * that posts the form to the other language's page (which only re-renders it), so typed values stay.
 */
export function page(status: number, lang: Lang, title: string, switchHref: string | null, body: Html | Html[], switchForm: string | null = null): HttpResponse {
  const t = messages(lang);
  const doc = html`<!doctype html>
<html lang="${lang}" dir="${dirOf(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${raw(CSS)}</style>
</head>
<body>
<main>
${
  switchHref
    ? switchForm
      ? html`<nav class="top"><button type="submit" class="switch" form="${switchForm}" formaction="${switchHref}" formnovalidate name="switchLang" value="1" lang="${lang === 'he' ? 'en' : 'he'}">${t.switchLabel}</button></nav>`
      : html`<nav class="top"><a href="${switchHref}" lang="${lang === 'he' ? 'en' : 'he'}" hreflang="${lang === 'he' ? 'en' : 'he'}">${t.switchLabel}</a></nav>`
    : ''
}
${body}
</main>
</body>
</html>
`;
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS }, body: doc.text };
}

export function redirect(location: string): HttpResponse {
  return { status: 303, headers: { location, 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }, body: '' };
}

/** A page with a title and one line: not found, unreadable form, failure. */
export function messagePage(status: number, lang: Lang, title: string, text: string, switchHref: string | null = null): HttpResponse {
  return page(status, lang, title, switchHref, html`<section class="card"><h1>${title}</h1><p class="muted">${text}</p></section>`);
}

/**
 * A body over the pages' limit, refused before it is read: the language is not known yet, so both.
 * `back` is the page that posted (its path and query): a plain link returns to its form.
 */
export function pageTooLarge(back: string | null = null): HttpResponse {
  const he = messages('he');
  const en = messages('en');
  const link = (t: ReturnType<typeof messages>) => (back ? html`<p><a class="back" href="${back}">${t.backToForm}</a></p>` : '');
  return page(
    413,
    'he',
    he.tooLargeTitle,
    null,
    html`<section class="card"><h1>${he.tooLargeTitle}</h1><p class="muted">${he.tooLargeBody}</p>${link(he)}</section><section class="card" lang="en" dir="ltr"><h2>${en.tooLargeTitle}</h2><p class="muted">${en.tooLargeBody}</p>${link(en)}</section>`,
  );
}
