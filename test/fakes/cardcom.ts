import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of Cardcom's REST API v11 (https://secure.cardcom.solutions/api/v11), as
 * functions/src/adapters/gateway/gateway.ts calls it, as strict as Cardcom's public v11 swagger
 * (secure.cardcom.solutions/swagger: Financial/FinancialTransactions, FinancialTransactionsReq, FinancialTransactionsResp):
 * - POST /api/v11/Financial/FinancialTransactions, JSON only (415 otherwise)
 *     { ApiName*, ApiPassword* (minLength 1), FromCreateDate, ToCreateDate (DDMMYYYY, real dates, from ≤ to),
 *       AddDepositedTransaction, Page* (from 1), Page_size* (10–2000), BankDepositeId }
 *   → 200 { ResponseCode: 0, Description, Page, Page_size, FinancialTransactions: [...] }
 *   → 401 { ResponseCode, Description: 'Invalid username' } for an unknown API user or a wrong password
 *   → 400 { ResponseCode, Description } for a malformed request (a missing required field, a bad date or page)
 * Rows are returned when created in the range, or (AddDepositedTransaction) deposited in it. Records every request.
 * A row's amounts follow the swagger's field descriptions: BrutoOrgCurAmt in the transaction's currency
 * (CreditCardCurrency); AftDiscAmtDepoCur, IfAmtDepoCur, FixFeeAmtDepoCurr, VatIfNisDepoCur and DepositeAmount in the
 * deposit's currency (DepositeCurrency); `cardcomAmounts` builds them as Cardcom would for a sale converted at a rate.
 */
export interface FakeCardcomRow {
  Id: number;
  SapakNumber: number;
  /** `YYYY-MM-DDTHH:mm:ss`, Israel local time, as Cardcom writes it. */
  CreateDate: string;
  PurchaseDate: string;
  BankDepositesId: number | null;
  BankDepositAt: string | null;
  DepositeCurrency: number;
  /** The card transaction's currency (Cardcom's coin codes: 1 ILS, 2 USD, else ISO 4217 numeric); absent with the next
   * three: a sale in the deposit's currency, answered as CreditCardCurrency = DepositeCurrency, rate 1,
   * AftDiscAmtDepoCur = BrutoOrgCurAmt, no fixed fee. */
  CreditCardCurrency?: number;
  /** The sale (or this installment) in the transaction's currency. */
  BrutoOrgCurAmt: number;
  /** The rate the sale was converted at into the deposit's currency (1 when they are the same). */
  CurrencyOrIndexRate?: number;
  /** The sale after discounts, in the deposit's currency: what the fees are taken from. */
  AftDiscAmtDepoCur?: number;
  IfAmtDepoCur: number;
  FixFeeAmtDepoCurr?: number;
  VatIfNisDepoCur: number;
  DepositeAmount: number;
  Brand: string;
  Last4CardDigitsStr: string;
  NoOfPmt: number;
  PmtNo: number;
}

export interface FakeCardcom {
  baseUrl: string;
  /** API username → password. */
  users: Map<string, string>;
  rows: FakeCardcomRow[];
  requests: { path: string; apiName: string | undefined; body: Record<string, unknown> }[];
  /** When set, a valid API user's request answers 200 with this non-zero ResponseCode (e.g. no permission for reports). */
  refuse: { ResponseCode: number; Description: string } | null;
  /** The next n requests answer 429 with Retry-After (seconds). */
  rateLimitNext(n: number, retryAfter?: string): void;
  /** The next n requests answer this status (e.g. 500). */
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}

/**
 * A sale's amounts as Cardcom reports them: `amount` in `currency`, converted at `rate` into `depositCurrency`; the fee
 * (percent of the converted amount, plus a fixed fee) and VAT on the fees in the deposit's currency; deposited = the
 * converted amount − fees − VAT. Computed in agorot so the figures add up exactly.
 */
