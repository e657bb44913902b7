import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

/**
 * A fake of Mercury's API (https://api.mercury.com/api/v1), as strict as Mercury's published definition:
 * docs.mercury.com/reference/getaccounts, /getaccountstatements and /getstatementpdf (their OpenAPI documents), and the
 * changelog entry docs.mercury.com/changelog/account-statements. What it enforces:
 * - Bearer token (401 otherwise);
 * - ids in paths are uuids (400 `Invalid ...` otherwise), unknown ids 404;
 * - GET /accounts: limit 1–1000, order asc|desc, start_after / end_before (uuids, not both) → { accounts, page };
 * - GET /account/{id}/statements: start and end as YYYY-MM-DD on the statement's period start, both inclusive; a range
 *   over 3 months is 400; missing ones default as the changelog says ([today−3 months, today], [start, start+3 months],
 *   [end−3 months, end]); an end in the future is today; limit, order (default desc), start_after / end_before cursors
 *   → { statements: [{ id (uuid), startDate, endDate (UTCTime), downloadUrl, ... }], page: { nextPage?, previousPage? } };
 * - GET /statements/{id}/pdf → application/pdf;
 * - a query parameter the reference does not list is 400 (stricter than documented, to catch our own typos).
 * Error bodies are `{ errors: { errorCode, message } }` (Mercury's reference documents the statuses, not the body).
 * `pageCap` returns fewer items per page than asked, so cursors get followed. Records every request.
 */
