import { getCountrySpecifications } from 'ibantools';
import { PAY_METHODS, type PayMethod } from '../../domain/payments/payments.ts';
import { bankByCode, ISRAELI_BANKS, OTHER_BANK } from '../../domain/payments/israeliBanks.ts';
import { accountLengthFor, type Problems } from '../../domain/payments/supplierSubmission.ts';
import type { Currency } from '../../domain/money.ts';
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

/** The problem in the page language; a refused account number names the length the chosen bank takes. */
function problemText(f: FormState, name: string): string {
  const p = f.problems[name];
  if (name === 'bankAccount' && p === 'bankAccount') {
    const [min, max] = accountLengthFor(f.values);
    const bank = bankByCode(f.values.bankCode === OTHER_BANK ? (f.values.bankCodeOther ?? '') : (f.values.bankCode ?? ''));
    return f.t.bankAccountLength(bank ? (f.t.switchLabel === 'English' ? bank.he : bank.en) : f.t.thatBank, min, max);
  }
  return f.t.problems[p];
}

const errorLine = (f: FormState, name: string) => (f.problems[name] ? html`<p class="err" id="${name}-err">${problemText(f, name)}</p>` : '');

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
export function payoutFields(f: FormState, payMethods: readonly PayMethod[], currency: Currency = 'ILS'): Html {
  const { t } = f;
  const allowed = payMethods.length ? payMethods : PAY_METHODS;
  const chosen = allowed.includes(f.values.method as PayMethod) ? f.values.method : allowed[0];
  const radio = (m: PayMethod) =>
    html`<label><input type="radio" id="m-${m}" name="method" value="${m}"${m === chosen ? html` checked` : ''}> ${t[m]}</label>`;
  const choice =
    allowed.length > 1
      ? html`<fieldset class="payout"><legend class="label section">${t.payoutTitle}</legend><div class="choice">${allowed.map(radio)}</div>${errorLine(f, 'method')}</fieldset>`
      : html`<div class="payout"><p class="label section">${t.payoutTitle}</p><p class="muted">${t[allowed[0]]}</p><input type="hidden" name="method" value="${allowed[0]}"></div>`;
  const bank = !allowed.includes('bank')
    ? ''
    : currency !== 'ILS'
      ? foreignBank(f)
      : html`<div class="bank">${bankSelect(f)}
<div class="other-code">${field(f, 'bankCodeOther', t.bankCodeOther, { inputmode: 'numeric', ltr: true, maxlength: 2, hint: t.bankCodeOtherHint })}</div>
<div class="row"><div class="branch">${field(f, 'bankBranch', t.bankBranch, { inputmode: 'numeric', ltr: true, maxlength: 5 })}</div>${field(f, 'bankAccount', t.bankAccount, { inputmode: 'numeric', ltr: true, maxlength: 15 })}</div>
${field(f, 'bankBeneficiary', t.bankBeneficiary, { autocomplete: 'name', maxlength: 100, auto: true })}</div>`;
  const bit = allowed.includes('bit') ? html`<div class="bit">${field(f, 'bitPhone', t.bitPhone, { type: 'tel', inputmode: 'tel', ltr: true, autocomplete: 'tel', maxlength: 40 })}</div>` : '';
  return html`${choice}${bank}${bit}`;
}

/**
 * The bank as a list of Israeli banks (code and name), so the code is never mistyped; the last entry,
 * "other bank", takes a typed code (its field shows only when chosen, by CSS `:has()`).
 */
function bankSelect(f: FormState): Html {
  const raw = f.values.bankCode ?? '';
  const chosen = raw === OTHER_BANK ? OTHER_BANK : raw.padStart(2, '0');
  const bad = Boolean(f.problems.bankCode);
  const he = f.t.switchLabel === 'English';
  return html`<div><label for="bankCode">${f.t.bankCode}</label>
<select id="bankCode" name="bankCode"${bad ? html` class="invalid" aria-invalid="true" aria-describedby="bankCode-err"` : ''}>
<option value="">${f.t.chooseBank}</option>
${ISRAELI_BANKS.map((b) => html`<option value="${b.code}"${b.code === chosen ? html` selected` : ''}>${b.code} · ${he ? b.he : b.en}</option>`)}
<option value="${OTHER_BANK}"${chosen === OTHER_BANK ? html` selected` : ''}>${f.t.otherBank}</option>
</select>${errorLine(f, 'bankCode')}</div>`;
}

/** Countries by ISO code, named in the page language and sorted by that name. */
const countryOptions = (lang: 'he' | 'en') => {
  const names = new Intl.DisplayNames([lang], { type: 'region' });
  return Object.keys(getCountrySpecifications())
    .filter((c) => /^[A-Z]{2}$/.test(c) && names.of(c) !== c)
    .map((code) => ({ code, name: names.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, lang));
};
const COUNTRIES = { he: countryOptions('he'), en: countryOptions('en') };

/** A bank abroad (USD, EUR): country, IBAN (or account number), SWIFT/BIC, bank name, beneficiary name and address. */
function foreignBank(f: FormState): Html {
  const { t } = f;
  const lang = t.switchLabel === 'English' ? 'he' : 'en';
  const chosen = (f.values.bankCountry ?? '').toUpperCase();
  const bad = Boolean(f.problems.bankCountry);
  return html`<div class="bank">
<div><label for="bankCountry">${t.bankCountry}</label>
<select id="bankCountry" name="bankCountry" autocomplete="country"${bad ? html` class="invalid" aria-invalid="true" aria-describedby="bankCountry-err"` : ''}>
<option value="">${t.chooseCountry}</option>
${COUNTRIES[lang].map((c) => html`<option value="${c.code}"${c.code === chosen ? html` selected` : ''}>${c.name}</option>`)}
</select>${errorLine(f, 'bankCountry')}</div>
${field(f, 'iban', t.iban, { ltr: true, maxlength: 42, autocomplete: 'off' })}
${field(f, 'swift', t.swift, { ltr: true, maxlength: 14, autocomplete: 'off' })}
${field(f, 'bankName', t.bankName, { maxlength: 100, auto: true })}
${field(f, 'bankBeneficiary', t.beneficiaryName, { autocomplete: 'name', maxlength: 100, auto: true })}
${field(f, 'beneficiaryAddress', t.beneficiaryAddress, { autocomplete: 'street-address', maxlength: 300, auto: true })}</div>`;
}

export function invoiceInput(f: FormState, required: boolean, tag: string | null, note: string | null = null): Html {
  const bad = Boolean(f.problems.invoice);
  return html`<div><label for="invoice">${f.t.invoice}${tag ? html` <span class="tag">(${tag})</span>` : ''}</label>
<input type="file" id="invoice" name="invoice" accept="application/pdf,image/*"${required ? html` required` : ''}${bad ? html` class="invalid" aria-invalid="true" aria-describedby="invoice-err"` : ''}>
<p class="hint">${f.t.invoiceHint}</p>${note ? html`<p class="hint">${note}</p>` : ''}${errorLine(f, 'invoice')}</div>`;
}

export const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
