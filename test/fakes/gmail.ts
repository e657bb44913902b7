import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { HttpHandler } from '../../functions/src/surfaces/http/types.ts';
import { returnAndConfirm } from '../consent.ts';
import { TEST_APP_ORIGINS } from '../harness.ts';

/**
 * A fake Google OAuth 2.0 + Gmail API (developers.google.com/gmail/api/reference/rest) speaking the wire format:
 * - GET  /o/oauth2/v2/auth?client_id&redirect_uri&scope&state&access_type → 302 redirect_uri?code&state
 * - POST /token (form): grant_type=authorization_code (code, redirect_uri) or refresh_token; errors are
 *   HTTP 400 {error:"invalid_grant", error_description}
 * - GET  /gmail/v1/users/me/profile, /labels, /messages (q with after:<unix s>, labelIds, maxResults,
 *   pageToken → nextPageToken), /messages/{id}?format=full|metadata, /messages/{id}/attachments/{id}
 *   with `Authorization: Bearer <access token>`; an unknown token is 401.
 * - GET  /gmail/v1/users/me/history?startHistoryId&historyTypes&labelId&maxResults&pageToken → {history:
 *   [{id, messages, messagesAdded: [{message}]} or {id, messages, labelsAdded: [{message, labelIds}]}], historyId,
 *   nextPageToken}; every `add` and every `label` is one history record (the profile's historyId moves with it);
 *   a startHistoryId older than `historyFloor` is 404, as Gmail answers a cursor it no longer keeps.
 * - POST /batch/gmail/v1: several of the GET calls above in one multipart/mixed request (below).
 * Messages are MIME trees; bodies are base64url of the part's bytes in its own charset, as Gmail sends them.
 */

export const FAKE_GMAIL_CLIENT = { clientId: 'gmail-client-id.apps.example', clientSecret: 'gmail-client-secret-5b1f' };

/** A MIME part: a leaf with bytes, or a multipart with children. */
export type FakePart =
  | { mimeType: string; parts: FakePart[] }
  | { mimeType: string; data: Buffer; charset?: string; filename?: string; inline?: boolean; contentId?: string };

export interface FakeMail {
  id: string;
  from: string;
  /** The Subject header as sent (may be RFC 2047 encoded). */
  subject: string;
  dateMs: number;
  labelIds?: string[];
  body: FakePart;
}

/**
 * How a spoiled answer fails: `500` is Gmail's backendError body (status INTERNAL); `garbage` a 200 whose body is
 * not JSON; `cut` a 200 whose body stops half-way (the connection closes before Content-Length is reached);
 * `short` a 200 attachment whose base64 carries fewer bytes than its `size`.
 */
export type FakeFault = '500' | 'garbage' | 'cut' | 'short';

export interface FakeGmailRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  form: URLSearchParams | null;
  token: string | null;
  /** A call made inside a batch request (POST /batch/gmail/v1, itself recorded too). */
  inBatch?: boolean;
}

export interface FakeGmail {
  origin: string;
  authUrl: string;
  tokenUrl: string;
  baseUrl: string;
  email: string;
  mails: Map<string, FakeMail>;
  labels: { id: string; name: string; type: string }[];
  requests: FakeGmailRequest[];
  /** Refresh tokens issued; `revoke(token)` makes refreshing with it answer invalid_grant. */
  refreshTokens: string[];
  revoke(refreshToken: string): void;
  add(...mails: FakeMail[]): void;
  /** The user puts a label on a mail already there (a labelAdded history record). */
  label(messageId: string, labelId: string): void;
  /** Page size cap for messages.list (to exercise nextPageToken). */
  pageSize: number;
  /** Calls to messages.get / attachments.get that answered, per message id. */
  gets(id?: string): number;
  /** Makes messages.get wait (per message) for this many ms. */
  delayMs: number;
  /**
   * Spoils the answers of messages.get (`on: 'message'`) or attachments.get (`on: 'attachment'`) for these message
   * ids (all when none are given): `times` answers per id (default: until heal()), then they answer again.
   */
  fault(f: { on: 'message' | 'attachment'; mode: FakeFault; ids?: string[]; times?: number }): void;
  heal(): void;
  /** Answers spoiled so far. */
  spoiled: number;
  /** The mailbox's current history id (starts at 1000; each added mail is one record after it). */
  historyId: number;
  /** History before this id is forgotten: history.list from an older startHistoryId answers 404. */
  historyFloor: number;
  close(): Promise<void>;
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
};
const apiError = (res: ServerResponse, status: number, message: string, reason: string) =>
  json(res, status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }], status: reason.toUpperCase() } });

