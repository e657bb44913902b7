import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of Wise's API as functions/src/adapters/fxwallet/fxwallet.ts calls it, as strict as Wise's published reference
 * (docs.wise.com/api-reference: profile "List profiles" v2, balance "List balances" v4, balance-statement "Get a balance
 * statement", transfer "List transfers" and "Get transfer receipt"; docs.wise.com/guides/developer for the hosts):
 * - Bearer token (401 `{error:"invalid_token"}` otherwise);
 * - GET /v2/profiles; GET /v4/profiles/{p}/balances?types=STANDARD (`types` required);
 * - GET /v1/profiles/{p}/balance-statements/{b}/statement.pdf|.csv?currency&intervalStart&intervalEnd&type: all four
 *   required, the instants ISO 8601, start before end, at most 469 days apart, `type` COMPACT|FLAT, the currency the
 *   balance's own; with `sca` on: 403 + `x-2fa-approval: <one-time token>`, as Wise does for personal tokens;
 * - GET /v1/transfers?profile&createdDateStart&createdDateEnd&limit&offset: `profile` required, dates ISO 8601 (date or
 *   instant, both inclusive), limit 1–1000 (offset paging); GET /v1/transfers/{id}/receipt.pdf;
 * - a query parameter these pages do not list is 400 (stricter than documented, to catch our own typos).
 * Errors are `{ errors: [{ code, message, arguments }] }`, Wise's shape. `created` is "YYYY-MM-DD HH:mm:ss" (UTC).
 * Records every request.
 */
export interface FakeWiseTransfer {
  id: number;
  sourceCurrency: string;
  status: string;
  /** "YYYY-MM-DD HH:mm:ss" UTC, as Wise writes it (an ISO instant is accepted and converted). */
  created: string;
}

export interface FakeWise {
  baseUrl: string;
  tokens: Set<string>;
  profiles: { id: number; type: string; fullName: string }[];
  balances: Map<number, { id: number; currency: string }[]>;
  transfers: FakeWiseTransfer[];
  /** Statements demand strong customer authentication. */
  sca: boolean;
  /** Changes the statement bytes (a re-sync must bring the new ones). */
  edition: number;
  requests: { path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
const asWise = (created: string) => (/T/.test(created) ? new Date(created).toISOString().slice(0, 19).replace('T', ' ') : created);
const ms = (v: string) => Date.parse(/^\d{4}-\d{2}-\d{2} /.test(v) ? `${v.replace(' ', 'T')}Z` : /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);

export async function startFakeWise(): Promise<FakeWise> {
  const fake = { tokens: new Set<string>(), profiles: [], balances: new Map(), transfers: [], sca: false, edition: 1, requests: [] } as unknown as FakeWise;
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    fake.requests.push({ path: url.pathname + url.search, authorization: req.headers.authorization });
    const send = (status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body));
    };
    const error = (status: number, code: string, message: string, args: string[] = []) => send(status, { errors: [{ code, message, arguments: args }] });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !fake.tokens.has(token)) return send(401, { error: 'invalid_token', error_description: 'Invalid token' });
    const q = url.searchParams;
    const unknown = (allowed: string[]) => [...q.keys()].find((k) => !allowed.includes(k));
    let m: RegExpExecArray | null;
    if (url.pathname === '/v2/profiles') return send(200, fake.profiles);
    if ((m = /^\/v4\/profiles\/(\d+)\/balances$/.exec(url.pathname))) {
      const bad = unknown(['types']);
      if (bad) return error(400, 'unknown.parameter', `Unknown parameter ${bad}`, [bad]);
      if (!q.get('types')) return error(400, 'NotNull', 'types must not be null', ['types']);
      if (!q.get('types')!.split(',').every((t) => t === 'STANDARD' || t === 'SAVINGS')) return error(400, 'invalid.value', 'types must be STANDARD or SAVINGS', ['types']);
      if (!fake.profiles.some((p) => p.id === Number(m![1]))) return error(403, 'forbidden', 'No access to this profile');
      return send(200, (fake.balances.get(Number(m[1])) ?? []).map((b) => ({ ...b, type: 'STANDARD', amount: { value: 0, currency: b.currency } })));
    }
    if ((m = /^\/v1\/profiles\/(\d+)\/balance-statements\/(\d+)\/statement\.(pdf|csv)$/.exec(url.pathname))) {
      const bad = unknown(['currency', 'intervalStart', 'intervalEnd', 'type', 'statementLocale']);
      if (bad) return error(400, 'unknown.parameter', `Unknown parameter ${bad}`, [bad]);
      if (fake.sca) return send(403, { error: 'SCA required' }, 'application/json', { 'x-2fa-approval': 'be2f6579-9426-480b-9cb7-d8f1116cc8b9', 'x-2fa-approval-result': 'REJECTED' });
      for (const p of ['currency', 'intervalStart', 'intervalEnd', 'type']) if (!q.get(p)) return error(400, 'NotNull', `${p} must not be null`, [p]);
      const start = q.get('intervalStart')!;
      const end = q.get('intervalEnd')!;
      for (const [p, v] of [['intervalStart', start], ['intervalEnd', end]]) if (!INSTANT.test(v) || Number.isNaN(ms(v))) return error(400, 'invalid.date', `${p} must be an ISO 8601 date-time`, [p]);
      if (ms(start) >= ms(end)) return error(400, 'invalid.interval', 'intervalStart must be before intervalEnd');
      if (ms(end) - ms(start) > 469 * 86_400_000) return error(400, 'invalid.interval', 'The statement period cannot be longer than 469 days');
      if (!['COMPACT', 'FLAT'].includes(q.get('type')!)) return error(400, 'invalid.value', 'type must be COMPACT or FLAT', ['type']);
      const balance = (fake.balances.get(Number(m[1])) ?? []).find((b) => b.id === Number(m![2]));
      if (!balance) return error(404, 'not.found', 'Balance not found');
      if (balance.currency !== q.get('currency')) return error(400, 'invalid.currency', `The balance holds ${balance.currency}, not ${q.get('currency')}`, ['currency']);
      const body = `${m[3] === 'pdf' ? '%PDF-1.4 ' : 'Date,Amount\n'}wise ${q.get('currency')} ${start} edition ${fake.edition}`;
      return send(200, body, m[3] === 'pdf' ? 'application/pdf' : 'text/csv');
    }
    if (url.pathname === '/v1/transfers') {
      const bad = unknown(['profile', 'status', 'sourceCurrency', 'targetCurrency', 'createdDateStart', 'createdDateEnd', 'limit', 'offset']);
      if (bad) return error(400, 'unknown.parameter', `Unknown parameter ${bad}`, [bad]);
      if (!q.get('profile') || !/^\d+$/.test(q.get('profile')!)) return error(400, 'NotNull', 'profile must not be null', ['profile']);
      for (const p of ['createdDateStart', 'createdDateEnd']) {
        const v = q.get(p);
        if (v !== null && (!INSTANT.test(v) || Number.isNaN(ms(v)))) return error(400, 'invalid.date', `${p} must be an ISO 8601 date or date-time`, [p]);
      }
      const limit = Number(q.get('limit') ?? 100);
      const offset = Number(q.get('offset') ?? 0);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return error(400, 'invalid.value', 'limit must be between 1 and 1000', ['limit']);
      if (!Number.isInteger(offset) || offset < 0) return error(400, 'invalid.value', 'offset must not be negative', ['offset']);
      const start = q.get('createdDateStart');
      const end = q.get('createdDateEnd');
      const list = fake.transfers
        .map((t) => ({ ...t, created: asWise(t.created) }))
        .filter((t) => (start === null || ms(t.created) >= ms(start)) && (end === null || ms(t.created) <= ms(end)));
      return send(200, list.slice(offset, offset + limit));
    }
    if ((m = /^\/v1\/transfers\/(\d+)\/receipt\.pdf$/.exec(url.pathname))) {
      return fake.transfers.some((t) => t.id === Number(m![1])) ? send(200, `%PDF-1.4 receipt ${m[1]}`, 'application/pdf') : error(404, 'not.found', 'Transfer not found');
    }
    error(404, 'error.route.not.found', `No route for ${req.method} ${url.pathname}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
