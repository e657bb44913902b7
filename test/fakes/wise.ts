import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of Wise's API as functions/src/adapters/fxwallet/fxwallet.ts calls it:
 * - GET /v2/profiles; GET /v4/profiles/{p}/balances?types=STANDARD
 * - GET /v1/profiles/{p}/balance-statements/{b}/statement.pdf|.csv?currency&intervalStart&intervalEnd&type
 *   (with `sca` on: 403 + `x-2fa-approval: <one-time token>`, as Wise does for personal tokens)
 * - GET /v1/transfers?profile&createdDateStart&createdDateEnd&limit&offset; GET /v1/transfers/{id}/receipt.pdf
 * Bearer token required (401 otherwise); records every request.
 */
export interface FakeWiseTransfer {
  id: number;
  sourceCurrency: string;
  status: string;
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

export async function startFakeWise(): Promise<FakeWise> {
  const fake = { tokens: new Set<string>(), profiles: [], balances: new Map(), transfers: [], sca: false, edition: 1, requests: [] } as unknown as FakeWise;
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    fake.requests.push({ path: url.pathname + url.search, authorization: req.headers.authorization });
    const send = (status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body));
    };
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !fake.tokens.has(token)) return send(401, { error: 'invalid_token', error_description: 'Invalid token' });
    let m: RegExpExecArray | null;
    if (url.pathname === '/v2/profiles') return send(200, fake.profiles);
    if ((m = /^\/v4\/profiles\/(\d+)\/balances$/.exec(url.pathname))) {
      if (url.searchParams.get('types') !== 'STANDARD') return send(400, { errors: [{ code: 'types.required' }] });
      return send(200, (fake.balances.get(Number(m[1])) ?? []).map((b) => ({ ...b, type: 'STANDARD', amount: { value: 0, currency: b.currency } })));
    }
    if ((m = /^\/v1\/profiles\/(\d+)\/balance-statements\/(\d+)\/statement\.(pdf|csv)$/.exec(url.pathname))) {
      if (fake.sca) return send(403, { error: 'SCA required' }, 'application/json', { 'x-2fa-approval': 'be2f6579-9426-480b-9cb7-d8f1116cc8b9', 'x-2fa-approval-result': 'REJECTED' });
      const q = url.searchParams;
      if (!q.get('currency') || !q.get('intervalStart') || !q.get('intervalEnd')) return send(400, { errors: [{ code: 'missing.parameter' }] });
      const body = `${m[3] === 'pdf' ? '%PDF-1.4 ' : 'Date,Amount\n'}wise ${q.get('currency')} ${q.get('intervalStart')} edition ${fake.edition}`;
      return send(200, body, m[3] === 'pdf' ? 'application/pdf' : 'text/csv');
    }
    if (url.pathname === '/v1/transfers') {
      const q = url.searchParams;
      const start = q.get('createdDateStart') ?? '';
      const end = q.get('createdDateEnd') ?? '\uffff';
      const list = fake.transfers.filter((t) => t.created >= start && t.created < end);
      const offset = Number(q.get('offset') ?? 0);
      return send(200, list.slice(offset, offset + Number(q.get('limit') ?? 100)));
    }
    if ((m = /^\/v1\/transfers\/(\d+)\/receipt\.pdf$/.exec(url.pathname))) {
      return fake.transfers.some((t) => t.id === Number(m![1])) ? send(200, `%PDF-1.4 receipt ${m[1]}`, 'application/pdf') : send(404, { errors: [] });
    }
    send(404, { errors: [{ code: 'not.found' }] });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
