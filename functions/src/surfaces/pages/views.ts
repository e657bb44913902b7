import type { HttpResponse } from '../http/types.ts';
import { isForeignPayout, type PaymentRecord } from '../../domain/payments/payments.ts';
import { payoutMethodsFor, type Problems } from '../../domain/payments/supplierSubmission.ts';
import { amountWords, typedAmountMeaning } from '../../domain/vat.ts';
import { esc, html, raw, type Html } from './html.ts';
import { iso, isolatesToBdi } from '../../emails/bidi.ts';
import { messages, type Lang } from './i18n.ts';
import { page } from './layout.ts';
import { field, hidden, invoiceInput, payoutFields, textArea, type FormState } from './forms.ts';

export type Notice = 'done' | 'stale' | null;

interface Common {
  lang: Lang;
  businessName: string;
  /** The business's company or dealer number, shown so the supplier knows who asks. */
  companyId?: string;
  /** Where the form posts (this page, in this language). */
  action: string;
  switchHref: string;
  submissionId: string;
  values?: Record<string, string>;
  problems?: Problems;
  /** A file was chosen but the form was refused: browsers cannot refill file inputs. */
  chooseAgain?: boolean;
}

const money = (text: string) => html`<bdi dir="ltr">${text}</bdi>`;
/** A sentence holding someone's text (see emails/bidi.ts): escaped, the isolated parts as <bdi>. */
const say = (sentence: string) => raw(isolatesToBdi(esc(sentence)));
const SYMBOL = { ILS: '₪', USD: '$', EUR: '€' } as const;

/** The figure (VAT included, the one that is paid) and its VAT line, worded as the emails word them; no line when no VAT applies. */
function amountBlock(p: PaymentRecord, lang: Lang, withVatLine = true): Html {
  const w = amountWords(p, lang);
  return html`<p class="amount">${money(w.figure)}</p>${withVatLine && w.vatLine ? html`<p class="muted vat">${w.vatLine}</p>` : ''}`;
}

/**
 * A file name as its own direction island (<bdi>). A Hebrew name is right to left, with its Latin/digit
 * tail ("5521.pdf") kept as one left-to-right island: plain isolation shows "חשבונית 5521.pdf" as
 * "pdf.5521 חשבונית" (the dot takes the Hebrew direction and splits the number from the extension).
 */
