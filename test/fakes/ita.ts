import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { HttpHandler } from '../../functions/src/surfaces/http/types.ts';
import { returnAndConfirm } from '../consent.ts';

/**
 * A fake of the Israel Tax Authority's OAuth server and invoice-information API, following the ITA's official sample
 * (github.com/ISRTaxesOpenAPI/nodeJSExample: index.js, getToken.js, createRequestForRefreshToken.js,
 * createRequestWithToken.js) and the public endpoint list (docs/decisions.md, "Tax authority"):
 * - GET  {prefix}/longtimetoken/oauth2/authorize?response_type=code&client_id&redirect_uri&scope&state
 *        → 302 to redirect_uri?code&state (the user "approves" at once; `decline` makes it error=access_denied)
 * - POST {prefix}/longtimetoken/oauth2/token, form-encoded:
 *        grant_type=authorization_code (code, redirect_uri, scope) with the client in HTTP Basic, as getToken.js sends
 *        it (client_secret in the body instead is refused: invalid_client);
 *        grant_type=refresh_token (refresh_token, scope) with client_id + client_secret in the body, as
 *        createRequestForRefreshToken.js sends them (Basic is accepted too, RFC 6749 §2.3.1)
 * - POST {prefix}/invoice-information/v1/details, bearer token, JSON {Customer_VAT_Number, Confirmation_Number, Vat_Number?}
 * It checks every request as the real one would, and records what it received.
 */
export interface FakeItaInvoice {
  confirmationNumber: string;
  vatNumber: string;
  customerVatNumber: string;
  /** Shekels, as the ITA answers them. */
  paymentAmount: number;
  vatAmount: number;
  invoiceDate?: string;
  invoiceReferenceNumber?: string;
}

export interface FakeItaRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: Record<string, string> | null;
  json: any;
}

export interface FakeIta {
  origin: string;
  /** Values for ITA_AUTH_URL and ITA_BASE_URL. */
  authUrl: string;
  baseUrl: string;
  requests: FakeItaRequest[];
  invoices: Map<string, FakeItaInvoice>;
  /** Tokens handed out, in order (tests check they never leak). */
  issued: { accessTokens: string[]; refreshTokens: string[]; codes: string[] };
  /** The next authorize answers error=access_denied. */
  decline(): void;
  /** Answer the next n requests (any endpoint) with `status`. */
  failNext(n: number, status?: number): void;
  /** Answer the next request with exactly this status and JSON body. */
  answerNext(status: number, body: unknown): void;
  /** Hold the next answer for `ms`. */
  delayNext(ms: number): void;
  /** Every access token handed out so far is refused with 401 from now on. */
  expireAccessTokens(): void;
  /** Every refresh token handed out so far is refused with invalid_grant from now on. */
  revokeRefreshTokens(): void;
  /** The token endpoint refuses the next code with invalid_grant. */
  refuseNextCode(): void;
  close(): Promise<void>;
}

const PREFIX = '/shaam/tsandbox';

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });

const secret = (prefix: string) => prefix + randomBytes(18).toString('base64url');

