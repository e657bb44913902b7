import { PAY_METHODS, type PayMethod } from '../../domain/payments/payments.ts';
import { ISRAELI_BANKS } from '../../domain/payments/israeliBanks.ts';
import type { Problems } from '../../domain/payments/supplierSubmission.ts';
import { html, type Html } from './html.ts';
import type { Messages } from './i18n.ts';

/** What a form re-renders with after a refused submission. */
export interface FormState {
  t: Messages;
  values: Record<string, string>;
  problems: Problems;
}

interface FieldOpts {
  type?: 'text' | 'tel' | 'email';
  inputmode?: 'numeric' | 'decimal' | 'tel' | 'email';
  ltr?: boolean;
  autocomplete?: string;
  required?: boolean;
  tag?: string;
  hint?: string;
  maxlength?: number;
  /** Free text in either language: the browser picks the direction from what is typed. */
  auto?: boolean;
  /** An error shown elsewhere that concerns this input too (e.g. "a phone or an email"). */
  describedBy?: string;
}

const errorLine = (f: FormState, name: string) => {
  const p = f.problems[name];
  return p ? html`<p class="err" id="${name}-err">${f.t.problems[p]}</p>` : '';
};

export function field(f: FormState, name: string, label: string, o: FieldOpts = {}): Html {
  const bad = Boolean(f.problems[name]);
  const described = bad ? `${name}-err` : o.describedBy;
  return html`<div><label for="${name}">${label}${o.tag ? html` <span class="tag">(${o.tag})</span>` : ''}</label>
<input type="${o.type ?? 'text'}" id="${name}" name="${name}" value="${f.values[name] ?? ''}"${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.ltr ? html` dir="ltr"` : o.auto ? html` dir="auto"` : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.required ? html` required` : ''} maxlength="${o.maxlength ?? 200}"${bad || o.describedBy ? html` class="invalid" aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
${o.hint ? html`<p class="hint">${o.hint}</p>` : ''}${errorLine(f, name)}</div>`;
}

export function textArea(f: FormState, name: string, label: string, required: boolean): Html {
  const bad = Boolean(f.problems[name]);
  return html`<div><label for="${name}">${label}</label>
<textarea id="${name}" name="${name}" dir="auto" maxlength="2000"${required ? html` required` : ''}${bad ? html` class="invalid" aria-invalid="true" aria-describedby="${name}-err"` : ''}>${f.values[name] ?? ''}</textarea>${errorLine(f, name)}</div>`;
}

/**
 * The payout choice. Without JavaScript both groups are in the form; CSS `:has()` shows only the
 * chosen one, and the server reads only the chosen method's fields.
 */
export function payoutFields(f: FormState, payMethods: readonly PayMethod[]): Html {
  const { t } = f;
  const allowed = payMethods.length ? payMethods : PAY_METHODS;
  const chosen = allowed.includes(f.values.method as PayMethod) ? f.values.method : allowed[0];
  const radio = (m: PayMethod) =>
    html`<label><input type="radio" id="m-${m}" name="method" value="${m}"${m === chosen ? html` checked` : ''}> ${t[m]}</label>`;
  const choice =
    allowed.length > 1
      ? html`<fieldset><legend class="label">${t.payoutTitle}</legend><div class="choice">${allowed.map(radio)}</div>${errorLine(f, 'method')}</fieldset>`
      : html`<p class="label">${t.payoutTitle}</p><p class="muted">${t[allowed[0]]}</p><input type="hidden" name="method" value="${allowed[0]}">`;
  const bank = allowed.includes('bank')
    ? html`<div class="bank"><div class="row">${bankSelect(f)}${field(f, 'bankBranch', t.bankBranch, { inputmode: 'numeric', ltr: true, maxlength: 5 })}</div>
${field(f, 'bankAccount', t.bankAccount, { inputmode: 'numeric', ltr: true, maxlength: 15 })}
${field(f, 'bankBeneficiary', t.bankBeneficiary, { autocomplete: 'name', maxlength: 100, auto: true })}</div>`
    : '';
  const bit = allowed.includes('bit') ? html`<div class="bit">${field(f, 'bitPhone', t.bitPhone, { type: 'tel', inputmode: 'tel', ltr: true, autocomplete: 'tel', maxlength: 40 })}</div>` : '';
  return html`${choice}${bank}${bit}`;
}

/** The bank as a list of Israeli banks (code and name), so the code is never mistyped. */
function bankSelect(f: FormState): Html {
  const chosen = (f.values.bankCode ?? '').padStart(2, '0');
  const bad = Boolean(f.problems.bankCode);
  const he = f.t.switchLabel === 'English';
  return html`<div><label for="bankCode">${f.t.bankCode}</label>
<select id="bankCode" name="bankCode"${bad ? html` class="invalid" aria-invalid="true" aria-describedby="bankCode-err"` : ''}>
<option value="">${f.t.chooseBank}</option>
${ISRAELI_BANKS.map((b) => html`<option value="${b.code}"${b.code === chosen ? html` selected` : ''}>${b.code} · ${he ? b.he : b.en}</option>`)}
</select>${errorLine(f, 'bankCode')}</div>`;
}

export function invoiceInput(f: FormState, required: boolean, tag: string | null, note: string | null = null): Html {
  const bad = Boolean(f.problems.invoice);
  return html`<div><label for="invoice">${f.t.invoice}${tag ? html` <span class="tag">(${tag})</span>` : ''}</label>
<input type="file" id="invoice" name="invoice" accept="application/pdf,image/*"${required ? html` required` : ''}${bad ? html` class="invalid" aria-invalid="true" aria-describedby="invoice-err"` : ''}>
<p class="hint">${f.t.invoiceHint}</p>${note ? html`<p class="hint">${note}</p>` : ''}${errorLine(f, 'invoice')}</div>`;
}

export const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
