import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { HttpHandler } from '../../functions/src/surfaces/http/types.ts';
import { returnAndConfirm } from '../consent.ts';
import { TEST_APP_ORIGINS } from '../harness.ts';

/**
 * A fake Slack speaking the Web API's wire format (api.slack.com/web), method by method as Slack's reference pages
 * define them (api.slack.com/methods/oauth.v2.access, /users.list, /auth.test, /auth.revoke, with the error codes
 * those pages list: invalid_client_id, bad_client_secret, invalid_code, bad_redirect_uri, not_authed, invalid_auth,
 * invalid_cursor, ratelimited):
 * - GET  /oauth/v2/authorize?client_id&scope&redirect_uri&state → 302 to redirect_uri?code&state
 *        (the user "approves" at once; `decline()` makes the next one error=access_denied)
 * - POST /api/<method>, body application/x-www-form-urlencoded or application/json, the token as
 *        `Authorization: Bearer` (or a `token` form field); the answer is HTTP 200 JSON `{ok:true,...}`
 *        or `{ok:false,error}`; a rate limit is HTTP 429 with Retry-After and `{ok:false,error:"ratelimited"}`.
 * Methods: oauth.v2.access (client_id/client_secret in the body or Basic auth), auth.test, auth.revoke,
 * users.list (cursor paging: `limit`, `cursor`, `response_metadata.next_cursor`, "" on the last page).
 * It records every request it received.
 */

export interface SlackFakeMember {
  id: string;
  team_id: string;
  name: string;
  deleted: boolean;
  real_name?: string;
  is_bot: boolean;
  is_app_user: boolean;
  profile: { real_name?: string; display_name?: string; email?: string; phone?: string; title?: string };
}

export interface FakeSlackRequest {
  /** `oauth.v2.access`, `users.list`, ... or `authorize`. */
  method: string;
  httpMethod: string;
  contentType: string;
  headers: IncomingMessage['headers'];
  /** The arguments, from the form, the JSON body or the query. */
  params: Record<string, unknown>;
  /** The bearer (or `token` field) the call carried, if any. */
  token: string | null;
}

export interface FakeSlack {
  origin: string;
  /** Values for CHAT_AUTH_URL and CHAT_BASE_URL. */
  authUrl: string;
  baseUrl: string;
  team: { id: string; name: string };
  members: SlackFakeMember[];
  requests: FakeSlackRequest[];
  /** Bot tokens handed out, in order. */
  issuedTokens: string[];
  decline(): void;
  /** The next `n` Web API calls (of `method`, or any) answer 429 ratelimited with Retry-After `retryAfterSec`. */
  rateLimitNext(n: number, retryAfterSec?: number, method?: string): void;
  /** Every token handed out so far answers `error` (invalid_auth, token_revoked, ...). */
  killTokens(error?: string): void;
  /** The next call answers HTTP `status` with a non-JSON body (a gateway failure). */
  failNext(status: number): void;
  close(): Promise<void>;
}

export const FAKE_SLACK_CLIENT = { clientId: '1111.2222', clientSecret: 'slack-client-secret-1' };

