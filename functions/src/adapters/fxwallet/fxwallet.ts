/**
 * fxwallet: Wise's REST API (FXWALLET_BASE_URL, or FXWALLET_SANDBOX_BASE_URL — api.wise-sandbox.com, the sandbox the
 * current docs name — when connected with sandbox), personal token as Bearer. Shapes from docs.wise.com/api-reference
 * (profile, balance, balance-statement, transfer).
 * - GET /v2/profiles                                          → [{ id, type, fullName? , details? }]
 * - GET /v4/profiles/{p}/balances?types=STANDARD              → [{ id, currency, ... }]
 * - GET /v1/profiles/{p}/balance-statements/{b}/statement.pdf|.csv?currency&intervalStart&intervalEnd&type=COMPACT
 * - GET /v1/transfers?profile={p}&createdDateStart&createdDateEnd&limit&offset → [{ id, sourceCurrency, status, created }]
 *   (dates as ISO 8601 instants, both inclusive; `created` is "YYYY-MM-DD HH:mm:ss" UTC, so transfers are also kept to
 *   the month's [start, end) here)
 * - GET /v1/transfers/{id}/receipt.pdf
 * Statements for personal tokens are protected by strong customer authentication (SCA): Wise answers 403 with an
 * `x-2fa-approval` one-time token to be signed with a key registered in Wise. We do not hold such a key, so the
 * user is told (failed-precondition) what to do. 401 → wrong token (connect) or NeedsReconnect (later). Another 4xx is
 * Wise's refusal (failed-precondition with its message); network failures, timeouts (FXWALLET_TIMEOUT_MS) and 5xx are
 * ProviderUnavailable.
 */
import { ApiError, invalid, precondition } from '../../core/errors.ts';
import { currentMonth, monthBounds } from '../../domain/months.ts';
import { NeedsReconnect, registerStatementSource, type SourceEnv, type StatementSource } from '../../domain/statements/statementSources.ts';
import { providerFetch, providerMessage, type ProviderResponse } from '../providerHttp.ts';

interface WiseProfile {
  id: number;
  type: string;
  fullName?: string;
  details?: { name?: string; firstName?: string; lastName?: string };
}
interface WiseBalance {
  id: number;
  currency: string;
  type?: string;
}
interface WiseTransfer {
  id: number;
  sourceCurrency: string;
  status: string;
  created: string;
}

const SCA_HELP =
  'Wise requires strong customer authentication for statements of personal tokens: ' +
  'register a public key in Wise (Settings → API tokens → Manage public keys) or use a business profile token, then sync again';
/** Transfer statuses whose money has left the balance. */
const SENT = new Set(['outgoing_payment_sent', 'funds_converted', 'processing']);

const baseOf = (creds: Record<string, string>, env: SourceEnv) => (creds.sandbox ? env.config.fxwalletSandboxBaseUrl : env.config.fxwalletBaseUrl);

async function call(env: SourceEnv, base: string, token: string, path: string, phase: 'connect' | 'sync'): Promise<ProviderResponse> {
  const res = await providerFetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }, { provider: 'Wise', timeoutMs: env.config.providerTimeoutMs.fxwallet });
  if (res.ok) return res;
  if (res.status === 403 && res.headers.get('x-2fa-approval')) throw precondition(SCA_HELP, { reason: 'providerNoAccess', params: { provider: 'Wise' } });
  if (res.status === 401) {
    if (phase === 'connect') throw invalid('token', 'Wise refused this token; create a personal API token in Wise (Settings → API tokens) and paste it', { reason: 'providerRefusedKey', params: { provider: 'Wise' } });
    throw new NeedsReconnect('Wise refused the stored token (revoked or expired)');
  }
  if (res.status === 403) throw precondition('Wise refused access with this token; give the token full or read-only access to balances and transfers', { reason: 'providerNoAccess', params: { provider: 'Wise' } });
  if (res.status === 429) throw new ApiError('resource-exhausted', 'Wise is rate limiting requests; try again in a minute', { reason: 'providerRateLimited' });
  throw precondition(`Wise refused the request for ${path.split('?')[0].replace(/\/\d+/g, '/…')} (HTTP ${res.status}): ${providerMessage(res, [token])}`, { reason: 'providerRefused', params: { provider: 'Wise' } });
}

