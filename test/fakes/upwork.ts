import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { HttpHandler } from '../../functions/src/surfaces/http/types.ts';
import { returnAndConfirm } from '../consent.ts';
import { TEST_APP_ORIGINS } from '../harness.ts';

/**
 * A fake of Upwork as functions/src/adapters/market/upwork.ts calls it, following Upwork's published definitions: the
 * GraphQL API reference (www.upwork.com/developer/documentation/graphql/api/docs/index.html: companySelector,
 * accountingEntity, transactionHistory with TransactionHistoryFilter) and its OAuth 2.0 guide, with the token request
 * as Upwork's own client sends it (github.com/upwork/node-upwork-oauth2, lib/client.js: authorizationMethod 'body'):
 * - GET  /ab/account-security/oauth2/authorize?response_type=code&client_id&redirect_uri&state → 302 back with code & state
 *   (or error=access_denied when `declineNext`)
 * - POST /api/v3/oauth2/token (form; client_id + client_secret): grant_type=authorization_code (code, redirect_uri) or
 *   refresh_token → { access_token, refresh_token, token_type, expires_in }; a refresh rotates the refresh token;
 *   an unknown/revoked refresh token or code → 400 { error: 'invalid_grant' }
 * - POST /graphql { query, variables } with Bearer access token (401 when unknown or expired) and X-Upwork-API-TenantId:
 *   companySelector, accountingEntity (tenant's), transactionHistory(transactionHistoryFilter: { aceIds_any (required,
 *   non-empty), transactionDateTime_bt: { rangeStart, rangeEnd } (required, YYYY-MM-DD, start ≤ end) }); a refused
 *   query is HTTP 200 with `errors: [{ message, extensions: { classification } }]`, as GraphQL servers answer.
 * Records every request.
 */
export const FAKE_UPWORK_CLIENT = { clientId: 'upwork-client-key-1', clientSecret: 'upwork-client-secret-9c2e' };

export interface FakeUpworkTransaction {
  recordId: string;
  /** YYYY-MM-DD */
  date: string;
  type: string;
  subtype?: string;
  description: string;
  amount: string;
  currency?: string;
  freelancer?: string;
}

export interface FakeUpworkRequest {
  method: string;
  path: string;
  token?: string;
  tenant?: string;
  form?: URLSearchParams;
  query?: string;
  variables?: Record<string, any>;
}

export interface FakeUpwork {
  baseUrl: string;
  authUrl: string;
  tokenUrl: string;
  graphqlUrl: string;
  organizations: { id: string; title: string; aceId: string }[];
  /** organizationId → its transactions */
  transactions: Map<string, FakeUpworkTransaction[]>;
  requests: FakeUpworkRequest[];
  /** Tokens issued: the last ones are the live ones. */
  accessTokens: string[];
  refreshTokens: string[];
  declineNext: boolean;
  /** Every access token issued so far stops working (401) — as after its 24 hours. */
  expireAccessTokens(): void;
  /** The grant is revoked: every refresh token issued so far answers invalid_grant. */
  revokeGrant(): void;
  /** The next n GraphQL requests answer 429 with Retry-After. */
  rateLimitNext(n: number, retryAfter?: string): void;
  close(): Promise<void>;
}

