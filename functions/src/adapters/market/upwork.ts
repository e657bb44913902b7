/**
 * market: Upwork. OAuth 2.0 authorization code (MARKET_AUTH_URL, MARKET_TOKEN_URL) and the GraphQL API (MARKET_BASE_URL,
 * POST {query, variables} with a Bearer access token; `X-Upwork-API-TenantId: <organization id>` picks the organization).
 * - companySelector { items { organizationId title typeTitle } }            → the organizations (statement accounts)
 * - accountingEntity { id }  (tenant = the organization)                    → its accounting entity
 * - transactionHistory(transactionHistoryFilter: { aceIds_any, transactionDateTime_bt: { rangeStart, rangeEnd } })
 *     { transactionDetail { transactionHistoryRow { recordId transactionCreationDate type ... transactionAmount { rawValue currency } } } }
 * The token endpoint takes the client id and secret in the form body (as Upwork's own node-upwork-oauth2 client sends
 * them: simple-oauth2 with authorizationMethod 'body'). Every call has MARKET_TIMEOUT_MS; network failures, timeouts and
 * 5xx are `unavailable`.
 * Credentials: { accessToken, refreshToken, expiresAt (ms) }. An expired access token (by its expiry or a 401) is refreshed
 * once with the refresh token and the new pair saved sealed (env.saveCredentials); invalid_grant on refresh → NeedsReconnect.
 */
import { ApiError, precondition } from '../../core/errors.ts';
import { csvFile, type CsvColumn } from '../../core/csv.ts';
import { jerusalemDay } from '../../core/clock.ts';
import { lastDayOf } from '../../domain/months.ts';
import { NeedsReconnect, ProviderUnavailable, registerStatementSource, type StatementSource } from '../../domain/statements/statementSources.ts';
import { providerFetch, type ProviderResponse } from '../providerHttp.ts';
import { MarketError, registerMarketplace, type MarketCredentials, type MarketplaceOAuth, type MarketRow, type MarketSettings } from '../../ports/marketplace.ts';

export { MarketError, type MarketCredentials, type MarketFailure, type MarketRow, type MarketSettings } from '../../ports/marketplace.ts';

/** The consent page URL (response_type=code). */
export function authorizeUrl(s: MarketSettings, opts: { redirectUri: string; state: string }): string {
  const u = new URL(s.authUrl);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('client_id', s.clientId);
  u.searchParams.set('redirect_uri', opts.redirectUri);
  u.searchParams.set('state', opts.state);
  return u.toString();
}

/** One HTTP call to Upwork; unreachable, timed out or 5xx → MarketError('unavailable'). */
async function upworkFetch(s: MarketSettings, url: string, init: RequestInit): Promise<ProviderResponse> {
  try {
    return await providerFetch(url, init, { provider: 'Upwork', timeoutMs: s.timeoutMs ?? 20_000 });
  } catch (e) {
    throw new MarketError('unavailable', e instanceof ProviderUnavailable ? e.message : 'Upwork is not answering');
  }
}

async function tokenCall(s: MarketSettings, form: Record<string, string>, nowMs: number): Promise<MarketCredentials> {
  const res = await upworkFetch(s, s.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ ...form, client_id: s.clientId, client_secret: s.clientSecret }).toString(),
  });
  const body = (res.json() ?? {}) as { access_token?: string; refresh_token?: string; expires_in?: number; error?: string };
  if (res.ok && body.access_token) {
    return {
      accessToken: body.access_token,
      // Upwork may return a new refresh token; keep the old one when it does not.
      refreshToken: body.refresh_token || form.refresh_token || '',
      expiresAt: String(nowMs + Math.max(60, Number(body.expires_in) || 3600) * 1000),
    };
  }
  // Only the OAuth error code is kept: descriptions may echo what was sent.
  const code = typeof body.error === 'string' ? body.error.replace(/[^a-z_]/gi, '').slice(0, 40) : '';
  if (res.status === 429) throw new MarketError('ratelimited', 'Upwork is rate limiting requests');
  if (res.status >= 500) throw new MarketError('unavailable', `Upwork's token endpoint answered ${res.status}`);
  if (code === 'invalid_grant') throw new MarketError('revoked', 'Upwork refused the stored grant (invalid_grant: revoked or expired)');
  throw new MarketError('refused', `Upwork's token endpoint refused the request (${res.status}${code ? ` ${code}` : ''})`);
}

