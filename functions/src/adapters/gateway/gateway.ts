/**
 * gateway: Cardcom's REST API v11 (GATEWAY_BASE_URL, or GATEWAY_SANDBOX_BASE_URL when connected with sandbox), shape
 * taken from Cardcom's public v11 swagger. Every call is a JSON POST carrying the API user (ApiName, ApiPassword).
 * - POST /Financial/FinancialTransactions
 *     { ApiName, ApiPassword, FromCreateDate, ToCreateDate (DDMMYYYY), AddDepositedTransaction, Page (from 1), Page_size (10–2000) }
 *   → { ResponseCode (0 = ok), Description, Page, Page_size, FinancialTransactions: [{ Id, SapakNumber, BankDepositesId,
 *       BankDepositAt, DepositeAmount, DepositeCurrency, CreditCardCurrency, BrutoOrgCurAmt, AftDiscAmtDepoCur, IfAmtDepoCur,
 *       FixFeeAmtDepoCurr, VatIfNisDepoCur, PurchaseDate, ... }] }
 * A merchant (row) is the merchant number money is deposited to (SapakNumber); a month's payout reports are its bank
 * deposits (BankDepositesId) dated in the month: one summary CSV plus one CSV of lines per deposit.
 * 401 (Cardcom: "Invalid username") → invalid-argument at connect, NeedsReconnect later; ResponseCode ≠ 0 or another 4xx →
 * failed-precondition with Cardcom's description; 429 retried (Retry-After); network failures, timeouts
 * (GATEWAY_TIMEOUT_MS) and 5xx are ProviderUnavailable.
 * Amounts: the swagger gives BrutoOrgCurAmt (and its discounts) in the transaction's currency (CreditCardCurrency), and
 * AftDiscAmtDepoCur ("amount after discounts"), IfAmtDepoCur, FixFeeAmtDepoCurr, VatIfNisDepoCur and DepositeAmount in
 * the deposit's currency (DepositeCurrency). The reports' Gross is AftDiscAmtDepoCur, so gross − fees − VAT = deposited
 * in one currency; the sale's own amount and currency are a column of their own.
 * Currency codes: Cardcom's swagger documents its coin codes as "1 - ILS, 2 - USD, else ISO Coin" (ISOCoinId); the
 * payout rows' DepositeCurrency carries no list of its own and is read the same way.
 */
import { ApiError, invalid, precondition } from '../../core/errors.ts';
import { csvFile, type CsvColumn, type CsvValue } from '../../core/csv.ts';
import { NeedsReconnect, registerStatementSource, type SourceEnv, type StatementFile, type StatementSource } from '../../domain/statements/statementSources.ts';
import { providerFetch } from '../providerHttp.ts';

interface CardcomFinancialTransaction {
  Id?: number;
  SapakNumber?: number;
  BankDepositesId?: number | null;
  BankDepositAt?: string | null;
  DepositeAmount?: number;
  DepositeCurrency?: number;
  CreditCardCurrency?: number;
  BrutoOrgCurAmt?: number;
  AftDiscAmtDepoCur?: number;
  IfAmtDepoCur?: number;
  FixFeeAmtDepoCurr?: number;
  VatIfNisDepoCur?: number;
  PurchaseDate?: string;
  Brand?: string;
  NoOfPmt?: number;
  PmtNo?: number;
  Last4CardDigitsStr?: string | null;
}
interface CardcomPage {
  ResponseCode?: number;
  Description?: string | null;
  FinancialTransactions?: CardcomFinancialTransaction[] | null;
}

const PAGE_SIZE = 2000;
/** 100,000 transactions in a month; beyond that a sync is refused rather than storing a partial report. */
const MAX_PAGES = 50;
/** Connect reads the whole 24-month window at once up to this many pages, then month by month. */
const WINDOW_PAGES = 3;
/** Cardcom's currency codes: 1 and 2 are its own (shekel, dollar); others are ISO 4217 numeric. */
const CURRENCIES: Record<number, string> = { 1: 'ILS', 2: 'USD', 376: 'ILS', 840: 'USD', 978: 'EUR', 826: 'GBP' };

const baseOf = (creds: Record<string, string>, env: SourceEnv) => (creds.sandbox ? env.config.gatewaySandboxBaseUrl : env.config.gatewayBaseUrl);
/** `YYYY-MM` + day → Cardcom's DDMMYYYY. */
const ddmmyyyy = (month: string, day: number) => `${String(day).padStart(2, '0')}${month.slice(5, 7)}${month.slice(0, 4)}`;
const lastDay = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
const currencyOf = (code: number | undefined) => (code === undefined ? '' : (CURRENCIES[code] ?? String(code)));
/** Cardcom answers local (Israel) times; the month is read off the date as written. */
const monthOf = (at: string | null | undefined) => (at && /^\d{4}-\d{2}/.test(at) ? at.slice(0, 7) : null);