export interface FakeMercury {
  baseUrl: string;
  tokens: Set<string>;
  accounts: { id: string; name: string; status: string; kind: string }[];
  /** accountId → month → PDF bytes (the month's statement). */
  statements: Map<string, Map<string, Buffer>>;
  requests: { method: string; path: string; authorization: string | undefined }[];
  /** At most this many items per page, whatever `limit` asks (cursor tests). */
  pageCap: number;
  /** "Today" for the date defaults (YYYY-MM-DD); the real date when unset. */
  today: string | null;
  /** The next n requests answer 429 with Retry-After: 1... (seconds). */
  rateLimitNext(n: number, retryAfter?: string): void;
  /** The next n requests answer this status with Mercury's error body. */
  failNext(n: number, status: number, message?: string): void;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** A stable uuid for a name (tests give readable names; Mercury's ids are uuids). */
export function mercuryUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The id the fake gives an account's statement of a month. */
export const mercuryStatementId = (accountId: string, month: string) => mercuryUuid(`statement ${accountId} ${month}`);

/** `YYYY-MM-DD` moved by whole months (the day kept, clamped to the month's length). */
function shiftMonths(day: string, delta: number): string {
  const [y, m, d] = day.split('-').map(Number);
  const n = y * 12 + (m - 1) + delta;
  const yy = Math.floor(n / 12);
  const mm = (n % 12) + 1;
  const last = new Date(Date.UTC(yy, mm, 0)).getUTCDate();
  return `${String(yy).padStart(4, '0')}-${String(mm).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

export async function startFakeMercury(): Promise<FakeMercury> {
  let limited = 0;
  let retryAfter = '0';
  let failing = 0;
  let failStatus = 500;
  let failMessage = 'Internal server error';
  const fake: Omit<FakeMercury, 'baseUrl' | 'close'> = {
    tokens: new Set(),
    accounts: [],
    statements: new Map(),
    requests: [],
    pageCap: 1000,
    today: null,
    rateLimitNext(n, after = '0') {
      limited = n;
      retryAfter = after;
    },
    failNext(n, status, message = 'Internal server error') {
      failing = n;
      failStatus = status;
      failMessage = message;
    },
  };
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    fake.requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization });
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };
    const error = (status: number, errorCode: string, message: string) => send(status, { errors: { errorCode, message } });
    if (limited > 0) {
      limited--;
      res.writeHead(429, { 'retry-after': retryAfter, 'content-type': 'application/json' });
      return res.end(JSON.stringify({ errors: { errorCode: 'rateLimited', message: 'Too many requests' } }));
    }
    if (failing > 0) {
      failing--;
      return error(failStatus, failStatus >= 500 ? 'internalError' : 'badRequest', failMessage);
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !fake.tokens.has(token)) return error(401, 'unauthorized', 'Unauthorized');
    if (req.method !== 'GET') return error(405, 'methodNotAllowed', 'Method not allowed');
    const q = url.searchParams;
    const unknown = (allowed: string[]) => [...q.keys()].find((k) => !allowed.includes(k));

    /** Paging by the documented parameters over `items` (each with an `id`), in `order` by `key`. */
    const paged = <T extends { id: string }>(items: T[], defaultOrder: 'asc' | 'desc', key: (t: T) => string) => {
      const limitRaw = q.get('limit');
      const limit = limitRaw === null ? 1000 : Number(limitRaw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return { error: 'Invalid `limit`: allowed range is 1 to 1000' } as const;
      const order = q.get('order') ?? defaultOrder;
      if (order !== 'asc' && order !== 'desc') return { error: "Invalid `order`: must be 'asc' or 'desc'" } as const;
      const after = q.get('start_after');
      const before = q.get('end_before');
      if (after && before) return { error: '`start_after` cannot be combined with `end_before`' } as const;
      for (const c of [after, before]) if (c !== null && !UUID.test(c)) return { error: 'Invalid cursor: must be a uuid' } as const;
      const sorted = [...items].sort((a, b) => key(a).localeCompare(key(b)) || a.id.localeCompare(b.id));
      if (order === 'desc') sorted.reverse();
      let from = 0;
      let to = sorted.length;
      if (after) {
        const i = sorted.findIndex((t) => t.id === after);
        if (i < 0) return { error: 'Invalid `start_after`: no such item' } as const;
        from = i + 1;
      }
      if (before) {
        const i = sorted.findIndex((t) => t.id === before);
        if (i < 0) return { error: 'Invalid `end_before`: no such item' } as const;
        to = i;
        from = Math.max(0, to - Math.min(limit, fake.pageCap));
      }
      const pageItems = sorted.slice(from, Math.min(to, from + Math.min(limit, fake.pageCap)));
      const next = from + pageItems.length < to && pageItems.length ? pageItems[pageItems.length - 1].id : undefined;
      const previous = from > 0 && pageItems.length ? pageItems[0].id : undefined;
      return { items: pageItems, page: { ...(next && { nextPage: next }), ...(previous && { previousPage: previous }) } } as const;
    };

    let m: RegExpExecArray | null;
    if (url.pathname === '/api/v1/accounts') {
      const bad = unknown(['limit', 'order', 'start_after', 'end_before']);
      if (bad) return error(400, 'invalidParameter', `Unknown query parameter: ${bad}`);
      const p = paged(
        fake.accounts.map((a) => ({ ...a, id: a.id })),
        'asc',
        (a) => a.id,
      );
      if ('error' in p) return error(400, 'invalidParameter', p.error as string);
      return send(200, {
        accounts: p.items.map((a) => ({ ...a, nickname: null, type: 'mercury', availableBalance: 0, currentBalance: 0, createdAt: '2020-01-01T00:00:00Z', legalBusinessName: 'Fake Ltd' })),
        page: p.page,
      });
    }
    if ((m = /^\/api\/v1\/account\/([^/]+)\/statements$/.exec(url.pathname))) {
      const accountId = decodeURIComponent(m[1]);
      if (!UUID.test(accountId)) return error(400, 'invalidParameter', 'Invalid `accountId`: must be a uuid');
      const bad = unknown(['limit', 'order', 'start_after', 'end_before', 'start', 'end']);
      if (bad) return error(400, 'invalidParameter', `Unknown query parameter: ${bad}`);
      const byMonth = fake.statements.get(accountId);
      if (!byMonth || !fake.accounts.some((a) => a.id === accountId)) return error(404, 'notFound', '`accountId` not found');
      const today = fake.today ?? new Date().toISOString().slice(0, 10);
      let start = q.get('start');
      let end = q.get('end');
      for (const [name, v] of [['start', start], ['end', end]] as const) {
        if (v !== null && (!DAY.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)))) return error(400, 'invalidParameter', `Invalid \`${name}\`: expected YYYY-MM-DD`);
      }
      if (start === null && end === null) [start, end] = [shiftMonths(today, -3), today];
      else if (end === null) end = shiftMonths(start!, 3);
      else if (start === null) start = shiftMonths(end, -3);
      if (start! > end!) return error(400, 'invalidParameter', 'Invalid `start`: must not be after `end`');
      if (end! > shiftMonths(start!, 3)) return error(400, 'invalidParameter', 'The range between `start` and `end` cannot exceed 3 months');
      if (end! > today) end = today;
      const list = [...byMonth.keys()]
        .filter((mo) => `${mo}-01` >= start! && `${mo}-01` <= end!)
        .map((mo) => {
          const id = mercuryStatementId(accountId, mo);
          return {
            id,
            startDate: `${mo}-01T00:00:00Z`,
            endDate: `${shiftMonths(`${mo}-01`, 1)}T00:00:00Z`,
            accountNumber: '000000001',
            routingNumber: '000000002',
            companyLegalName: 'Fake Ltd',
            companyLegalAddress: { name: 'Fake Ltd', address1: '1 Main St', city: 'Dover', region: 'DE', postalCode: '19901', country: 'US' },
            endingBalance: 0,
            ein: null,
            downloadUrl: `https://files.example.invalid/statements/${id}.pdf`,
            transactions: [],
          };
        });
      const p = paged(list, 'desc', (s) => s.startDate);
      if ('error' in p) return error(400, 'invalidParameter', p.error as string);
      return send(200, { statements: p.items, page: p.page });
    }
    if ((m = /^\/api\/v1\/statements\/([^/]+)\/pdf$/.exec(url.pathname))) {
      const id = decodeURIComponent(m[1]);
      if (!UUID.test(id)) return error(400, 'invalidParameter', 'Invalid `statementId`: must be a uuid');
      if ([...q.keys()].length) return error(400, 'invalidParameter', `Unknown query parameter: ${[...q.keys()][0]}`);
      for (const [accountId, byMonth] of fake.statements) {
        for (const [mo, pdf] of byMonth) if (mercuryStatementId(accountId, mo) === id) return send(200, pdf, 'application/pdf');
      }
      return error(404, 'notFound', '`statementId` not found');
    }
    error(404, 'notFound', 'Not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  // The same object the server reads, so a test's changes (pageCap, today) take effect.
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  }) as FakeMercury;
}
