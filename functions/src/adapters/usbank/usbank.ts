/**
 * usbank: Mercury's REST API (https://api.mercury.com/api/v1, USBANK_BASE_URL), a read-only API token as Bearer.
 * - GET /accounts                                   → { accounts: [{ id, name, status, kind, ... }] }
 * - GET /account/{id}/statements?start&end          → { statements: [{ id, startDate, endDate, ... }] }
 * - GET /statements/{statementId}/pdf               → the statement PDF
 * 401/403 on connect → invalid-argument token; 401 later → NeedsReconnect; 429 retried (Retry-After).
 */
import { ApiError, invalid } from '../../core/errors.ts';
import { addMonths } from '../../domain/months.ts';
import { NeedsReconnect, registerStatementSource, retryAfterFetch, type StatementSource } from '../../domain/statements/statementSources.ts';

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
}

async function call(base: string, token: string, path: string, phase: 'connect' | 'sync'): Promise<Response> {
  const res = await retryAfterFetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, accept: path.endsWith('/pdf') ? 'application/pdf' : 'application/json' } });
  if (res.ok) return res;
  await res.arrayBuffer().catch(() => undefined);
  if (res.status === 401 || res.status === 403) {
    if (phase === 'connect') throw invalid('token', 'Mercury refused this API token; create a read-only token in Mercury (Settings → API tokens) and paste it');
    throw new NeedsReconnect('Mercury refused the stored API token (revoked or expired)');
  }
  if (res.status === 429) throw new ApiError('resource-exhausted', 'Mercury is rate limiting requests; try again in a minute');
  if (res.status === 404 && phase === 'sync') throw new ApiError('not-found', 'Mercury no longer has this account');
  throw new Error(`Mercury answered ${res.status} to ${path.split('?')[0]}`);
}

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

export const usbankSource: StatementSource = {
  name: 'usbank',
  async connect(creds, env) {
    const base = env.config.usbankBaseUrl;
    const { accounts } = await json<{ accounts: MercuryAccount[] }>(await call(base, creds.token, '/accounts', 'connect'));
    const open = accounts.filter((a) => a.status !== 'archived');
    // Months with activity: those for which Mercury has a statement, within the offered range.
    const oldest = env.months[env.months.length - 1];
    const newest = env.months[0];
    const months = new Set<string>();
    for (const a of open) {
      const q = `?start=${oldest}-01&end=${addMonths(newest, 1)}-01`;
      const { statements } = await json<{ statements: MercuryStatement[] }>(await call(base, creds.token, `/account/${encodeURIComponent(a.id)}/statements${q}`, 'connect'));
      for (const s of statements) if (s.startDate) months.add(s.startDate.slice(0, 7));
    }
    return {
      accounts: open.map((a) => ({ providerAccountId: a.id, name: a.nickname || a.name || a.id, currency: 'USD' })),
      monthsWithActivity: [...months],
    };
  },
  async sync(creds, account, month, env) {
    const base = env.config.usbankBaseUrl;
    const q = `?start=${month}-01&end=${addMonths(month, 1)}-01`;
    const { statements } = await json<{ statements: MercuryStatement[] }>(await call(base, creds.token, `/account/${encodeURIComponent(account.providerAccountId)}/statements${q}`, 'sync'));
    const found = statements.filter((s) => s.startDate?.slice(0, 7) === month);
    if (!found.length) throw new ApiError('not-found', `Mercury has no statement for ${month} on this account yet`);
    const files = [];
    for (const s of found) {
      const res = await call(base, creds.token, `/statements/${encodeURIComponent(s.id)}/pdf`, 'sync');
      files.push({ fileName: `mercury-${account.name}-${month}${found.length > 1 ? `-${s.id}` : ''}.pdf`, contentType: 'application/pdf', bytes: Buffer.from(await res.arrayBuffer()) });
    }
    return files;
  },
};

registerStatementSource(usbankSource);
