import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of Mercury's API (https://api.mercury.com/api/v1), as functions/src/adapters/usbank/usbank.ts calls it:
 * - GET /api/v1/accounts                                 → { accounts: [{ id, name, status, kind, ... }] }
 * - GET /api/v1/account/{id}/statements?start&end        → { statements: [{ id, accountId, startDate, endDate }] }
 * - GET /api/v1/statements/{id}/pdf                      → application/pdf
 * Bearer token required (401 otherwise); records every request.
 */
export interface FakeMercury {
  baseUrl: string;
  tokens: Set<string>;
  accounts: { id: string; name: string; status: string; kind: string }[];
  /** accountId → month → PDF bytes (the month's statement). */
  statements: Map<string, Map<string, Buffer>>;
  requests: { method: string; path: string; authorization: string | undefined }[];
  /** The next n requests answer 429 with Retry-After: 1... (seconds). */
  rateLimitNext(n: number, retryAfter?: string): void;
  close(): Promise<void>;
}

export async function startFakeMercury(): Promise<FakeMercury> {
  let limited = 0;
  let retryAfter = '0';
  const fake: Omit<FakeMercury, 'baseUrl' | 'close'> = {
    tokens: new Set(),
    accounts: [],
    statements: new Map(),
    requests: [],
    rateLimitNext(n, after = '0') {
      limited = n;
      retryAfter = after;
    },
  };
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    fake.requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization });
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };
    if (limited > 0) {
      limited--;
      res.writeHead(429, { 'retry-after': retryAfter, 'content-type': 'application/json' });
      return res.end(JSON.stringify({ errors: { message: 'Too many requests' } }));
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !fake.tokens.has(token)) return send(401, { errors: { message: 'Unauthorized' } });
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && url.pathname === '/api/v1/accounts') return send(200, { accounts: fake.accounts.map((a) => ({ ...a, availableBalance: 0, currentBalance: 0 })) });
    if (req.method === 'GET' && (m = /^\/api\/v1\/account\/([^/]+)\/statements$/.exec(url.pathname))) {
      const byMonth = fake.statements.get(decodeURIComponent(m[1]));
      if (!byMonth) return send(404, { errors: { message: 'account not found' } });
      const start = url.searchParams.get('start') ?? '0000';
      const end = url.searchParams.get('end') ?? '9999';
      const list = [...byMonth.keys()]
        .filter((mo) => `${mo}-01` >= start && `${mo}-01` < end)
        .map((mo) => ({ id: `st_${m![1]}_${mo}`, accountId: m![1], startDate: `${mo}-01`, endDate: `${mo}-28` }));
      return send(200, { statements: list });
    }
    if (req.method === 'GET' && (m = /^\/api\/v1\/statements\/st_(.+)_(\d{4}-\d{2})\/pdf$/.exec(url.pathname))) {
      const pdf = fake.statements.get(m[1])?.get(m[2]);
      return pdf ? send(200, pdf, 'application/pdf') : send(404, { errors: { message: 'not found' } });
    }
    send(404, { errors: { message: 'not found' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { ...fake, baseUrl: `http://127.0.0.1:${port}/api/v1`, close: () => new Promise((r) => server.close(() => r())) } as FakeMercury;
}