function gmailPart(p: FakePart, partId: string, mailId: string, attachments: Map<string, Buffer>): any {
  if ('parts' in p) {
    return {
      partId,
      mimeType: p.mimeType,
      filename: '',
      headers: [{ name: 'Content-Type', value: `${p.mimeType}; boundary="b_${partId || 'root'}"` }],
      body: { size: 0 },
      parts: p.parts.map((c, i) => gmailPart(c, partId ? `${partId}.${i}` : String(i), mailId, attachments)),
    };
  }
  const headers = [{ name: 'Content-Type', value: `${p.mimeType}${p.charset ? `; charset="${p.charset}"` : ''}${p.filename ? `; name="${p.filename}"` : ''}` }];
  if (p.filename) headers.push({ name: 'Content-Disposition', value: `${p.inline ? 'inline' : 'attachment'}; filename="${p.filename}"` });
  if (p.contentId) headers.push({ name: 'Content-ID', value: `<${p.contentId}>` });
  headers.push({ name: 'Content-Transfer-Encoding', value: 'base64' });
  // Gmail inlines small text bodies and gives files an attachmentId.
  if (p.filename) {
    const attId = `ANGjdJ_${mailId}_${partId.replace(/\./g, '_')}`;
    attachments.set(attId, p.data);
    return { partId, mimeType: p.mimeType, filename: p.filename, headers, body: { attachmentId: attId, size: p.data.length } };
  }
  return { partId, mimeType: p.mimeType, filename: '', headers, body: { size: p.data.length, data: p.data.toString('base64url') } };
}

/** A Gmail API answer, before it is written: on its own or as one part of a batch's answer. */
interface Reply {
  status: number;
  body: unknown;
  /** Spoiled in this way when written. */
  mode?: FakeFault;
}
const reply = (status: number, body: unknown): Reply => ({ status, body });
const errorReply = (status: number, message: string, reason: string): Reply =>
  reply(status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }], status: reason.toUpperCase() } });
const GARBAGE = '<html><body>upstream connect error or disconnect/reset before headers</body></html>';

/** An answer spoiled in the given mode. */
function spoiled(mode: FakeFault, body: Record<string, unknown>): Reply {
  if (mode === '500') return reply(500, { error: { code: 500, message: 'Internal error encountered.', errors: [{ message: 'Internal error encountered.', domain: 'global', reason: 'backendError' }], status: 'INTERNAL' } });
  if (mode === 'short' && typeof body.data === 'string') return reply(200, { ...body, data: body.data.slice(0, Math.floor(body.data.length / 2)) });
  return { status: 200, body, mode };
}

/** Writes an answer: `garbage` is a page that is not JSON; `cut` stops half-way (the connection closes before Content-Length is reached). */
function send(res: ServerResponse, r: Reply): void {
  if (r.mode === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    return void res.end(GARBAGE);
  }
  if (r.mode !== 'cut') return json(res, r.status, r.body);
  const text = JSON.stringify(r.body);
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)) });
  res.write(text.slice(0, Math.floor(text.length / 2)));
  res.socket?.destroy();
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 500: 'Internal Server Error' };