function json<T>(res: ProviderResponse): T {
  const data = res.json<T>();
  if (data === null || typeof data !== 'object') throw precondition('Wise answered something that is not JSON', { reason: 'providerBadAnswer', params: { provider: 'Wise' } });
  return data;
}

/** Wise's `created` ("2017-11-24 10:47:49", UTC) as ms, or NaN. */
const createdMs = (created: string) => Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(created) ? `${created.replace(' ', 'T')}Z` : created);
/** The Israeli month of an instant (the months the framework offers are Israel's). */
const israelMonth = (ms: number) => currentMonth(ms);
const profileName = (p: WiseProfile) => p.fullName || p.details?.name || [p.details?.firstName, p.details?.lastName].filter(Boolean).join(' ') || `profile ${p.id}`;

/** Transfers created in [start, end): Wise's filter is inclusive at both ends, so the end is filtered here too. */
async function transfersOf(env: SourceEnv, base: string, token: string, profileId: string, start: string, end: string, phase: 'connect' | 'sync'): Promise<WiseTransfer[]> {
  const all: WiseTransfer[] = [];
  for (let offset = 0; offset < 2000; offset += 100) {
    const q = new URLSearchParams({ profile: profileId, createdDateStart: start, createdDateEnd: end, limit: '100', offset: String(offset) });
    const page = json<WiseTransfer[]>(await call(env, base, token, `/v1/transfers?${q}`, phase));
    if (!Array.isArray(page)) throw precondition('Wise answered the transfer list in an unknown shape', { reason: 'providerBadAnswer', params: { provider: 'Wise' } });
    all.push(...page);
    if (page.length < 100) break;
  }
  const from = Date.parse(start);
  const to = Date.parse(end);
  return all.filter((t) => t && typeof t.created === 'string' && createdMs(t.created) >= from && createdMs(t.created) < to);
}

export const fxwalletSource: StatementSource = {
  name: 'fxwallet',
  async connect(creds, env) {
    const base = baseOf(creds, env);
    const profiles = json<WiseProfile[]>(await call(env, base, creds.token, '/v2/profiles', 'connect'));
    const accounts = [];
    const months = new Set<string>();
    const oldest = monthBounds(env.months[env.months.length - 1]).start;
    const newest = monthBounds(env.months[0]).end;
    for (const p of profiles) {
      const balances = json<WiseBalance[]>(await call(env, base, creds.token, `/v4/profiles/${p.id}/balances?types=STANDARD`, 'connect'));
      for (const b of balances) accounts.push({ providerAccountId: `${p.id}:${b.id}`, name: `${profileName(p)} ${b.currency}`, currency: b.currency });
      for (const t of await transfersOf(env, base, creds.token, String(p.id), oldest, newest, 'connect')) months.add(israelMonth(createdMs(t.created)));
    }
    return { accounts, monthsWithActivity: [...months] };
  },
  async sync(creds, account, month, env) {
    const base = baseOf(creds, env);
    const [profileId, balanceId] = account.providerAccountId.split(':');
    const currency = account.currency ?? '';
    const { start, end } = monthBounds(month);
    const q = new URLSearchParams({ currency, intervalStart: start, intervalEnd: end, type: 'COMPACT' });
    const files = [];
    for (const ext of ['pdf', 'csv'] as const) {
      const res = await call(env, base, creds.token, `/v1/profiles/${profileId}/balance-statements/${balanceId}/statement.${ext}?${q}`, 'sync');
      files.push({ fileName: `wise-${currency}-${month}-statement.${ext}`, contentType: ext === 'pdf' ? 'application/pdf' : 'text/csv', bytes: res.bytes });
    }
    const transfers = (await transfersOf(env, base, creds.token, profileId, start, end, 'sync')).filter((t) => t.sourceCurrency === currency && SENT.has(t.status));
    for (const t of transfers) {
      const res = await call(env, base, creds.token, `/v1/transfers/${encodeURIComponent(String(t.id))}/receipt.pdf`, 'sync');
      files.push({ fileName: `wise-${currency}-${month}-transfer-${t.id}.pdf`, contentType: 'application/pdf', bytes: res.bytes });
    }
    return files;
  },
};

registerStatementSource(fxwalletSource);