/** `n` people, plus a bot, an app user, a deactivated member and Slackbot, as a workspace has them. */
export function workspaceMembers(teamId: string, n: number): SlackFakeMember[] {
  const people: SlackFakeMember[] = Array.from({ length: n }, (_, i) => {
    const k = String(i + 1).padStart(4, '0');
    return {
      id: `U${k}PERSON`,
      team_id: teamId,
      name: `person${k}`,
      deleted: false,
      real_name: `Person ${k}`,
      is_bot: false,
      is_app_user: false,
      profile: { real_name: `Person ${k}`, display_name: `p${k}`, email: `Person${k}@Example.COM`, phone: `050-${String(1000000 + i).slice(0, 7)}`, title: `Role ${k}` },
    };
  });
  const special: SlackFakeMember[] = [
    { id: 'USLACKBOT', team_id: teamId, name: 'slackbot', deleted: false, real_name: 'Slackbot', is_bot: false, is_app_user: false, profile: { real_name: 'Slackbot' } },
    { id: 'UBOT0001', team_id: teamId, name: 'deploybot', deleted: false, real_name: 'Deploy Bot', is_bot: true, is_app_user: false, profile: { real_name: 'Deploy Bot' } },
    { id: 'UAPP0001', team_id: teamId, name: 'someapp', deleted: false, real_name: 'Some App', is_bot: false, is_app_user: true, profile: { real_name: 'Some App' } },
    { id: 'UGONE0001', team_id: teamId, name: 'gone', deleted: true, real_name: 'Former Worker', is_bot: false, is_app_user: false, profile: { real_name: 'Former Worker', email: 'gone@example.com' } },
  ];
  // Slack returns members in no particular order: spread the special ones through the list.
  const all = [...people];
  special.forEach((m, i) => all.splice(Math.min(all.length, i * 97 + 3), 0, m));
  return all;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

export async function startFakeSlack(opts: { members?: number; client?: typeof FAKE_SLACK_CLIENT } = {}): Promise<FakeSlack> {
  const client = opts.client ?? FAKE_SLACK_CLIENT;
  const team = { id: 'T0FAKE01', name: 'Acme Workspace' };
  const codes = new Map<string, { redirectUri: string; used: boolean }>();
  const tokens = new Map<string, { dead: string | null }>();
  const requests: FakeSlackRequest[] = [];
  const issuedTokens: string[] = [];
  let declineNext = false;
  const limits: { left: number; retryAfter: number; method?: string }[] = [];
  let failStatus: number | null = null;

  const fake: FakeSlack = {
    origin: '',
    authUrl: '',
    baseUrl: '',
    team,
    members: workspaceMembers(team.id, opts.members ?? 5),
    requests,
    issuedTokens,
    decline: () => void (declineNext = true),
    rateLimitNext: (n, retryAfter = 1, method) => void limits.push({ left: n, retryAfter, method }),
    killTokens(error = 'invalid_auth') {
      for (const t of tokens.values()) t.dead = error;
    },
    failNext: (status) => void (failStatus = status),
    close: () => new Promise((r) => server.close(() => r())),
  };

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const contentType = String(req.headers['content-type'] ?? '');
    if (req.method === 'GET' && url.pathname === '/oauth/v2/authorize') {
      const q = Object.fromEntries(url.searchParams);
      requests.push({ method: 'authorize', httpMethod: 'GET', contentType, headers: req.headers, params: q, token: null });
      if (q.client_id !== client.clientId || !q.redirect_uri || !q.state) return json(res, 400, { ok: false, error: 'invalid_client_id' });
      const back = new URL(q.redirect_uri);
      if (declineNext) {
        declineNext = false;
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = `code-${randomBytes(8).toString('hex')}`;
        codes.set(code, { redirectUri: q.redirect_uri, used: false });
        back.searchParams.set('code', code);
      }
      back.searchParams.set('state', q.state);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    const m = /^\/api\/([a-zA-Z0-9.]+)$/.exec(url.pathname);
    if (!m) return json(res, 404, { ok: false, error: 'unknown_method' });
    const method = m[1];
    const raw = req.method === 'POST' ? await readBody(req) : '';
    let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    if (contentType.startsWith('application/json')) {
      try {
        params = { ...params, ...JSON.parse(raw || '{}') };
      } catch {
        return json(res, 200, { ok: false, error: 'invalid_json' });
      }
    } else if (raw) {
      params = { ...params, ...Object.fromEntries(new URLSearchParams(raw)) };
    }
    const auth = String(req.headers.authorization ?? '');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : typeof params.token === 'string' ? params.token : null;
    requests.push({ method, httpMethod: req.method ?? '', contentType, headers: req.headers, params, token });

    if (failStatus !== null) {
      const status = failStatus;
      failStatus = null;
      res.writeHead(status, { 'content-type': 'text/html' });
      return res.end('<html>Bad gateway</html>');
    }
    const limit = limits.find((l) => l.left > 0 && (!l.method || l.method === method));
    if (limit) {
      limit.left--;
      return json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limit.retryAfter) });
    }

    if (method === 'oauth.v2.access') {
      let id = params.client_id;
      let secret = params.client_secret;
      if (auth.startsWith('Basic ')) [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':');
      if (id !== client.clientId) return json(res, 200, { ok: false, error: 'invalid_client_id' });
      if (secret !== client.clientSecret) return json(res, 200, { ok: false, error: 'bad_client_secret' });
      const c = codes.get(String(params.code ?? ''));
      if (!c || c.used) return json(res, 200, { ok: false, error: 'invalid_code' });
      if (params.redirect_uri !== c.redirectUri) return json(res, 200, { ok: false, error: 'bad_redirect_uri' });
      c.used = true;
      const accessToken = `xoxb-${randomBytes(12).toString('hex')}`;
      tokens.set(accessToken, { dead: null });
      issuedTokens.push(accessToken);
      return json(res, 200, {
        ok: true,
        access_token: accessToken,
        token_type: 'bot',
        scope: 'users:read,users:read.email',
        bot_user_id: 'UBOTSELF1',
        app_id: 'A0FAKEAPP',
        team,
        enterprise: null,
        authed_user: { id: 'U0001PERSON' },
      });
    }

    if (!token) return json(res, 200, { ok: false, error: 'not_authed' });
    const t = tokens.get(token);
    if (!t) return json(res, 200, { ok: false, error: 'invalid_auth' });
    if (t.dead) return json(res, 200, { ok: false, error: t.dead });

    switch (method) {
      case 'auth.test':
        return json(res, 200, { ok: true, url: 'https://acme.slack.com/', team: team.name, user: 'ourbot', team_id: team.id, user_id: 'UBOTSELF1', bot_id: 'B0FAKE', is_enterprise_install: false });
      case 'auth.revoke':
        t.dead = 'token_revoked';
        return json(res, 200, { ok: true, revoked: true });
      case 'users.list': {
        const limit = Number(params.limit ?? 0) > 0 ? Math.min(Number(params.limit), 1000) : 1000;
        let start = 0;
        if (params.cursor) {
          const decoded = /^user:(\d+)$/.exec(Buffer.from(String(params.cursor), 'base64').toString());
          if (!decoded) return json(res, 200, { ok: false, error: 'invalid_cursor' });
          start = Number(decoded[1]);
        }
        const page = fake.members.slice(start, start + limit);
        const next = start + limit < fake.members.length ? Buffer.from(`user:${start + limit}`).toString('base64') : '';
        return json(res, 200, { ok: true, members: page, cache_ts: 1700000000, response_metadata: { next_cursor: next } });
      }
      default:
        return json(res, 200, { ok: false, error: 'unknown_method' });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.authUrl = `${fake.origin}/oauth/v2/authorize`;
  fake.baseUrl = `${fake.origin}/api/`;
  return fake;
}