export const exchangeCode = (s: MarketSettings, opts: { code: string; redirectUri: string }, nowMs: number) =>
  tokenCall(s, { grant_type: 'authorization_code', code: opts.code, redirect_uri: opts.redirectUri }, nowMs);

export const refreshCredentials = (s: MarketSettings, refreshToken: string, nowMs: number) =>
  tokenCall(s, { grant_type: 'refresh_token', refresh_token: refreshToken }, nowMs);

/** GraphQL calls with one set of credentials; refreshes the access token once when it expired. */
export class MarketSession {
  private creds: MarketCredentials;
  private refreshed = false;
  private readonly s: MarketSettings;
  private readonly nowMs: () => number;
  private readonly onRenew?: (c: MarketCredentials) => Promise<void>;
  private readonly reload?: () => Promise<Record<string, string> | null>;
  private readonly reloadWaitMs: number;

  constructor(
    s: MarketSettings,
    creds: MarketCredentials,
    opts: { nowMs: () => number; onRenew?: (c: MarketCredentials) => Promise<void>; reload?: () => Promise<Record<string, string> | null>; reloadWaitMs?: number },
  ) {
    this.s = s;
    this.creds = creds;
    this.nowMs = opts.nowMs;
    this.onRenew = opts.onRenew;
    this.reload = opts.reload;
    this.reloadWaitMs = opts.reloadWaitMs ?? 300;
  }

  private async refresh() {
    if (!this.creds.refreshToken) throw new MarketError('revoked', 'no refresh token is stored');
    const used = this.creds.refreshToken;
    try {
      this.creds = await refreshCredentials(this.s, used, this.nowMs());
    } catch (e) {
      // Syncs of one connection run side by side and Upwork rotates refresh tokens: when another sync refreshed first,
      // ours is spent. Take the pair it stored (it may take a moment to land) before calling the grant revoked.
      if (!(e instanceof MarketError) || e.failure !== 'revoked' || !this.reload) throw e;
      for (let i = 0; i < 4; i++) {
        const stored = await this.reload();
        if (stored?.refreshToken && stored.refreshToken !== used) {
          this.creds = stored as MarketCredentials;
          this.refreshed = true;
          return;
        }
        await new Promise((r) => setTimeout(r, this.reloadWaitMs));
      }
      throw e;
    }
    this.refreshed = true;
    await this.onRenew?.(this.creds);
  }

  async query<T>(query: string, variables: Record<string, unknown> = {}, tenantId?: string): Promise<T> {
    // A token known to be expired (a minute's margin) is refreshed before the call.
    if (!this.refreshed && Number(this.creds.expiresAt) <= this.nowMs() + 60_000) await this.refresh();
    for (;;) {
      const res = await upworkFetch(this.s, this.s.baseUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.creds.accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json',
          ...(tenantId && { 'x-upwork-api-tenantid': tenantId }),
        },
        body: JSON.stringify({ query, variables }),
      });
      if (res.status === 401 && !this.refreshed) {
        await this.refresh();
        continue;
      }
      const body = res.json() as { data?: T; errors?: { message?: string }[] } | null;
      if (res.status === 401) throw new MarketError('auth', 'Upwork refused the access token');
      if (res.status === 429) throw new MarketError('ratelimited', 'Upwork is rate limiting requests');
      if (res.status >= 500 || !body) throw new MarketError('unavailable', `Upwork answered ${res.status}`);
      if (res.status === 403) throw new MarketError('refused', 'Upwork refused access (the app lacks a permission for this organization)');
      if (body.errors?.length || !res.ok || !body.data) {
        const msg = (body.errors ?? []).map((e) => String(e.message ?? '')).join('; ').slice(0, 200);
        throw new MarketError('refused', `Upwork refused the query (${res.status}${msg ? `: ${msg}` : ''})`);
      }
      return body.data;
    }
  }
}

export interface MarketOrganization {
  id: string;
  name: string;
}

export async function listOrganizations(session: MarketSession): Promise<MarketOrganization[]> {
  const data = await session.query<{ companySelector?: { items?: { organizationId?: string; title?: string }[] } }>(
    'query companySelector { companySelector { items { organizationId title typeTitle } } }',
  );
  const seen = new Set<string>();
  const out: MarketOrganization[] = [];
  for (const it of data.companySelector?.items ?? []) {
    if (!it.organizationId || seen.has(it.organizationId)) continue;
    seen.add(it.organizationId);
    out.push({ id: it.organizationId, name: (it.title || it.organizationId).slice(0, 200) });
  }
  return out;
}

