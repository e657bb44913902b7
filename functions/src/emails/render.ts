import { Eta } from 'eta/core';
import { bare, iso, isolatesToBdi } from './bidi.ts';

/**
 * Every email is one `EmailDoc` rendered twice: as HTML by small eta templates (a layout and a partial
 * per block; every interpolation escaped, the stylesheet then inlined by juice so mail clients that drop
 * <style> keep the look) and as the matching plain text. Hebrew messages are right to left
 * (`dir="rtl" lang="he"`), English ones left to right. One fluid column (at most 560 px) fits a
 * 360 px phone without sideways scrolling.
 */
export type EmailLang = 'he' | 'en';

export interface EmailLink {
  label: string;
  url: string;
}

/** A label and a value; `ltr` for numbers, links and codes, otherwise the value takes its own direction. */
export interface EmailFact {
  label: string;
  value: string;
  ltr?: boolean;
}

export interface EmailDoc {
  lang: EmailLang;
  subject: string;
  /** The preview line mail clients show beside the subject. */
  preheader: string;
  heading: string;
  paragraphs?: string[];
  /** The amount as the page shows it: the figure (VAT included) and its VAT line. */
  amount?: { figure: string; note: string | null } | null;
  facts?: EmailFact[];
  warning?: string | null;
  action?: EmailLink | null;
  links?: EmailLink[];
  after?: string[];
  footer: string[];
}

const CSS = `
body{margin:0;padding:0;background:#f2f4f7;-webkit-text-size-adjust:100%}
.wrap{width:100%;background:#f2f4f7}
.card{width:100%;max-width:560px;background:#ffffff;border-radius:12px}
.inner{padding:20px 18px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#1b1f24}
.rtl{direction:rtl;text-align:right}
.ltr{direction:ltr;text-align:left}
h1{font-size:20px;line-height:1.3;margin:0 0 12px;color:#1b1f24}
p{margin:0 0 12px}
.figure{font-size:28px;font-weight:bold;margin:4px 0 2px}
.note{color:#5b6472;font-size:14px;margin:0 0 12px}
.facts{width:100%;border-collapse:collapse;margin:4px 0 14px}
.facts td{padding:6px 0;border-bottom:1px solid #e4e7ec;vertical-align:top;font-size:15px}
.facts .label{color:#5b6472;width:38%;padding:6px 0 6px 10px}
.rtl .facts .label{padding:6px 0 6px 10px}
.ltr .facts .label{padding:6px 10px 6px 0}
.value{overflow-wrap:anywhere;word-break:break-word}
.warning{background:#fdecea;color:#8c1d18;border-radius:8px;padding:10px 12px;font-weight:bold;margin:0 0 14px}
.button{display:inline-block;background:#1a5fc8;color:#ffffff;text-decoration:none;font-weight:bold;padding:12px 20px;border-radius:8px}
.url{font-size:13px;color:#5b6472;word-break:break-all;overflow-wrap:anywhere;margin:8px 0 14px}
.url a{color:#1a5fc8}
.link{margin:0}
.link a{color:#1a5fc8;font-weight:bold}
.footer{margin:0 auto;padding:14px 18px;font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:1.5;color:#5b6472;max-width:560px}
.footer p{margin:0 0 6px}
.preheader{display:none;max-height:0;overflow:hidden;mso-hide:all;font-size:1px;color:#f2f4f7}
`;

const dirOf = (lang: EmailLang) => (lang === 'he' ? 'rtl' : 'ltr');

/** Templates live in memory (no file system in a function); autoEscape is on, so `<%= %>` is always escaped. */
const eta = new Eta({ autoEscape: true, autoTrim: false });

const marked = (text: string) => isolatesToBdi(eta.config.escapeFunction(text));

/** A value in its own direction island, so numbers and Latin inside Hebrew keep their order. */
eta.loadTemplate('@value', `<span dir="<%= it.ltr ? 'ltr' : 'auto' %>"><%= it.text %></span>`);

eta.loadTemplate('@facts', `<table role="presentation" class="facts" cellpadding="0" cellspacing="0" dir="<%= it.dir %>">
<% for (const f of it.facts) { %><tr><td class="label" align="<%= it.align %>"><%= f.label %></td><td class="value" align="<%= it.align %>"><%~ include('@value', { text: f.value, ltr: f.ltr }) %></td></tr>
<% } %></table>`);

