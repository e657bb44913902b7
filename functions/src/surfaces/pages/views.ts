import type { HttpResponse } from '../http/types.ts';
import type { PaymentRecord } from '../../domain/payments/payments.ts';
import { payoutMethodsFor, type Problems } from '../../domain/payments/supplierSubmission.ts';
import { formatAmount } from '../../domain/money.ts';
import { html, type Html } from './html.ts';
import { messages, type Lang } from './i18n.ts';
import { page } from './layout.ts';
import { field, hidden, invoiceInput, payoutFields, textArea, type FormState } from './forms.ts';

export type Notice = 'done' | 'stale' | null;

interface Common {
  lang: Lang;
  businessName: string;
  /** Where the form posts (this page, in this language). */
  action: string;
  switchHref: string;
  submissionId: string;
  values?: Record<string, string>;
  problems?: Problems;
  /** A file was chosen but the form was refused: browsers cannot refill file inputs. */
  chooseAgain?: boolean;
}

const money = (minor: number, p: Pick<PaymentRecord, 'currency'>) => html`<bdi dir="ltr">${formatAmount(minor, p.currency)}</bdi>`;
const SYMBOL = { ILS: '₪', USD: '$', EUR: '€' } as const;

/** Israel's VAT rate (18% since January 2025). */
export const VAT_PERCENT = 18;

/** "including VAT (₪X of it)" or "plus VAT ₪X (₪Y in all)": the supplier sees which. */
function vatLine(p: PaymentRecord, lang: Lang): Html | '' {
  if (!p.amountAgorot) return '';
  const t = messages(lang);
  const fmt = (minor: number) => formatAmount(Math.round(minor), p.currency);
  if (p.vatIncluded) return html`<p class="muted vat">${t.vatIncludedLine(fmt((p.amountAgorot * VAT_PERCENT) / (100 + VAT_PERCENT)))}</p>`;
  const vat = (p.amountAgorot * VAT_PERCENT) / 100;
  return html`<p class="muted vat">${t.vatPlusLine(fmt(vat), fmt(p.amountAgorot + vat))}</p>`;
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
    o.method === 'bank'
      ? html`${t.bank} · <bdi dir="ltr">${o.bankCode}-${o.bankBranch}</bdi> · ${t.accountEnding} <bdi dir="ltr">…${(o.bankAccount ?? '').slice(-3)}</bdi>`
      : html`${t.bit} · <bdi dir="ltr">…${(o.bitPhone ?? '').slice(-4)}</bdi>`;
  return html`<p><span class="muted">${t.payoutGiven}:</span> ${detail}</p>`;
}

const fileList = (p: PaymentRecord, lang: Lang) =>
  p.invoices.length ? html`<p class="label">${messages(lang).attached}</p><ul class="files">${p.invoices.map((f) => html`<li><bdi>${f.fileName}</bdi></li>`)}</ul>` : '';

/** The supplier link of one payment, in whatever state the payment is. */
export function paymentPage(v: Common & { payment: PaymentRecord; notice: Notice }, status = 200): HttpResponse {
  const { payment: p, lang } = v;
  const t = messages(lang);
  const f: FormState = { t, values: v.values ?? {}, problems: v.problems ?? {} };
  const askAmount = p.status === 'sent' && p.openAmount;
  const notice =
    v.notice === 'done' ? html`<p class="status ok" role="status">${t.done}</p>` : v.notice === 'stale' ? html`<p class="status info" role="status">${t.stale}</p>` : '';

  const heading = p.status === 'paid' ? t.paidTitle(v.businessName) : p.status === 'canceled' ? t.canceledTitle : t.wantsToPay(v.businessName);
  const head = html`<section class="card">
<h1>${heading}</h1>
${askAmount && p.amountAgorot === 0 ? '' : html`<p class="amount">${money(p.amountAgorot, p)}</p>${vatLine(p, lang)}`}
${p.description ? html`<p><span class="muted">${t.description}:</span> <span class="desc">${p.description}</span></p>` : ''}
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
${askAmount ? field(f, 'amount', t.amountField(SYMBOL[p.currency]), { inputmode: 'decimal', ltr: true, required: p.amountAgorot === 0, hint: t.amountHint, maxlength: 20 }) : ''}
${payoutFields(f, payoutMethodsFor(p))}
${invoiceInput(f, false, p.invoiceRequired ? t.neededLater : t.optional, p.invoiceRequired ? t.invoiceLater : null)}
<button type="submit">${t.send}</button>
</form>`;
      break;
    case 'awaiting_invoice':
      body = html`<section class="card"><p class="status wait">${t.awaitingInvoice}</p>${payoutSummary(p, lang)}</section>${invoiceForm(t.attachInvoice)}`;
      break;
    case 'ready':
      body = html`<section class="card"><p class="status ok">${t.ready(v.businessName)}</p>${payoutSummary(p, lang)}${fileList(p, lang)}</section>${invoiceForm(p.invoices.length ? t.attachAnother : t.attachInvoice)}`;
      break;
    case 'paid':
      body = html`<section class="card"><p class="status ok">${p.paidAt ? t.paidOn(dayOf(p.paidAt)) : t.paid}</p>${payoutSummary(p, lang)}<p class="muted">${t.paidLate}</p>${fileList(p, lang)}</section>${invoiceForm(p.invoices.length ? t.attachAnother : t.attachInvoice)}`;
      break;
    case 'canceled':
      body = html`<section class="card"><p class="status bad">${t.canceled}</p></section>`;
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
  const body = html`<section class="card"><h1>${t.linkTitle(v.businessName)}</h1><p class="muted">${t.linkIntro(v.businessName)}</p></section>
<form id="main-form" class="card" method="post" action="${v.action}" enctype="multipart/form-data">
${refused(f, v.chooseAgain)}
${hidden('submissionId', v.submissionId)}
${field(f, 'name', t.name, { autocomplete: 'name', required: true, auto: true })}
${field(f, 'phone', t.phone, { type: 'tel', inputmode: 'tel', ltr: true, autocomplete: 'tel', maxlength: 40, describedBy: f.problems.contact ? 'contact-err' : undefined })}
${field(f, 'email', t.email, { type: 'email', inputmode: 'email', ltr: true, autocomplete: 'email', maxlength: 254, hint: t.contactHint, describedBy: f.problems.contact ? 'contact-err' : undefined })}
${contactError}
${field(f, 'amount', t.amountIls, { inputmode: 'decimal', ltr: true, required: true, hint: t.amountHint, maxlength: 20 })}
<label class="check"><input type="checkbox" name="vatIncluded" value="on"${vat ? html` checked` : ''}> ${t.vatIncluded}</label>
${textArea(f, 'description', t.whatFor, true)}
${payoutFields(f, [])}
${invoiceInput(f, false, t.optional)}
<button type="submit">${t.sendRequest}</button>
</form>`;
  return page(status, v.lang, t.linkTitle(v.businessName), v.switchHref, body, 'main-form');
}