export const MARKET_ROW_FIELDS = ['id', 'date', 'type', 'subtype', 'description', 'amount', 'currency', 'balance', 'freelancer', 'agency', 'company', 'invoiceId', 'status'] as const;

interface UpworkMoney {
  rawValue?: string | number | null;
  currency?: string | null;
}
interface UpworkRow {
  recordId?: string | null;
  transactionCreationDate?: string | number | null;
  type?: string | null;
  accountingSubtype?: string | null;
  descriptionUI?: string | null;
  description?: string | null;
  transactionAmount?: UpworkMoney | null;
  runningChargeableBalance?: UpworkMoney | null;
  assignmentDeveloperName?: string | null;
  assignmentAgencyName?: string | null;
  assignmentCompanyName?: string | null;
  relatedInvoiceId?: string | null;
  paymentStatus?: string | null;
}

const TRANSACTIONS_QUERY = `query transactionHistory($transactionHistoryFilter: TransactionHistoryFilter) {
  transactionHistory(transactionHistoryFilter: $transactionHistoryFilter) {
    transactionDetail {
      transactionHistoryRow {
        recordId transactionCreationDate type accountingSubtype descriptionUI description
        transactionAmount { rawValue currency } runningChargeableBalance { rawValue currency }
        assignmentDeveloperName assignmentAgencyName assignmentCompanyName relatedInvoiceId paymentStatus
      }
    }
  }
}`;

const str = (v: unknown, max = 500): string | null => (v === null || v === undefined || v === '' ? null : String(v).slice(0, max));

/** Upwork answers dates as YYYY-MM-DD(…), kept as written, or epoch ms, an instant: its day in Israel. */
function day(v: unknown): string | null {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d{10,}$/.test(v))) {
    const ms = Number(v);
    return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? jerusalemDay(ms) : null;
  }
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null;
}

function toRow(r: UpworkRow): MarketRow {
  return {
    id: str(r.recordId, 100),
    date: day(r.transactionCreationDate),
    type: str(r.type, 100),
    subtype: str(r.accountingSubtype, 100),
    description: str(r.descriptionUI || r.description),
    amount: str(r.transactionAmount?.rawValue, 40),
    currency: str(r.transactionAmount?.currency, 10),
    balance: str(r.runningChargeableBalance?.rawValue, 40),
    freelancer: str(r.assignmentDeveloperName, 200),
    agency: str(r.assignmentAgencyName, 200),
    company: str(r.assignmentCompanyName, 200),
    invoiceId: str(r.relatedInvoiceId, 100),
    status: str(r.paymentStatus, 100),
  };
}

/** The month's transactions of one organization, in Upwork's order. */
export async function monthTransactions(session: MarketSession, organizationId: string, month: string): Promise<MarketRow[]> {
  const ace = await session.query<{ accountingEntity?: { id?: string } | null }>('query accountingEntity { accountingEntity { id } }', {}, organizationId);
  const aceId = ace.accountingEntity?.id;
  if (!aceId) throw new MarketError('refused', 'Upwork has no accounting entity for this organization');
  // TransactionHistoryFilter.transactionDateTime_bt: "Minimal and maximum date of selected transactions (date should be in
  // yyyy-mm-dd format)", both taken: the month's first and last day.
  const data = await session.query<{ transactionHistory?: { transactionDetail?: { transactionHistoryRow?: UpworkRow[] } | null } | null }>(
    TRANSACTIONS_QUERY,
    { transactionHistoryFilter: { aceIds_any: [aceId], transactionDateTime_bt: { rangeStart: `${month}-01`, rangeEnd: lastDayOf(month) } } },
    organizationId,
  );
  const rows = (data.transactionHistory?.transactionDetail?.transactionHistoryRow ?? []).map(toRow);
  // Upwork's range is inclusive by day; keep strictly the month (a row without a date is kept: it was asked for this month).
  return rows.filter((r) => r.date === null || r.date.startsWith(month));
}

