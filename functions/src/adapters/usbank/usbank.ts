/**
 * usbank: Mercury's REST API (https://api.mercury.com/api/v1, USBANK_BASE_URL), a read-only API token as Bearer.
 * Shapes from Mercury's API reference (docs.mercury.com/reference: getAccounts, getAccountStatements, getStatementPdf)
 * and its changelog entry "account statements":
 * - GET /accounts                                    → { accounts: [{ id (uuid), name, nickname, status, kind }], page? }
 * - GET /account/{id}/statements?start&end[&start_after] → { statements: [{ id (uuid), startDate, endDate (UTCTime
 *   "2016-07-22T00:00:00Z"), downloadUrl, ... }], page: { nextPage? } }; start/end are YYYY-MM-DD, filter on the
 *   statement's period start, both inclusive, and may be at most 3 months apart (Mercury answers 400 otherwise), so
 *   connect asks in windows of three months.
 * - GET /statements/{statementId}/pdf                → the statement PDF (kept rather than downloadUrl, a link on
 *   another host: the token is only ever sent to the API host).
 * 401/403 on connect → invalid-argument token; later → NeedsReconnect. 429 is waited out (Retry-After), then
 * resource-exhausted. Another 4xx is Mercury's refusal: failed-precondition with Mercury's message. Network failures,
 * timeouts (USBANK_TIMEOUT_MS) and 5xx are ProviderUnavailable.
 */
import { ApiError, invalid, precondition } from '../../core/errors.ts';
import { lastDayOf } from '../../domain/months.ts';
import { NeedsReconnect, registerStatementSource, type SourceEnv, type StatementSource } from '../../domain/statements/statementSources.ts';
import { providerFetch, providerMessage, type ProviderResponse } from '../providerHttp.ts';

interface MercuryAccount {
  id: string;
  name?: string;
  nickname?: string | null;
  status?: string;
  kind?: string;
}
interface MercuryStatement {
  id: string;
  startDate?: string;
  endDate?: string;
  downloadUrl?: string;
}
interface MercuryPage {
  nextPage?: string | null;
}

/** Months per statements request: Mercury refuses a start–end range of more than 3 months. */
const WINDOW_MONTHS = 3;
/** Pages followed per listing; Mercury's pages hold up to 1,000 items, so this is far beyond any real account. */
const MAX_PAGES = 20;

/** The calendar month of a Mercury UTCTime (or date), or null when it is not one. */
function monthOf(at: string | undefined): string | null {
  if (!at || !/^\d{4}-\d{2}-\d{2}/.test(at)) return null;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 7);
}

async function call(env: SourceEnv, token: string, path: string, phase: 'connect' | 'sync'): Promise<ProviderResponse> {
  const res = await providerFetch(
    `${env.config.usbankBaseUrl}${path}`,
    { headers: { authorization: `Bearer ${token}`, accept: path.endsWith('/pdf') ? 'application/pdf' : 'application/json' } },
    { provider: 'Mercury', timeoutMs: env.config.providerTimeoutMs.usbank },
  );
  if (res.ok) return res;
  if (res.status === 401 || res.status === 403) {
    if (phase === 'connect') throw invalid('token', 'Mercury refused this API token; create a read-only token in Mercury (Settings → API tokens) and paste it', { reason: 'providerRefusedKey', params: { provider: 'Mercury' } });
    throw new NeedsReconnect('Mercury refused the stored API token (revoked or expired)');
  }
  if (res.status === 429) throw new ApiError('resource-exhausted', 'Mercury is rate limiting requests; try again in a minute', { reason: 'providerRateLimited' });
  if (res.status === 404 && phase === 'sync') throw new ApiError('not-found', 'Mercury no longer has this account', { reason: 'notFoundWhat', params: { what: 'account' } });
  throw precondition(`Mercury refused the request for ${path.split('?')[0].replace(/\/[0-9a-f-]{36}/gi, '/…')} (HTTP ${res.status}): ${providerMessage(res, [token])}`, { reason: 'providerRefused', params: { provider: 'Mercury' } });
}

function body<T>(res: ProviderResponse): T {
  const data = res.json<T>();
  if (!data || typeof data !== 'object') throw precondition('Mercury answered something that is not JSON', { reason: 'providerBadAnswer', params: { provider: 'Mercury' } });
  return data;
}

async function listAccounts(env: SourceEnv, token: string): Promise<MercuryAccount[]> {
  const all: MercuryAccount[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q: string = after ? `?${new URLSearchParams({ start_after: after })}` : '';
    const data: { accounts?: MercuryAccount[]; page?: MercuryPage } = body<{ accounts?: MercuryAccount[]; page?: MercuryPage }>(await call(env, token, `/accounts${q}`, 'connect'));
    all.push(...(data.accounts ?? []).filter((a) => a && typeof a.id === 'string'));
    after = data.page?.nextPage ?? null;
    if (!after) break;
  }
  return all;
}

/** The account's statements whose period starts within [first of `from`, last day of `to`] (at most 3 months). */
async function listStatements(env: SourceEnv, token: string, accountId: string, from: string, to: string, phase: 'connect' | 'sync'): Promise<MercuryStatement[]> {
  const all: MercuryStatement[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams({ start: `${from}-01`, end: lastDayOf(to) });
    if (after) q.set('start_after', after);
    const data: { statements?: MercuryStatement[]; page?: MercuryPage } = body<{ statements?: MercuryStatement[]; page?: MercuryPage }>(await call(env, token, `/account/${encodeURIComponent(accountId)}/statements?${q}`, phase));
    all.push(...(data.statements ?? []).filter((s) => s && typeof s.id === 'string'));
    after = data.page?.nextPage ?? null;
    if (!after) break;
  }
  return all;
}

export const usbankSource: StatementSource = {
  name: 'usbank',
  async connect(creds, env) {
    const open = (await listAccounts(env, creds.token)).filter((a) => a.status !== 'archived' && a.status !== 'deleted');
    // Months with a statement, oldest window first; each request spans at most WINDOW_MONTHS months.
    const oldestFirst = [...env.months].reverse();
    const months = new Set<string>();
    for (const a of open) {
      for (let i = 0; i < oldestFirst.length; i += WINDOW_MONTHS) {
        const window = oldestFirst.slice(i, i + WINDOW_MONTHS);
        for (const s of await listStatements(env, creds.token, a.id, window[0], window[window.length - 1], 'connect')) {
          const m = monthOf(s.startDate);
          if (m) months.add(m);
        }
      }
    }
    return {
      accounts: open.map((a) => ({ providerAccountId: a.id, name: a.nickname || a.name || a.id, currency: 'USD' })),
      monthsWithActivity: [...months],
    };
  },
  async sync(creds, account, month, env) {
    const found = (await listStatements(env, creds.token, account.providerAccountId, month, month, 'sync')).filter((s) => monthOf(s.startDate) === month);
    if (!found.length) throw new ApiError('not-found', `Mercury has no statement for ${month} on this account yet`, { reason: 'providerNoData', params: { provider: 'Mercury', month } });
    const files = [];
    for (const s of found) {
      const res = await call(env, creds.token, `/statements/${encodeURIComponent(s.id)}/pdf`, 'sync');
      files.push({ fileName: `mercury-${account.name}-${month}${found.length > 1 ? `-${s.id.slice(0, 8)}` : ''}.pdf`, contentType: 'application/pdf', bytes: res.bytes });
    }
    return files;
  },
};

registerStatementSource(usbankSource);