export async function startFakeGmail(opts: { email?: string } = {}): Promise<FakeGmail> {
  const faults: { on: 'message' | 'attachment'; mode: FakeFault; ids: Set<string> | null; left: Map<string, number>; times: number }[] = [];
  /** The fault that spoils this answer, if any (counting it). */
  const faultFor = (on: 'message' | 'attachment', id: string) => {
    for (const f of faults) {
      if (f.on !== on || (f.ids && !f.ids.has(id))) continue;
      const left = f.left.get(id) ?? f.times;
      if (left <= 0) continue;
      f.left.set(id, left - 1);
      fake.spoiled++;
      return f.mode;
    }
    return null;
  };
  const codes = new Map<string, string>();
  const waits = new Set<NodeJS.Timeout>(); // delayed answers, dropped by close()
  const access = new Map<string, string>(); // access token → refresh token
  const revoked = new Set<string>();
  const attachments = new Map<string, Buffer>();
  const getCount = new Map<string, number>();
  const history: { id: number; messageId: string; type: 'messageAdded' | 'labelAdded'; labelIds?: string[] }[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const raw = req.method === 'POST' ? await read(req) : '';
    const auth = String(req.headers.authorization ?? '');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : null;
    const form = req.method === 'POST' ? new URLSearchParams(raw) : null;
    fake.requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, form, token });

    if (url.pathname === '/o/oauth2/v2/auth') {
      const q = url.searchParams;
      if (q.get('client_id') !== FAKE_GMAIL_CLIENT.clientId) return json(res, 400, { error: 'invalid_client' });
      const back = new URL(q.get('redirect_uri') ?? '');
      const code = '4/0A' + randomBytes(12).toString('hex');
      codes.set(code, back.href);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      back.searchParams.set('scope', q.get('scope') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      if (form!.get('client_id') !== FAKE_GMAIL_CLIENT.clientId || form!.get('client_secret') !== FAKE_GMAIL_CLIENT.clientSecret) return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
      const grant = form!.get('grant_type');
      if (grant === 'authorization_code') {
        const code = form!.get('code') ?? '';
        const redirect = codes.get(code);
        codes.delete(code);
        if (!redirect || redirect.split('?')[0] !== form!.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
        const refresh = '1//0g' + randomBytes(16).toString('hex');
        const at = 'ya29.' + randomBytes(16).toString('hex');
        fake.refreshTokens.push(refresh);
        access.set(at, refresh);
        return json(res, 200, { access_token: at, expires_in: 3599, refresh_token: refresh, scope: 'https://www.googleapis.com/auth/gmail.readonly', token_type: 'Bearer' });
      }
      if (grant === 'refresh_token') {
        const refresh = form!.get('refresh_token') ?? '';
        if (!fake.refreshTokens.includes(refresh) || revoked.has(refresh)) return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        const at = 'ya29.' + randomBytes(16).toString('hex');
        access.set(at, refresh);
        return json(res, 200, { access_token: at, expires_in: 3599, scope: 'https://www.googleapis.com/auth/gmail.readonly', token_type: 'Bearer' });
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (url.pathname === '/batch/gmail/v1') return batch(req, res, raw, token);
    return send(res, await route(url, token));
  });
  /**
   * POST /batch/gmail/v1 (developers.google.com/gmail/api/guides/batch): a multipart/mixed body whose parts are each
   * `Content-Type: application/http` (a Content-ID optional) holding one HTTP request by path alone, all to the Gmail
   * API, at most 100; the outer request's Authorization applies to every part without its own. Anything else is 400,
   * as Google answers a malformed batch. The answer is multipart/mixed, one part per call in order, each an HTTP
   * response whose Content-ID is `response-` and the call's. A `cut` fault on any call cuts the whole answer.
   */
  const batch = async (req: IncomingMessage, res: ServerResponse, raw: string, token: string | null) => {
    const bad = (message: string) => send(res, errorReply(400, message, 'badRequest'));
    if (req.method !== 'POST') return bad('Batch requests must be POST.');
    const type = String(req.headers['content-type'] ?? '');
    const boundary = /^multipart\/mixed\s*;/i.test(type) ? type.match(/boundary="?([^";]+)"?/i)?.[1] : undefined;
    if (!boundary) return bad('The batch request must be multipart/mixed with a boundary.');
    const chunks = raw.split(`--${boundary}`);
    // Before the first delimiter: a preamble; after the closing `--boundary--`: an epilogue.
    if (chunks.length < 3 || !chunks.at(-1)!.startsWith('--')) return bad('The batch request is not a complete multipart body.');
    const parts = chunks.slice(1, -1);
    if (parts.length > 100) return bad('A batch request can hold at most 100 calls.');
    const calls: { contentId: string | null; url: URL; token: string | null }[] = [];
    for (const part of parts) {
      const text = part.replace(/^\r\n/, '');
      const sep = text.indexOf('\r\n\r\n');
      if (sep < 0) return bad('Each part of a batch request needs its headers, a blank line and a request.');
      const head = text.slice(0, sep);
      const inner = text.slice(sep + 4);
      const headers = new Map(head.split('\r\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      if (!/^application\/http\b/i.test(headers.get('content-type') ?? '')) return bad('Each part of a batch request must be Content-Type: application/http.');
      const [requestLine, ...innerLines] = inner.split('\r\n');
      const rl = requestLine.match(/^(GET|POST|PUT|PATCH|DELETE) (\S+)(?: HTTP\/1\.1)?$/);
      if (!rl || !rl[2].startsWith('/gmail/v1/')) return bad('Each call of a batch request must be a request to the Gmail API by its path alone.');
      const own = innerLines.find((l) => /^authorization:/i.test(l))?.slice('authorization:'.length).trim();
      calls.push({ contentId: headers.get('content-id') ?? null, url: new URL(rl[2], 'http://x'), token: own ? (own.startsWith('Bearer ') ? own.slice(7) : null) : token });
    }
    const replies: Reply[] = [];
    for (const c of calls) {
      fake.requests.push({ method: 'GET', path: c.url.pathname, query: c.url.searchParams, form: null, token: c.token, inBatch: true });
      replies.push(await route(c.url, c.token));
    }
    const out = `batch_${randomBytes(9).toString('base64url')}`;
    let text = '';
    replies.forEach((r, i) => {
      const id = calls[i].contentId;
      const body = r.mode === 'garbage' ? GARBAGE : JSON.stringify(r.body);
      text += `--${out}\r\nContent-Type: application/http\r\n${id ? `Content-ID: ${id.replace(/^<?/, '<response-')}\r\n` : ''}\r\n`;
      text += `HTTP/1.1 ${r.status} ${STATUS_TEXT[r.status] ?? ''}\r\nContent-Type: application/json; charset=UTF-8\r\nVary: Origin\r\n\r\n${body}\r\n`;
    });
    text += `--${out}--\r\n`;
    const cut = replies.some((r) => r.mode === 'cut');
    res.writeHead(200, { 'content-type': `multipart/mixed; boundary=${out}`, 'content-length': String(Buffer.byteLength(text)) });
    if (!cut) return void res.end(text);
    res.write(text.slice(0, Math.floor(text.length / 2)));
    res.socket?.destroy();
  };
  /** One Gmail API call (a request of its own, or one part of a batch), answered as a Reply. */
  const route = async (url: URL, token: string | null): Promise<Reply> => {
    const m = url.pathname.match(/^\/gmail\/v1\/users\/me\/(.+)$/);
    if (!m) return errorReply(404, 'Not Found', 'notFound');
    if (!token || !access.has(token) || revoked.has(access.get(token)!)) return errorReply(401, 'Request had invalid authentication credentials.', 'authError');
    const rest = m[1];
    if (rest === 'profile') return reply(200, { emailAddress: fake.email, messagesTotal: fake.mails.size, threadsTotal: fake.mails.size, historyId: String(fake.historyId) });
    if (rest === 'history') {
      const start = Number(url.searchParams.get('startHistoryId'));
      if (!Number.isInteger(start) || start <= 0) return errorReply(400, 'Invalid startHistoryId', 'invalidArgument');
      if (start < fake.historyFloor) return errorReply(404, 'Requested entity was not found.', 'notFound');
      const types = url.searchParams.getAll('historyTypes');
      const labelId = url.searchParams.get('labelId');
      const max = Math.min(Number(url.searchParams.get('maxResults') ?? 100), 500, fake.pageSize);
      const from = Number(url.searchParams.get('pageToken') ?? 0);
      const all = history
        .filter((r) => r.id > start && fake.mails.has(r.messageId))
        .filter((r) => !types.length || types.includes(r.type))
        .map((r) => ({ r, mail: fake.mails.get(r.messageId)! }))
        .filter(({ mail }) => !labelId || (mail.labelIds ?? ['INBOX']).includes(labelId));
      const page = all.slice(from, from + max).map(({ r, mail }) => {
        const message = { id: mail.id, threadId: mail.id, labelIds: mail.labelIds ?? ['INBOX'] };
        const change = r.type === 'labelAdded' ? { labelsAdded: [{ message, labelIds: r.labelIds }] } : { messagesAdded: [{ message }] };
        return { id: String(r.id), messages: [{ id: mail.id, threadId: mail.id }], ...change };
      });
      const next = from + max < all.length ? String(from + max) : undefined;
      return reply(200, { ...(page.length ? { history: page } : {}), ...(next ? { nextPageToken: next } : {}), historyId: String(fake.historyId) });
    }
    if (rest === 'labels') return reply(200, { labels: fake.labels });
    if (rest === 'messages') {
      const q = url.searchParams.get('q') ?? '';
      const after = Number(q.match(/after:(\d+)/)?.[1] ?? 0) * 1000;
      const labelIds = url.searchParams.getAll('labelIds');
      const max = Math.min(Number(url.searchParams.get('maxResults') ?? 100), 500, fake.pageSize);
      const start = Number(url.searchParams.get('pageToken') ?? 0);
      const all = [...fake.mails.values()]
        .filter((x) => x.dateMs > after && labelIds.every((l) => (x.labelIds ?? ['INBOX']).includes(l)))
        .sort((a, b) => b.dateMs - a.dateMs);
      const page = all.slice(start, start + max);
      const next = start + max < all.length ? String(start + max) : undefined;
      return reply(200, { ...(page.length ? { messages: page.map((x) => ({ id: x.id, threadId: x.id })) } : {}), ...(next ? { nextPageToken: next } : {}), resultSizeEstimate: all.length });
    }
    const att = rest.match(/^messages\/([^/]+)\/attachments\/([^/]+)$/);
    if (att) {
      const data = attachments.get(att[2]);
      if (!fake.mails.has(att[1]) || !data) return errorReply(404, 'Requested entity was not found.', 'notFound');
      const mode = faultFor('attachment', att[1]);
      if (mode) return spoiled(mode, { size: data.length, data: data.toString('base64url') });
      getCount.set(att[1], (getCount.get(att[1]) ?? 0) + 1);
      return reply(200, { size: data.length, data: data.toString('base64url') });
    }
    const msg = rest.match(/^messages\/([^/]+)$/);
    if (msg) {
      const mail = fake.mails.get(msg[1]);
      if (!mail) return errorReply(404, 'Requested entity was not found.', 'notFound');
      if (fake.delayMs) await new Promise((r) => waits.add(setTimeout(r, fake.delayMs)));
      const mode = faultFor('message', mail.id);
      if (mode) return spoiled(mode, { id: mail.id, threadId: mail.id, labelIds: mail.labelIds ?? ['INBOX'] });
      getCount.set(mail.id, (getCount.get(mail.id) ?? 0) + 1);
      const format = url.searchParams.get('format') ?? 'full';
      const top = [
        { name: 'From', value: mail.from },
        { name: 'To', value: fake.email },
        { name: 'Subject', value: mail.subject },
        { name: 'Date', value: new Date(mail.dateMs).toUTCString() },
        { name: 'MIME-Version', value: '1.0' },
      ];
      const payload = gmailPart(mail.body, '', mail.id, attachments);
      payload.headers = [...top, ...payload.headers];
      const base = { id: mail.id, threadId: mail.id, labelIds: mail.labelIds ?? ['INBOX'], snippet: '', historyId: '1000', internalDate: String(mail.dateMs), sizeEstimate: 1000 };
      if (format === 'metadata') {
        const wanted = url.searchParams.getAll('metadataHeaders').map((h) => h.toLowerCase());
        return reply(200, { ...base, payload: { partId: '', mimeType: payload.mimeType, filename: '', headers: top.filter((h) => !wanted.length || wanted.includes(h.name.toLowerCase())), body: { size: 0 } } });
      }
      return reply(200, { ...base, payload });
    }
    return errorReply(404, 'Not Found', 'notFound');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeGmail = {
    origin,
    authUrl: `${origin}/o/oauth2/v2/auth`,
    tokenUrl: `${origin}/token`,
    baseUrl: origin,
    email: opts.email ?? 'books@example.co.il',
    mails: new Map(),
    labels: [
      { id: 'INBOX', name: 'INBOX', type: 'system' },
      { id: 'SENT', name: 'SENT', type: 'system' },
      { id: 'Label_1', name: 'חשבוניות', type: 'user' },
      { id: 'Label_2', name: 'Receipts', type: 'user' },
    ],
    requests: [],
    refreshTokens: [],
    revoke: (t) => void revoked.add(t),
    add: (...mails) =>
      mails.forEach((x) => {
        fake.mails.set(x.id, x);
        // Gmail's history ids grow with gaps between them.
        fake.historyId += 7;
        history.push({ id: fake.historyId, messageId: x.id, type: 'messageAdded' });
      }),
    label: (messageId, labelId) => {
      const mail = fake.mails.get(messageId);
      if (!mail) throw new Error(`no mail ${messageId}`);
      mail.labelIds = [...(mail.labelIds ?? ['INBOX']), labelId];
      fake.historyId += 7;
      history.push({ id: fake.historyId, messageId, type: 'labelAdded', labelIds: [labelId] });
    },
    pageSize: 500,
    delayMs: 0,
    fault: ({ on, mode, ids, times }) => void faults.push({ on, mode, ids: ids ? new Set(ids) : null, left: new Map(), times: times ?? Infinity }),
    heal: () => void faults.splice(0),
    spoiled: 0,
    historyId: 1000,
    historyFloor: 0,
    gets: (id) => (id ? getCount.get(id) ?? 0 : [...getCount.values()].reduce((a, b) => a + b, 0)),
    close: () => new Promise<void>((resolve) => (waits.forEach(clearTimeout), server.closeAllConnections(), server.close(() => resolve()))),
  };
  return fake;
}

export const gmailEnv = (fake: FakeGmail): Record<string, string> => ({
  MAILBOX_CLIENT_ID: FAKE_GMAIL_CLIENT.clientId,
  MAILBOX_CLIENT_SECRET: FAKE_GMAIL_CLIENT.clientSecret,
  MAILBOX_AUTH_URL: fake.authUrl,
  MAILBOX_TOKEN_URL: fake.tokenUrl,
  MAILBOX_BASE_URL: fake.baseUrl,
  ALLOWED_ORIGINS: TEST_APP_ORIGINS,
});

/** Opens the consent URL at the fake (which approves at once) and follows the redirect into our return page. */
export async function approveMailboxConsent(http: HttpHandler, consentUrl: string) {
  const r = await fetch(consentUrl, { redirect: 'manual' });
  const location = r.headers.get('location');
  if (r.status !== 302 || !location) throw new Error(`the fake refused the consent URL: ${r.status} ${await r.text()}`);
  const back = new URL(location);
  // The return page asks which business and account to connect; the person confirms (test/consent.ts).
  const { res, body, asked } = await returnAndConfirm(http, back);
  return { res, back, body, asked };
}

/** Connects the user's business to the fake mailbox through the real consent path; returns the accountId. */
export async function connectMailbox(h: { http: HttpHandler; call: (op: string, input?: unknown, user?: any) => Promise<any> }, user?: unknown): Promise<string> {
  const { url } = await h.call('mailboxConnectStart', { origin: 'https://app.example.com' }, user);
  const { res } = await approveMailboxConsent(h.http, url);
  if (res.status !== 200) throw new Error(`consent failed: ${res.status} ${String(res.body)}`);
  const { items } = await h.call('mailboxListAccounts', {}, user);
  return items.at(-1).accountId;
}

/** RFC 2047 B-encoding of a UTF-8 header value. */
export const encodedWord = (s: string) => `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