const MARKET_COLUMNS: Record<(typeof MARKET_ROW_FIELDS)[number], CsvColumn> = {
  id: { he: 'מזהה', en: 'ID' },
  date: { he: 'תאריך', en: 'Date' },
  type: { he: 'סוג', en: 'Type' },
  subtype: { he: 'תת-סוג', en: 'Subtype' },
  description: { he: 'תיאור', en: 'Description' },
  amount: { he: 'סכום', en: 'Amount' },
  currency: { he: 'מטבע', en: 'Currency' },
  balance: { he: 'יתרה', en: 'Balance' },
  freelancer: { he: 'פרילנסר', en: 'Freelancer' },
  agency: { he: 'סוכנות', en: 'Agency' },
  company: { he: 'חברה', en: 'Company' },
  invoiceId: { he: 'מספר חשבונית', en: 'Invoice ID' },
  status: { he: 'סטטוס', en: 'Status' },
};

/** The month's transactions as the service's CSV (core/csv.ts: BOM, Hebrew and English headers, safe cells). */
export function transactionsCsv(rows: MarketRow[]): Buffer {
  return csvFile(
    MARKET_ROW_FIELDS.map((f) => MARKET_COLUMNS[f]),
    rows.map((r) => MARKET_ROW_FIELDS.map((f) => r[f])),
  );
}

/** Settings from configuration; a missing client id or secret is refused naming the variables. */
export function marketSettingsFrom(config: {
  marketClientId: string;
  marketClientSecret: string;
  marketAuthUrl: string;
  marketTokenUrl: string;
  marketBaseUrl: string;
  providerTimeoutMs?: { market: number };
}): MarketSettings {
  const missing = [!config.marketClientId && 'MARKET_CLIENT_ID', !config.marketClientSecret && 'MARKET_CLIENT_SECRET'].filter(Boolean);
  if (missing.length) throw precondition(`the freelance marketplace (Upwork) is not configured on this server: set ${missing.join(', ')}`, { reason: 'providerNotConfigured' });
  return {
    clientId: config.marketClientId,
    clientSecret: config.marketClientSecret,
    authUrl: config.marketAuthUrl,
    tokenUrl: config.marketTokenUrl,
    baseUrl: config.marketBaseUrl,
    timeoutMs: config.providerTimeoutMs?.market,
  };
}

/** Maps a MarketError for the statements framework (domain/statements/statementSources.ts). */
function sourceError(e: unknown): unknown {
  if (!(e instanceof MarketError)) return e;
  switch (e.failure) {
    case 'revoked':
    case 'auth':
      return new NeedsReconnect(e.message);
    case 'refused':
      return precondition(e.message, { reason: 'providerRefused', params: { provider: 'Upwork' } });
    case 'ratelimited':
      return new ApiError('resource-exhausted', 'Upwork is rate limiting requests; try again in a minute', { reason: 'providerRateLimited' });
    case 'unavailable':
      return new ProviderUnavailable(e.message); // transient: the sync task retries
  }
}

const fileSlug = (s: string) => s.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'organization';

export const marketSource: StatementSource = {
  name: 'market',
  async connect(creds, env) {
    try {
      const session = new MarketSession(marketSettingsFrom(env.config), creds as MarketCredentials, { nowMs: () => env.nowMs ?? Date.now() });
      const orgs = await listOrganizations(session);
      // Months are not probed: that would be a transaction query per organization and month (docs/decisions.md).
      return { accounts: orgs.map((o) => ({ providerAccountId: o.id, name: o.name })), monthsWithActivity: [] };
    } catch (e) {
      throw sourceError(e);
    }
  },
  async sync(creds, account, month, env) {
    try {
      const session = new MarketSession(marketSettingsFrom(env.config), creds as MarketCredentials, {
        nowMs: () => env.nowMs ?? Date.now(),
        onRenew: env.saveCredentials,
        reload: env.loadCredentials,
      });
      const rows = await monthTransactions(session, account.providerAccountId, month);
      const file = { fileName: `upwork-${fileSlug(account.name)}-${month}.csv`, contentType: 'text/csv', bytes: transactionsCsv(rows) };
      return { files: [file], rows };
    } catch (e) {
      throw sourceError(e);
    }
  },
};

registerStatementSource(marketSource);

/** The marketplace port's Upwork consent, registered on import. */
export const upworkOAuth: MarketplaceOAuth = { name: 'upwork', settingsFrom: marketSettingsFrom, authorizeUrl, exchangeCode };
registerMarketplace(upworkOAuth);