const token = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export async function startFakeUpwork(): Promise<FakeUpwork> {
  const codes = new Map<string, string>(); // code → redirect_uri
  const live = new Set<string>();
  const refresh = new Set<string>();
  let limited = 0;
  let retryAfter = '0';
  const fake = {
    organizations: [] as FakeUpwork['organizations'],
    transactions: new Map<string, FakeUpworkTransaction[]>(),
    requests: [] as FakeUpworkRequest[],
    accessTokens: [] as string[],
    refreshTokens: [] as string[],
    declineNext: false,
    expireAccessTokens: () => live.clear(),
    revokeGrant: () => refresh.clear(),
    rateLimitNext(n: number, after = '0') {
      limited = n;
      retryAfter = after;
    },
  };

  const issue = () => {
    const a = token('oauth2v2_');
    const r = token('rt_');
    live.add(a);
    refresh.add(r);
    fake.accessTokens.push(a);
    fake.refreshTokens.push(r);
    return { access_token: a, refresh_token: r, token_type: 'Bearer', expires_in: 86400 };
  };

  const body = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const raw = req.method === 'POST' ? await body(req) : '';
    const rec: FakeUpworkRequest = { method: req.method ?? '', path: url.pathname };
    fake.requests.push(rec);

    if (req.method === 'GET' && url.pathname === '/ab/account-security/oauth2/authorize') {
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== FAKE_UPWORK_CLIENT.clientId || url.searchParams.get('response_type') !== 'code' || !redirect) {
        return send(400, { error: 'invalid_request' });
      }
      const back = new URL(redirect);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      if (fake.declineNext) {
        fake.declineNext = false;
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = token('code_');
        codes.set(code, redirect);
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }

    if (req.method === 'POST' && url.pathname === '/api/v3/oauth2/token') {
      const form = new URLSearchParams(raw);
      rec.form = form;
      if (form.get('client_id') !== FAKE_UPWORK_CLIENT.clientId || form.get('client_secret') !== FAKE_UPWORK_CLIENT.clientSecret) return send(401, { error: 'invalid_client' });
      if (form.get('grant_type') === 'authorization_code') {
        const code = form.get('code') ?? '';
        if (codes.get(code) !== form.get('redirect_uri')) return send(400, { error: 'invalid_grant', error_description: 'bad code' });
        codes.delete(code);
        return send(200, issue());
      }
      if (form.get('grant_type') === 'refresh_token') {
        const r = form.get('refresh_token') ?? '';
        if (!refresh.has(r)) return send(400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
        refresh.delete(r); // rotated: the old refresh token is spent
        return send(200, issue());
      }
      return send(400, { error: 'unsupported_grant_type' });
    }

    if (req.method === 'POST' && url.pathname === '/graphql') {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      rec.token = bearer;
      rec.tenant = typeof req.headers['x-upwork-api-tenantid'] === 'string' ? req.headers['x-upwork-api-tenantid'] : undefined;
      if (limited > 0) {
        limited--;
        return send(429, { message: 'Too many requests' }, { 'retry-after': retryAfter });
      }
      if (!bearer || !live.has(bearer)) return send(401, { message: 'Unauthorized' });
      let q: { query?: string; variables?: Record<string, any> };
      try {
        q = JSON.parse(raw);
      } catch {
        return send(400, { errors: [{ message: 'bad JSON' }] });
      }
      rec.query = q.query;
      rec.variables = q.variables;
      const text = q.query ?? '';
      if (/\bcompanySelector\b/.test(text)) {
        return send(200, { data: { companySelector: { items: fake.organizations.map((o) => ({ organizationId: o.id, title: o.title, typeTitle: 'Client' })) } } });
      }
      const org = fake.organizations.find((o) => o.id === rec.tenant);
      if (/\baccountingEntity\b/.test(text)) {
        if (!org) return send(200, { data: { accountingEntity: null }, errors: [{ message: 'tenant not found' }] });
        return send(200, { data: { accountingEntity: { id: org.aceId } } });
      }
      if (/\btransactionHistory\b/.test(text)) {
        const f = q.variables?.transactionHistoryFilter ?? {};
        const aces: string[] = f.aceIds_any ?? [];
        const refused = (message: string) => send(200, { data: { transactionHistory: null }, errors: [{ message, extensions: { classification: 'ValidationError' } }] });
        if (!Array.isArray(aces) || !aces.length) return refused('transactionHistoryFilter.aceIds_any must list at least one accounting entity');
        const range = f.transactionDateTime_bt;
        const DAY = /^\d{4}-\d{2}-\d{2}$/;
        if (!range || !DAY.test(String(range.rangeStart)) || !DAY.test(String(range.rangeEnd))) return refused('transactionHistoryFilter.transactionDateTime_bt needs rangeStart and rangeEnd as YYYY-MM-DD');
        if (range.rangeStart > range.rangeEnd) return refused('transactionDateTime_bt.rangeStart must not be after rangeEnd');
        const { rangeStart, rangeEnd } = range as { rangeStart: string; rangeEnd: string };
        const owner = fake.organizations.find((o) => aces.includes(o.aceId));
        if (!org || !owner || owner.id !== org.id) return send(200, { data: { transactionHistory: null }, errors: [{ message: 'access denied to accounting entity' }] });
        const rows = (fake.transactions.get(org.id) ?? [])
          .filter((t) => t.date >= rangeStart && t.date <= rangeEnd)
          .map((t, i) => ({
            rowNumber: i + 1,
            recordId: t.recordId,
            transactionCreationDate: t.date,
            type: t.type,
            accountingSubtype: t.subtype ?? null,
            descriptionUI: t.description,
            description: t.description,
            transactionAmount: { rawValue: t.amount, currency: t.currency ?? 'USD', displayValue: `$${t.amount}` },
            runningChargeableBalance: { rawValue: '0.00', currency: 'USD', displayValue: '$0.00' },
            assignmentDeveloperName: t.freelancer ?? null,
            assignmentAgencyName: null,
            assignmentCompanyName: org.title,
            relatedInvoiceId: `inv-${t.recordId}`,
            paymentStatus: 'Paid',
          }));
        return send(200, { data: { transactionHistory: { transactionDetail: { transactionHistoryRow: rows } } } });
      }
      return send(200, { errors: [{ message: 'unknown query' }] });
    }
    send(404, { message: 'not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The same object the server reads, so flags set by a test (declineNext) take effect.
  return Object.assign(fake, {
    baseUrl,
    authUrl: `${baseUrl}/ab/account-security/oauth2/authorize`,
    tokenUrl: `${baseUrl}/api/v3/oauth2/token`,
    graphqlUrl: `${baseUrl}/graphql`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  }) as FakeUpwork;
}

export const upworkEnv = (fake: FakeUpwork): Record<string, string> => ({
  MARKET_AUTH_URL: fake.authUrl,
  MARKET_TOKEN_URL: fake.tokenUrl,
  MARKET_BASE_URL: fake.graphqlUrl,
  MARKET_CLIENT_ID: FAKE_UPWORK_CLIENT.clientId,
  MARKET_CLIENT_SECRET: FAKE_UPWORK_CLIENT.clientSecret,
  ALLOWED_ORIGINS: TEST_APP_ORIGINS,
});

/** Opens the consent URL at the fake (which approves at once) and follows its redirect into our return page. */
export async function approveMarketConsent(http: HttpHandler, consentUrl: string) {
  const r = await fetch(consentUrl, { redirect: 'manual' });
  const location = r.headers.get('location');
  if (r.status !== 302 || !location) throw new Error(`the fake refused the consent URL: ${r.status} ${await r.text()}`);
  const back = new URL(location);
  // The return page asks which business and account to connect; the person confirms (test/consent.ts).
  const { res, body, asked } = await returnAndConfirm(http, back);
  return { res, back, body, asked };
}