/** Cardcom's own words, without anything that could echo the credential back. */
function describe(text: string | null | undefined, creds: Record<string, string>): string {
  let s = String(text ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
  for (const secret of [creds.password, creds.username]) if (secret) s = s.split(secret).join('…');
  return s || 'no description';
}

/** Pages through one query; `complete` is false when it stopped at `maxPages`. */
async function financialTransactions(
  creds: Record<string, string>,
  env: SourceEnv,
  from: string,
  to: string,
  phase: 'connect' | 'sync',
  maxPages: number,
): Promise<{ rows: CardcomFinancialTransaction[]; complete: boolean }> {
  const all: CardcomFinancialTransaction[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const body = { ApiName: creds.username, ApiPassword: creds.password, FromCreateDate: from, ToCreateDate: to, AddDepositedTransaction: true, Page: page, Page_size: PAGE_SIZE };
    const res = await providerFetch(
      `${baseOf(creds, env)}/Financial/FinancialTransactions`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
      { provider: 'Cardcom', timeoutMs: env.config.providerTimeoutMs.gateway },
    );
    if (res.status === 401) {
      if (phase === 'connect') throw invalid('password', 'Cardcom refused this API username and password; check the API user name and password in Cardcom and type both again', { reason: 'providerRefusedKey', params: { provider: 'Cardcom' } });
      throw new NeedsReconnect('Cardcom refused the stored API username and password (changed or revoked)');
    }
    if (res.status === 429) throw new ApiError('resource-exhausted', 'Cardcom is rate limiting requests; try again in a minute', { reason: 'providerRateLimited' });
    const data = res.json<CardcomPage>() ?? { Description: res.headers.get('content-type')?.includes('html') ? null : res.text() };
    if (res.status !== 200 || (data.ResponseCode ?? 0) !== 0) {
      throw precondition(`Cardcom refused the payout report (code ${data.ResponseCode ?? res.status}: ${describe(data.Description, creds)}); check that the API user may read financial reports`, { reason: 'providerRefused', params: { provider: 'Cardcom' } });
    }
    if (data.FinancialTransactions !== undefined && data.FinancialTransactions !== null && !Array.isArray(data.FinancialTransactions)) {
      throw precondition('Cardcom answered the payout report in an unknown shape', { reason: 'providerBadAnswer', params: { provider: 'Cardcom' } });
    }
    const rows = data.FinancialTransactions ?? [];
    all.push(...rows);
    if (rows.length < PAGE_SIZE) return { rows: all, complete: true };
  }
  return { rows: all, complete: false };
}

const money = (agorot: number) => (agorot / 100).toFixed(2);
const agorotOf = (n: number | undefined) => Math.round((Number.isFinite(n) ? Number(n) : 0) * 100);
const feesOf = (r: CardcomFinancialTransaction) => agorotOf(r.IfAmtDepoCur) + agorotOf(r.FixFeeAmtDepoCurr);
/** Gross in the deposit's currency; a row without AftDiscAmtDepoCur is rebuilt from what was deposited, fees and VAT. */
const grossOf = (r: CardcomFinancialTransaction) =>
  Number.isFinite(r.AftDiscAmtDepoCur) ? agorotOf(r.AftDiscAmtDepoCur) : agorotOf(r.DepositeAmount) + feesOf(r) + agorotOf(r.VatIfNisDepoCur);

const SUMMARY_COLUMNS: CsvColumn[] = [
  { he: 'מזהה הפקדה', en: 'Deposit ID' },
  { he: 'תאריך הפקדה', en: 'Deposit date' },
  { he: 'מטבע', en: 'Currency' },
  { he: 'עסקאות', en: 'Transactions' },
  { he: 'ברוטו', en: 'Gross' },
  { he: 'עמלות', en: 'Fees' },
  { he: 'מע״מ על עמלות', en: 'VAT on fees' },
  { he: 'הופקד', en: 'Deposited' },
];
const DETAIL_COLUMNS: CsvColumn[] = [
  { he: 'מזהה עסקה', en: 'Transaction ID' },
  { he: 'תאריך רכישה', en: 'Purchase date' },
  { he: 'מותג כרטיס', en: 'Card brand' },
  { he: '4 ספרות אחרונות', en: 'Card last 4' },
  { he: 'תשלום', en: 'Installment' },
  { he: 'ברוטו', en: 'Gross' },
  { he: 'עמלות', en: 'Fees' },
  { he: 'מע״מ על עמלות', en: 'VAT on fees' },
  { he: 'הופקד', en: 'Deposited' },
  { he: 'מטבע', en: 'Currency' },
  { he: 'סכום העסקה', en: 'Sale amount' },
  { he: 'מטבע העסקה', en: 'Sale currency' },
];

/** The month's deposits of one merchant: a summary CSV and one CSV of lines per deposit. */
function payoutReports(merchant: string, month: string, rows: CardcomFinancialTransaction[]): StatementFile[] {
  const deposits = new Map<number, CardcomFinancialTransaction[]>();
  for (const r of rows) {
    if (String(r.SapakNumber) !== merchant || r.BankDepositesId == null || monthOf(r.BankDepositAt) !== month) continue;
    const list = deposits.get(r.BankDepositesId) ?? [];
    list.push(r);
    deposits.set(r.BankDepositesId, list);
  }
  const ids = [...deposits.keys()].sort((a, b) => String(deposits.get(a)![0].BankDepositAt).localeCompare(String(deposits.get(b)![0].BankDepositAt)) || a - b);
  const summary: CsvValue[][] = [];
  const files: StatementFile[] = [];
  for (const id of ids) {
    const lines = deposits.get(id)!;
    const sum = (f: (r: CardcomFinancialTransaction) => number) => lines.reduce((t, r) => t + f(r), 0);
    const currency = currencyOf(lines[0].DepositeCurrency);
    const date = String(lines[0].BankDepositAt).slice(0, 10);
    summary.push([
      id,
      date,
      currency,
      lines.length,
      money(sum(grossOf)),
      money(sum(feesOf)),
      money(sum((r) => agorotOf(r.VatIfNisDepoCur))),
      money(sum((r) => agorotOf(r.DepositeAmount))),
    ]);
    const detail: CsvValue[][] = [];
    for (const r of [...lines].sort((a, b) => (a.Id ?? 0) - (b.Id ?? 0))) {
      detail.push([
        r.Id ?? '',
        String(r.PurchaseDate ?? '').slice(0, 10),
        r.Brand ?? '',
        r.Last4CardDigitsStr ?? '',
        r.NoOfPmt && r.NoOfPmt > 1 ? `${r.PmtNo ?? '?'}/${r.NoOfPmt}` : '',
        money(grossOf(r)),
        money(feesOf(r)),
        money(agorotOf(r.VatIfNisDepoCur)),
        money(agorotOf(r.DepositeAmount)),
        currencyOf(r.DepositeCurrency),
        money(agorotOf(r.BrutoOrgCurAmt)),
        currencyOf(r.CreditCardCurrency ?? r.DepositeCurrency),
      ]);
    }
    files.push({ fileName: `cardcom-${merchant}-${month}-deposit-${id}.csv`, contentType: 'text/csv', bytes: csvFile(DETAIL_COLUMNS, detail) });
  }
  return [{ fileName: `cardcom-${merchant}-${month}-payouts.csv`, contentType: 'text/csv', bytes: csvFile(SUMMARY_COLUMNS, summary) }, ...files];
}

export const gatewaySource: StatementSource = {
  name: 'gateway',
  async connect(creds, env) {
    const oldest = env.months[env.months.length - 1];
    const newest = env.months[0];
    // One query over the offered window checks the API user and finds the merchants and the months with deposits;
    // a busy account (more than WINDOW_PAGES pages) is read month by month instead, so connect never gives up on volume.
    let { rows, complete } = await financialTransactions(creds, env, ddmmyyyy(oldest, 1), ddmmyyyy(newest, lastDay(newest)), 'connect', WINDOW_PAGES);
    if (!complete) {
      rows = [];
      for (const m of env.months) rows.push(...(await financialTransactions(creds, env, ddmmyyyy(m, 1), ddmmyyyy(m, lastDay(m)), 'connect', MAX_PAGES)).rows);
    }
    const merchants = new Set<string>();
    const months = new Set<string>();
    for (const r of rows) {
      if (r.SapakNumber === undefined || r.SapakNumber === null) continue;
      merchants.add(String(r.SapakNumber));
      const m = monthOf(r.BankDepositAt);
      if (r.BankDepositesId != null && m) months.add(m);
    }
    return {
      accounts: [...merchants].sort().map((id) => ({ providerAccountId: id, name: `Cardcom merchant ${id}` })),
      monthsWithActivity: [...months],
    };
  },
  async sync(creds, account, month, env) {
    // Transactions created in the month plus those deposited in it (AddDepositedTransaction); deposits are then picked by date.
    const { rows, complete } = await financialTransactions(creds, env, ddmmyyyy(month, 1), ddmmyyyy(month, lastDay(month)), 'sync', MAX_PAGES);
    if (!complete) throw precondition(`Cardcom lists more than ${MAX_PAGES * PAGE_SIZE} transactions for ${month}; ask Cardcom for this month's deposit reports directly`, { reason: 'providerTooMany', params: { provider: 'Cardcom', month } });
    return payoutReports(account.providerAccountId, month, rows);
  },
};

registerStatementSource(gatewaySource);