export const slackEnv = (fake: FakeSlack, over: Record<string, string> = {}) => ({
  CHAT_AUTH_URL: fake.authUrl,
  CHAT_BASE_URL: fake.baseUrl,
  CHAT_CLIENT_ID: FAKE_SLACK_CLIENT.clientId,
  CHAT_CLIENT_SECRET: FAKE_SLACK_CLIENT.clientSecret,
  OAUTH_RETURN_BASE: 'https://app.example.com',
  CREDENTIALS_KEY: 'test-credentials-key-for-chat',
  ALLOWED_ORIGINS: TEST_APP_ORIGINS,
  ...over,
});

/** The browser's part of the consent: open the consent URL at the fake, follow its redirect to our return page. */
export async function approveChatConsent(http: HttpHandler, consentUrl: string) {
  const r = await fetch(consentUrl, { redirect: 'manual' });
  const location = r.headers.get('location');
  if (r.status !== 302 || !location) throw new Error(`the fake refused the consent URL: ${r.status} ${await r.text()}`);
  const back = new URL(location);
  // The return page asks which business and account to connect; the person confirms (test/consent.ts).
  const { res, body, asked } = await returnAndConfirm(http, back);
  return { res, back, body, asked };
}

/** Connects the user's business to the fake workspace through the real consent path; returns the bot token. */
export async function connectChat(h: { http: HttpHandler; call: (op: string, input?: unknown, user?: any) => Promise<any> }, fake: FakeSlack, user?: unknown): Promise<string> {
  const { url } = await h.call('chatConnectStart', { origin: 'https://app.example.com', returnView: 'employees' }, user);
  const { res } = await approveChatConsent(h.http, url);
  if (res.status !== 200) throw new Error(`consent failed: ${res.status} ${String(res.body)}`);
  return fake.issuedTokens.at(-1)!;
}