eta.loadTemplate('@action', `<table role="presentation" cellpadding="0" cellspacing="0" dir="<%= it.dir %>"><tr><td><a class="button" href="<%= it.action.url %>"><%~ it.marked(it.action.label) %></a></td></tr></table>
<p class="url"><a href="<%= it.action.url %>" dir="ltr"><%= it.action.url %></a></p>`);

eta.loadTemplate('@layout', `<!doctype html>
<html lang="<%= it.doc.lang %>" dir="<%= it.dir %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title><%= it.bare(it.doc.subject) %></title>
<style><%~ it.css %></style>
</head>
<body dir="<%= it.dir %>" class="<%= it.dir %>">
<div class="preheader"><%= it.bare(it.doc.preheader) %></div>
<table role="presentation" class="wrap" width="100%" cellpadding="0" cellspacing="0" dir="<%= it.dir %>">
<tr><td align="center" style="padding:12px 8px">
<table role="presentation" class="card" width="100%" cellpadding="0" cellspacing="0" dir="<%= it.dir %>">
<tr><td class="inner <%= it.dir %>" align="<%= it.align %>" dir="<%= it.dir %>">
<h1><%~ it.marked(it.doc.heading) %></h1>
<% for (const p of it.doc.paragraphs ?? []) { %><p><%~ it.marked(p) %></p>
<% } %><% if (it.doc.amount) { %><p class="figure"><span dir="ltr"><%= it.doc.amount.figure %></span></p>
<% if (it.doc.amount.note) { %><p class="note"><%= it.doc.amount.note %></p>
<% } } %><% if (it.doc.facts?.length) { %><%~ include('@facts', it) %>
<% } %><% if (it.doc.warning) { %><p class="warning" role="alert"><%~ it.marked(it.doc.warning) %></p>
<% } %><% if (it.doc.action) { %><%~ include('@action', { dir: it.dir, action: it.doc.action, marked: it.marked }) %>
<% } %><% for (const l of it.doc.links ?? []) { %><p class="link"><a href="<%= l.url %>"><%~ it.marked(l.label) %></a></p>
<% } %><% for (const p of it.doc.after ?? []) { %><p><%~ it.marked(p) %></p>
<% } %></td></tr>
</table>
<div class="footer <%= it.dir %>" dir="<%= it.dir %>"><% for (const t of it.doc.footer) { %><p><%~ it.marked(t) %></p><% } %></div>
</td></tr>
</table>
</body>
</html>
`);

let juiceModule: Promise<typeof import('juice')> | undefined;

/** The HTML part: the templates to markup, then the stylesheet inlined (juice loads on the first email only). */
export async function renderHtml(doc: EmailDoc): Promise<string> {
  const dir = dirOf(doc.lang);
  const markup = eta.render('@layout', { doc, dir, align: dir === 'rtl' ? 'right' : 'left', css: CSS, facts: doc.facts ?? [], marked, bare });
  const juice = (await (juiceModule ??= import('juice'))).default;
  return juice(markup, { removeStyleTags: true, preserveMediaQueries: true, applyWidthAttributes: true });
}

/** The plain-text part: the same content in the same order. */
export function renderText(doc: EmailDoc): string {
  const out: string[] = [doc.heading, ''];
  for (const p of doc.paragraphs ?? []) out.push(p, '');
  if (doc.amount) out.push(doc.amount.note ? `${doc.amount.figure} (${doc.amount.note})` : doc.amount.figure, '');
  if (doc.facts?.length) out.push(...doc.facts.map((f) => `${f.label}: ${doc.lang === 'he' && !f.ltr ? iso(f.value) : f.value}`), '');
  if (doc.warning) out.push(`!! ${doc.warning}`, '');
  if (doc.action) out.push(`${doc.action.label}:`, doc.action.url, '');
  for (const l of doc.links ?? []) out.push(`${l.label}:`, l.url, '');
  for (const p of doc.after ?? []) out.push(p, '');
  out.push('--', ...doc.footer, '');
  return out.join('\n');
}

export async function renderEmail(doc: EmailDoc): Promise<{ subject: string; text: string; html: string }> {
  return { subject: doc.subject, text: renderText(doc), html: await renderHtml(doc) };
}