export function cardcomAmounts(a: { amount: number; currency: number; depositCurrency?: number; rate?: number; feePct?: number; fixFee?: number; vatPct?: number }) {
  const rate = a.rate ?? 1;
  const gross = Math.round(a.amount * rate * 100);
  const fee = Math.round((gross * (a.feePct ?? 0)) / 100);
  const fix = Math.round((a.fixFee ?? 0) * 100);
  const vat = Math.round(((fee + fix) * (a.vatPct ?? 18)) / 100);
  return {
    CreditCardCurrency: a.currency,
    BrutoOrgCurAmt: a.amount,
    CurrencyOrIndexRate: rate,
    DepositeCurrency: a.depositCurrency ?? 1,
    AftDiscAmtDepoCur: gross / 100,
    IfAmtDepoCur: fee / 100,
    FixFeeAmtDepoCurr: fix / 100,
    VatIfNisDepoCur: vat / 100,
    DepositeAmount: (gross - fee - fix - vat) / 100,
  };
}

const DATE = /^(\d{2})(\d{2})(\d{4})$/;
/** DDMMYYYY → YYYY-MM-DD (null when malformed or not a calendar date). */
const isoDay = (s: unknown) => {
  const m = typeof s === 'string' ? DATE.exec(s) : null;
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso ? iso : null;
};

export async function startFakeCardcom(): Promise<FakeCardcom> {
  let limited = 0;
  let retryAfter = '0';
  let failing = 0;
  let failStatus = 500;
  const fake: FakeCardcom = {
    baseUrl: '',
    close: async () => undefined,
    users: new Map(),
    rows: [],
    requests: [],
    refuse: null,
    rateLimitNext(n, after = '0') {
      limited = n;
      retryAfter = after;
    },
    failNext(n, status) {
      failing = n;
      failStatus = status;
    },
  };
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    } catch {
      body = {};
    }
    fake.requests.push({ path: url.pathname, apiName: typeof body.ApiName === 'string' ? body.ApiName : undefined, body });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (limited > 0) {
      limited--;
      return send(429, { ResponseCode: 429, Description: 'Too many requests' }, { 'retry-after': retryAfter });
    }
    if (failing > 0) {
      failing--;
      return send(failStatus, { ResponseCode: failStatus, Description: 'Internal Server Error' });
    }
    if (req.method !== 'POST' || url.pathname !== '/api/v11/Financial/FinancialTransactions') return send(404, { ResponseCode: 404, Description: 'Not found' });
    if (req.headers['content-type']?.split(';')[0] !== 'application/json') return send(415, { ResponseCode: 415, Description: 'Unsupported Media Type' });
    for (const f of ['ApiName', 'ApiPassword']) if (typeof body[f] !== 'string' || !(body[f] as string).length) return send(400, { ResponseCode: 1, Description: `The ${f} field is required.` });
    for (const f of ['Page', 'Page_size']) if (typeof body[f] !== 'number') return send(400, { ResponseCode: 1, Description: `The ${f} field is required.` });
    const user = typeof body.ApiName === 'string' ? body.ApiName : '';
    if (!user || fake.users.get(user) !== body.ApiPassword) return send(401, { ResponseCode: 401, Description: 'Invalid username' });
    if (fake.refuse) return send(200, { ...fake.refuse, FinancialTransactions: null });
    const from = isoDay(body.FromCreateDate);
    const to = isoDay(body.ToCreateDate);
    const page = Number(body.Page);
    const size = Number(body.Page_size);
    if (!from || !to) return send(400, { ResponseCode: 1, Description: 'Date format must be DDMMYYYY' });
    if (from > to) return send(400, { ResponseCode: 1, Description: 'FromCreateDate must not be after ToCreateDate' });
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 10 || size > 2000) return send(400, { ResponseCode: 1, Description: 'Page from 1, Page_size 10-2000' });
    const inRange = (at: string | null) => !!at && at.slice(0, 10) >= from && at.slice(0, 10) <= to;
    const list = fake.rows.filter((r) => inRange(r.CreateDate) || (body.AddDepositedTransaction === true && inRange(r.BankDepositAt)));
    const slice = list.slice((page - 1) * size, page * size).map((r) => ({
      CreditCardCurrency: r.DepositeCurrency,
      CurrencyOrIndexRate: 1,
      AftDiscAmtDepoCur: r.BrutoOrgCurAmt,
      FixFeeAmtDepoCurr: 0,
      ...r,
      ARN: `ARN${r.Id}`,
      CreditCardTransactionsId: r.Id + 500000,
    }));
    send(200, { ResponseCode: 0, Description: 'OK', Page: page, Page_size: size, FinancialTransactions: slice });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  // The same object the server reads, so a test's changes (refuse, users, rows) take effect.
  fake.baseUrl = `http://127.0.0.1:${port}/api/v11`;
  fake.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