export async function startFakeIta(opts: { clientId: string; clientSecret: string; scope?: string; accessTtlSec?: number }): Promise<FakeIta> {
  const scope = opts.scope ?? 'scope';
  const codes = new Map<string, { redirectUri: string; used: boolean; refuse: boolean }>();
  const access = new Map<string, { valid: boolean }>();
  const refresh = new Map<string, { valid: boolean }>();
  let failures = 0;
  let failStatus = 503;
  let delay = 0;
  let declineNext = false;
  let scripted: { status: number; body: unknown } | null = null;
  let refuseCode = false;

  const fake: FakeIta = {
    origin: '',
    authUrl: '',
    baseUrl: '',
    requests: [],
    invoices: new Map(),
    issued: { accessTokens: [], refreshTokens: [], codes: [] },
    decline: () => (declineNext = true),
    failNext: (n, status = 503) => ((failures = n), (failStatus = status)),
    answerNext: (status, body) => (scripted = { status, body }),
    delayNext: (ms) => (delay = ms),
    expireAccessTokens: () => access.forEach((t) => (t.valid = false)),
    revokeRefreshTokens: () => refresh.forEach((t) => (t.valid = false)),
    refuseNextCode: () => (refuseCode = true),
    close: async () => {},
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const oauthError = (res: ServerResponse, status: number, error: string, description: string) => send(res, status, { error, error_description: description });

  function issueTokens() {
    const accessToken = secret('at_');
    const refreshToken = secret('rt_');
    access.set(accessToken, { valid: true });
    refresh.set(refreshToken, { valid: true });
    fake.issued.accessTokens.push(accessToken);
    fake.issued.refreshTokens.push(refreshToken);
    return {
      token_type: 'Bearer',
      access_token: accessToken,
      expires_in: opts.accessTtlSec ?? 600,
      scope,
      refresh_token: refreshToken,
      refresh_token_expires_in: 7_776_000,
      consented_on: Math.floor(Date.now() / 1000),
    };
  }

  function authorize(url: URL, res: ServerResponse) {
    const q = url.searchParams;
    if (q.get('response_type') !== 'code') return oauthError(res, 400, 'unsupported_response_type', 'response_type must be code');
    if (q.get('client_id') !== opts.clientId) return oauthError(res, 401, 'unauthorized_client', 'Invalid client ID or secret, or client not subscribed to this API');
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri) return oauthError(res, 400, 'invalid_request', 'Redirect URI missing');
    if (q.get('scope') !== scope) return oauthError(res, 400, 'invalid_scope', 'unknown scope');
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state) back.searchParams.set('state', state);
    if (declineNext) {
      declineNext = false;
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = secret('code_');
      codes.set(code, { redirectUri, used: false, refuse: refuseCode });
      refuseCode = false;
      fake.issued.codes.push(code);
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  /** The client from HTTP Basic (each part form-urlencoded), or null. */
  function basicClient(req: IncomingMessage): { id: string; secret: string } | null {
    const b = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!b) return null;
    const [id, secret] = Buffer.from(b, 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id ?? ''), secret: decodeURIComponent(secret ?? '') };
  }

  function token(req: IncomingMessage, form: Record<string, string> | null, res: ServerResponse) {
    if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded') || !form) return oauthError(res, 400, 'invalid_request', 'expected a form-encoded body');
    const basic = basicClient(req);
    if (basic && (form.client_id !== undefined || form.client_secret !== undefined)) return oauthError(res, 400, 'invalid_request', 'use one client authentication method');
    if (form.grant_type === 'authorization_code' && !basic) return oauthError(res, 401, 'invalid_client', 'Client authentication failed: send the client id and secret with HTTP Basic');
    const client = basic ?? { id: form.client_id, secret: form.client_secret };
    if (client.id !== opts.clientId || client.secret !== opts.clientSecret) return oauthError(res, 401, 'invalid_client', 'Invalid client ID or secret');
    if (form.grant_type === 'authorization_code') {
      const c = codes.get(form.code ?? '');
      if (!c || c.used || c.refuse) return oauthError(res, 400, 'invalid_grant', 'authorization code is invalid or expired');
      c.used = true;
      if (form.redirect_uri !== c.redirectUri) return oauthError(res, 400, 'invalid_grant', 'redirect_uri does not match');
      return send(res, 200, issueTokens());
    }
    if (form.grant_type === 'refresh_token') {
      const r = refresh.get(form.refresh_token ?? '');
      if (!r?.valid) return oauthError(res, 400, 'invalid_grant', 'refresh token is invalid or expired');
      // Refresh tokens rotate: the old one dies.
      r.valid = false;
      return send(res, 200, issueTokens());
    }
    return oauthError(res, 400, 'unsupported_grant_type', 'grant_type not supported');
  }

  function details(req: IncomingMessage, json: any, res: ServerResponse) {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !access.get(bearer)?.valid) return send(res, 401, { httpCode: '401', httpMessage: 'Unauthorized', moreInformation: 'Invalid or expired token' });
    if (!req.headers['content-type']?.startsWith('application/json') || !json || typeof json !== 'object') return send(res, 400, { Status: 400, Message: 'expected a JSON body' });
    if (typeof json.Customer_VAT_Number !== 'number' || typeof json.Confirmation_Number !== 'string') {
      return send(res, 422, { Status: 422, Message: 'Customer_VAT_Number (number) and Confirmation_Number (string) are required' });
    }
    const inv = fake.invoices.get(json.Confirmation_Number);
    const sameParty = (a: string, b: number) => Number(a) === b;
    if (!inv || !sameParty(inv.customerVatNumber, json.Customer_VAT_Number) || (json.Vat_Number !== undefined && !sameParty(inv.vatNumber, json.Vat_Number))) {
      return send(res, 404, { Status: 404, Message: 'Confirmation number not found' });
    }
    send(res, 200, {
      Status: 200,
      Message: {
        Invoice_Type: 305,
        Vat_Number: Number(inv.vatNumber),
        Invoice_Reference_Number: inv.invoiceReferenceNumber ?? '1001',
        Customer_VAT_Number: Number(inv.customerVatNumber),
        Customer_Name: 'Test Business',
        Invoice_Date: inv.invoiceDate ?? '2026-05-01',
        Invoice_Issuance_Date: inv.invoiceDate ?? '2026-05-01',
        Payment_Amount: inv.paymentAmount,
        VAT_Amount: inv.vatAmount,
        Payment_Amount_Including_VAT: Math.round((inv.paymentAmount + inv.vatAmount) * 100) / 100,
      },
    });
  }

  const server = createServer(async (req, res) => {
    const raw = await read(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    let form: Record<string, string> | null = null;
    let json: any = null;
    if (req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) form = Object.fromEntries(new URLSearchParams(raw));
    else if (raw) {
      try {
        json = JSON.parse(raw);
      } catch {}
    }
    fake.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, form, json });
    if (delay > 0) {
      const ms = delay;
      delay = 0;
      await new Promise((r) => setTimeout(r, ms));
    }
    if (scripted) {
      const { status, body } = scripted;
      scripted = null;
      return send(res, status, body);
    }
    if (failures > 0) {
      failures--;
      return send(res, failStatus, { httpCode: String(failStatus), httpMessage: 'Service Unavailable', moreInformation: 'temporary failure' });
    }
    const path = url.pathname;
    if (req.method === 'GET' && path === `${PREFIX}/longtimetoken/oauth2/authorize`) return authorize(url, res);
    if (req.method === 'POST' && path === `${PREFIX}/longtimetoken/oauth2/token`) return token(req, form, res);
    if (req.method === 'POST' && path === `${PREFIX}/invoice-information/v1/details`) return details(req, json, res);
    send(res, 404, { httpCode: '404', httpMessage: 'Not Found', moreInformation: `No resource match requested URI ${req.method} ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.authUrl = `${fake.origin}${PREFIX}/longtimetoken/oauth2`;
  fake.baseUrl = `${fake.origin}${PREFIX}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/** Harness environment pointing the service at the fake. */
export const itaEnv = (fake: FakeIta, over: Record<string, string> = {}) => ({
  ITA_AUTH_URL: fake.authUrl,
  ITA_BASE_URL: fake.baseUrl,
  ITA_CLIENT_ID: 'ita-client-1',
  ITA_CLIENT_SECRET: 'ita-secret-1',
  OAUTH_RETURN_BASE: 'https://app.example.com',
  ...over,
});

export const FAKE_CLIENT = { clientId: 'ita-client-1', clientSecret: 'ita-secret-1' };

/**
 * The browser's part: opens the consent URL at the fake (which approves at once), then follows its
 * redirect to the service's return page through `http`. Returns the page and the return URL.
 */
export async function approveConsent(http: HttpHandler, consentUrl: string) {
  const r = await fetch(consentUrl, { redirect: 'manual' });
  const location = r.headers.get('location');
  if (r.status !== 302 || !location) throw new Error(`the fake refused the consent URL: ${r.status} ${await r.text()}`);
  const back = new URL(location);
  // The return page asks which business and account to connect; the person confirms (test/consent.ts).
  const { res, body, asked } = await returnAndConfirm(http, back);
  return { res, back, body, asked };
}