export function fileName(name: string): Html {
  const lastRtl = Math.max(...[...name].map((c, i) => (/[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/.test(c) ? i : -1)));
  if (lastRtl < 0) return html`<bdi dir="ltr" class="file">${name}</bdi>`;
  const chars = [...name];
  const tail = chars.slice(lastRtl + 1).join('');
  const lead = tail.length - tail.trimStart().length;
  const head = chars.slice(0, lastRtl + 1).join('') + tail.slice(0, lead);
  return tail.trim() ? html`<bdi dir="rtl" class="file">${head}<bdi dir="ltr">${tail.slice(lead)}</bdi></bdi>` : html`<bdi dir="rtl" class="file">${name}</bdi>`;
}

/** Who asks (name, company id) and what happens to the payout details: the supplier can check before typing a bank account. */
function trustNote(v: Common): Html {
  const t = messages(v.lang);
  return html`<p class="muted trust">${v.companyId ? html`<span class="who"><bdi>${v.businessName}</bdi> · ${money(t.businessId(v.companyId))}</span> ` : ''}${say(t.detailsUse(iso(v.businessName)))}</p>`;
}

/** DD.MM.YYYY in Israel's time zone. */
const dayOf = (isoTime: string) => new Intl.DateTimeFormat('he-IL', { timeZone: 'Asia/Jerusalem', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date(isoTime)).replace(/\//g, '.');

function refused(f: FormState, chooseAgain: boolean | undefined): Html | '' {
  if (!Object.keys(f.problems).length) return '';
  return html`<p class="status bad" role="alert">${f.t.fixErrors}${chooseAgain && !f.problems.invoice ? html` ${f.t.chooseAgain}` : ''}</p>`;
}

function payoutSummary(p: PaymentRecord, lang: Lang): Html | '' {
  const t = messages(lang);
  const o = p.payout;
  if (!o) return '';
  const detail =
    o.method === 'bit'
      ? html`${t.bit} · <bdi dir="ltr">…${(o.bitPhone ?? '').slice(-4)}</bdi>`
      : isForeignPayout(o)
        ? html`${t.bank} · <bdi dir="ltr">${o.swift ?? ''}</bdi> · ${t.accountEnding} <bdi dir="ltr">…${(o.iban || o.foreignAccount || '').slice(-3)}</bdi>`
        : html`${t.bank} · <bdi dir="ltr">${o.bankCode}-${o.bankBranch}</bdi> · ${t.accountEnding} <bdi dir="ltr">…${(o.bankAccount ?? '').slice(-3)}</bdi>`;
  return html`<p><span class="muted">${t.payoutGiven}:</span> ${detail}</p>`;
}

const fileList = (p: PaymentRecord, lang: Lang) =>
  p.invoices.length ? html`<p class="label">${messages(lang).attached}</p><ul class="files">${p.invoices.map((f) => html`<li>${fileName(f.fileName)}</li>`)}</ul>` : '';

/** The business's proof of transfer, as a link the supplier can open. */
const proofLink = (p: PaymentRecord, url: string | null | undefined, lang: Lang) =>
  p.proof && url ? html`<p class="proof"><span class="muted">${messages(lang).proof}:</span> <a href="${url}" rel="noreferrer">${fileName(p.proof.fileName)}</a></p>` : '';

/** The supplier link of one payment, in whatever state the payment is. */
export function paymentPage(v: Common & { payment: PaymentRecord; notice: Notice; proofUrl?: string | null }, status = 200): HttpResponse {
  const { payment: p, lang } = v;
  const t = messages(lang);
  const f: FormState = { t, values: v.values ?? {}, problems: v.problems ?? {} };
  const askAmount = p.status === 'sent' && p.openAmount;
  const notice =
    v.notice === 'done' ? html`<p class="status ok" role="status">${t.done}</p>` : v.notice === 'stale' ? html`<p class="status info" role="status">${t.stale}</p>` : '';

  // A standing-link filing is the filer's own request: it was received, not offered.
  const filed = p.filedBy === 'public';
  const b = iso(v.businessName);
  const heading = say(p.status === 'paid' ? t.paidTitle(b) : p.status === 'canceled' ? t.canceledTitle(b) : filed ? t.receivedTitle(b) : t.wantsToPay(b));
  const head = html`<section class="card">
<h1>${heading}</h1>
${askAmount && p.amountAgorot === 0 ? '' : amountBlock(p, lang, p.status !== 'paid')}
${p.description ? html`<p><span class="muted">${t.description}:</span> <bdi dir="auto" class="desc">${p.description}</bdi></p>` : ''}
${notice}
</section>`;

  const invoiceForm = (title: string) => html`<form class="card" method="post" action="${v.action}" enctype="multipart/form-data">
<h2>${title}</h2>${refused(f, false)}
${hidden('submissionId', v.submissionId)}${hidden('action', 'invoice')}
${invoiceInput(f, true, null)}
<button type="submit">${t.upload}</button>
</form>`;

  let body: Html;
  // A standing-link filing under review already holds its payout details: no form to fill again.
  switch (p.status === 'sent' && p.payout ? 'ready' : p.status) {
    case 'sent':
      body = html`<form id="main-form" class="card" method="post" action="${v.action}" enctype="multipart/form-data">
${refused(f, v.chooseAgain)}
${hidden('submissionId', v.submissionId)}${hidden('action', 'payout')}
${askAmount ? field(f, 'amount', t.amountField(SYMBOL[p.currency], typedAmountMeaning(p, lang)), { inputmode: 'decimal', ltr: true, required: p.amountAgorot === 0, hint: t.amountHint, maxlength: 20 }) : ''}
${payoutFields(f, payoutMethodsFor(p), p.currency)}
${invoiceInput(f, false, p.invoiceRequired ? t.neededLater : t.optional, p.invoiceRequired ? t.invoiceLater : null)}
<button type="submit">${t.send}</button>
${trustNote(v)}
</form>`;
      break;
    case 'awaiting_invoice':
      body = html`<section class="card"><p class="status wait">${t.awaitingInvoice}</p>${payoutSummary(p, lang)}</section>${invoiceForm(t.attachInvoice)}`;
      break;
    case 'ready':
      body = html`<section class="card"><p class="status ${p.needsReview ? 'wait' : 'ok'}">${say(p.needsReview ? t.waitingReview(b) : t.ready(b))}</p>${payoutSummary(p, lang)}${fileList(p, lang)}</section>${invoiceForm(p.invoices.length ? t.attachAnother : t.attachInvoice)}`;
      break;
    case 'paid':
      body = html`<section class="card"><p class="status ok">${p.paidAt ? t.paidOn(dayOf(p.paidAt)) : t.paid}</p>${payoutSummary(p, lang)}${proofLink(p, v.proofUrl, lang)}<p class="muted">${t.paidLate}</p>${fileList(p, lang)}</section>${invoiceForm(p.invoices.length ? t.attachAnother : t.attachInvoice)}`;
      break;
    case 'canceled':
      body = html`<section class="card"><p class="muted">${say(t.canceled(b))}</p></section>`;
      break;
  }
  // With the payout form on the page, switching language re-posts what was typed instead of losing it.
  const switchForm = p.status === 'sent' && !p.payout ? 'main-form' : null;
  return page(status, lang, `${t.payTitle} · ${v.businessName}`, v.switchHref, [head, body], switchForm);
}

/** The standing request link of a business. */
export function standingLinkPage(v: Common, status = 200): HttpResponse {
  const t = messages(v.lang);
  const f: FormState = { t, values: v.values ?? {}, problems: v.problems ?? {} };
  const contactError = f.problems.contact ? html`<p class="err" id="contact-err" role="alert">${t.problems[f.problems.contact]}</p>` : '';
  const vat = f.values.vatIncluded === 'on';
  const body = html`<section class="card"><h1>${say(t.linkTitle(iso(v.businessName)))}</h1><p class="muted">${say(t.linkIntro(iso(v.businessName)))}</p></section>
<form id="main-form" class="card" method="post" action="${v.action}" enctype="multipart/form-data">
${refused(f, v.chooseAgain)}
${hidden('submissionId', v.submissionId)}
${field(f, 'name', t.name, { autocomplete: 'name', required: true, auto: true })}
${field(f, 'phone', t.phone, { type: 'tel', inputmode: 'tel', ltr: true, autocomplete: 'tel', maxlength: 40, describedBy: f.problems.contact ? 'contact-err' : undefined })}
${field(f, 'email', t.email, { type: 'email', inputmode: 'email', ltr: true, autocomplete: 'email', maxlength: 254, hint: t.contactHint, describedBy: f.problems.contact ? 'contact-err' : undefined })}
${contactError}
${field(f, 'amount', t.amountIls, { inputmode: 'decimal', ltr: true, required: true, hint: t.amountHint, maxlength: 20 })}
<label class="check"><input type="checkbox" name="vatIncluded" value="on"${vat ? html` checked` : ''}> ${t.vatIncluded}</label>
<label class="check"><input type="checkbox" name="noVat" value="on"${f.values.noVat === 'on' ? html` checked` : ''}> ${t.noVatCheck}</label>
${textArea(f, 'description', t.whatFor, true)}
${payoutFields(f, [])}
${invoiceInput(f, false, t.optional)}
<button type="submit">${t.sendRequest}</button>
${trustNote(v)}
</form>`;
  return page(status, v.lang, t.linkTitle(v.businessName), v.switchHref, body, 'main-form');
}
