import type { gmail_v1 } from '@googleapis/gmail';
import { randomBytes } from 'node:crypto';
import { plainRequest } from '../keptAliveHttp.ts';
import { MailboxError, registerMailboxProvider, type MailboxProvider, type MailboxSession, type MailboxSettings } from '../../ports/mailbox.ts';

export { MailboxError, type MailboxFailure, type MailboxSession, type MailboxSettings } from '../../ports/mailbox.ts';

/**
 * The mailbox provider (Gmail) through its official clients: google-auth-library's OAuth2Client for
 * the consent, code exchange and refresh, and @googleapis/gmail for the API. The OAuth2Client is the
 * one @googleapis/gmail re-exports (`auth.OAuth2`), so client and API share one google-auth-library
 * version. Imported lazily: a cold start that never touches a mailbox does not load them.
 */

export const GMAIL_SCOPE = 'https://www.googleapis.com/auth/gmail.readonly';

type GmailModule = typeof import('@googleapis/gmail');
let loaded: Promise<GmailModule> | undefined;
const load = () => (loaded ??= import('@googleapis/gmail'));

function oauthClient(mod: GmailModule, s: MailboxSettings, redirectUri?: string) {
  return new mod.auth.OAuth2({
    clientId: s.clientId,
    clientSecret: s.clientSecret,
    redirectUri,
    endpoints: { oauth2AuthBaseUrl: s.authUrl, oauth2TokenUrl: s.tokenUrl },
    // Every token call (code exchange, refresh) is bounded like the API calls.
    transporterOptions: { timeout: s.timeoutMs ?? 20_000 },
  });
}

/** Maps a gaxios error (from the token endpoint or the API) to a MailboxError; other errors pass through. */
export function mailboxError(e: unknown): unknown {
  const err = e as { response?: { status?: number; data?: any }; status?: number; code?: string; message?: string };
  if (e instanceof MailboxError) return e;
  const data = err?.response?.data;
  const status = err?.response?.status ?? err?.status;
  const oauthError = typeof data?.error === 'string' ? data.error : '';
  if (oauthError === 'invalid_grant' || oauthError === 'unauthorized_client' || status === 401) return new MailboxError('auth', oauthError || 'the mailbox refused the credentials');
  if (status === 404) return new MailboxError('not_found', 'not found in the mailbox');
  if (status === 429) return new MailboxError('ratelimited', 'the mailbox provider is rate limiting');
  // The provider's own words (Gmail's error body: {error: {code, message, status}}) travel with the status.
  const said = typeof data?.error?.message === 'string' ? `: ${data.error.message.slice(0, 200)}` : '';
  if (typeof status === 'number' && status >= 500) return new MailboxError('unavailable', `the mailbox provider answered ${status}${said}`);
  if (typeof status === 'number') return new MailboxError('refused', `the mailbox provider refused the request (${status}${oauthError ? ' ' + oauthError : ''})`);
  if (err?.code && /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN/.test(String(err.code))) return new MailboxError('unavailable', 'the mailbox provider is not answering');
  // A call past its time limit (gaxios aborts it).
  if (/AbortError|TimeoutError/.test(String((e as { name?: string })?.name)) || /ABORT_ERR|ERR_ABORTED/.test(String(err?.code)) || /aborted|timed? ?out/i.test(String(err?.message))) {
    return new MailboxError('unavailable', 'the mailbox provider did not answer in time');
  }
  return e;
}

/**
 * The documented JSON object, or a temporary failure: gaxios hands a body that is not JSON (garbage, or cut off
 * mid-way) back as a string, which would otherwise read as an empty message or attachment.
 */
function answer<T extends object>(data: unknown, what: string): T {
  if (!data || typeof data !== 'object') throw new MailboxError('unavailable', `the mailbox provider's answer to ${what} was garbled or cut off`);
  return data as T;
}

/**
 * An attachment's bytes, checked against the size Gmail declares for them (MessagePartBody.size, "number of bytes
 * for the message part data (encoding notwithstanding)", developers.google.com/gmail/api/reference/rest/v1/users.messages.attachments):
 * fewer bytes are a cut-off answer, a temporary failure, not a broken file. (Only fewer: more would not be a cut.)
 */
export function attachmentBytes(data: unknown): Buffer {
  const body = answer<gmail_v1.Schema$MessagePartBody>(data, 'an attachment request');
  if (typeof body.data !== 'string') throw new MailboxError('unavailable', "the mailbox provider's answer to an attachment request had no data");
  const bytes = b64url(body.data);
  if (typeof body.size === 'number' && bytes.length < body.size) throw new MailboxError('unavailable', `the mailbox provider sent ${bytes.length} of the attachment's ${body.size} bytes`);
  return bytes;
}

async function wrap<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw mailboxError(e);
  }
}

export async function authorizeUrl(s: MailboxSettings, opts: { redirectUri: string; state: string }): Promise<string> {
  const client = oauthClient(await load(), s, opts.redirectUri);
  return client.generateAuthUrl({ access_type: 'offline', prompt: 'consent', scope: [GMAIL_SCOPE], state: opts.state, include_granted_scopes: true });
}

/** Exchanges the consent's code; the refresh token is what is kept. */
export async function exchangeCode(s: MailboxSettings, opts: { code: string; redirectUri: string }): Promise<{ refreshToken: string; scope: string }> {
  const client = oauthClient(await load(), s, opts.redirectUri);
  const { tokens } = await wrap(() => client.getToken(opts.code));
  if (!tokens.refresh_token) throw new MailboxError('refused', 'the provider returned no refresh token (offline access was not granted)');
  return { refreshToken: tokens.refresh_token, scope: tokens.scope ?? '' };
}

const b64url = (s: string | null | undefined) => Buffer.from(s ?? '', 'base64url');

/**
 * One Gmail API request with plainRequest: through @googleapis/gmail each of the import's per-mail calls cost about
 * four times the CPU (gaxios, node-fetch, the client's request pipeline), and `fetch` about 1.4 times (issue 23).
 * The access token is the OAuth2Client's (refreshed by it when expired, and once more when the API answers 401); a
 * socket failure or timeout is the MailboxError `unavailable`.
 */
async function authedCall(auth: InstanceType<GmailModule['auth']['OAuth2']>, s: MailboxSettings, method: 'GET' | 'POST', url: string, headers: Record<string, string>, body: string | null, maxBytes?: number) {
  for (let attempt = 1; ; attempt++) {
    const { token } = await auth.getAccessToken();
    let res: { status: number; type: string; text: string };
    try {
      res = await plainRequest(method, url, { ...headers, authorization: `Bearer ${token}` }, body, { timeoutMs: s.timeoutMs ?? 20_000, maxBytes });
    } catch (e) {
      if ((e as { name?: string })?.name === 'TimeoutError') throw new MailboxError('unavailable', 'the mailbox provider did not answer in time');
      // A refused or reset connection, or a body cut off mid-way.
      throw new MailboxError('unavailable', 'the mailbox provider is not answering');
    }
    if (res.status === 401 && attempt === 1) {
      // An access token the provider no longer takes: get a fresh one once, as the client's own requests do.
      auth.setCredentials({ refresh_token: auth.credentials.refresh_token });
      continue;
    }
    return res;
  }
}

/** The body as JSON, or null: not JSON (garbled, cut off, or an error page). */
const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** GET of one Gmail API resource; failures become the MailboxErrors `mailboxError` gives the client's. */
async function getJson<T>(auth: InstanceType<GmailModule['auth']['OAuth2']>, s: MailboxSettings, path: string, what: string): Promise<T> {
  const res = await authedCall(auth, s, 'GET', `${s.baseUrl.replace(/\/+$/, '')}/gmail/v1/users/me/${path}`, { accept: 'application/json' }, null);
  const data = parsed(res.text);
  if (res.status < 200 || res.status >= 300) throw mailboxError({ response: { status: res.status, data } });
  return answer<T & object>(data, what);
}

/**
 * The largest batch answer read: callers ask ahead for at most 8 MB of attachments (base64 in JSON is a third more);
 * past this the calls fail as unavailable and are asked again one by one.
 */
const BATCH_ANSWER_BYTES = 64 * 1024 * 1024;

/** Gmail takes up to 100 calls a batch request and advises against more than 50 (developers.google.com/gmail/api/guides/batch). */
const BATCH_CALLS = 50;

/**
 * Several GETs in one request to Gmail's batch endpoint (POST /batch/gmail/v1, multipart/mixed, one
 * `application/http` part a call, by path alone; the outer Authorization covers them all). Answers each call's
 * status and JSON body (null when not JSON), by its Content-ID, as Gmail may answer them in any order; a call
 * missing from the answer is null. The request as a whole failing throws, as a single GET would.
 */
async function batchGet(auth: InstanceType<GmailModule['auth']['OAuth2']>, s: MailboxSettings, paths: string[]): Promise<({ status: number; data: unknown } | null)[]> {
  const boundary = `batch_${randomBytes(12).toString('hex')}`;
  let body = '';
  paths.forEach((p, i) => (body += `--${boundary}\r\nContent-Type: application/http\r\nContent-ID: <call${i}>\r\n\r\nGET /gmail/v1/users/me/${p}\r\nAccept: application/json\r\n\r\n`));
  body += `--${boundary}--\r\n`;
  const res = await authedCall(auth, s, 'POST', `${s.baseUrl.replace(/\/+$/, '')}/batch/gmail/v1`, { 'content-type': `multipart/mixed; boundary=${boundary}`, accept: 'multipart/mixed' }, body, BATCH_ANSWER_BYTES);
  if (res.status < 200 || res.status >= 300) throw mailboxError({ response: { status: res.status, data: parsed(res.text) } });
  const answerBoundary = /^multipart\/mixed\b/i.test(res.type) ? res.type.match(/boundary="?([^";]+)"?/i)?.[1] : undefined;
  if (!answerBoundary) throw new MailboxError('unavailable', "the mailbox provider's answer to a batch request was not multipart");
  const out: ({ status: number; data: unknown } | null)[] = paths.map(() => null);
  for (const part of res.text.split(`--${answerBoundary}`).slice(1)) {
    if (part.startsWith('--')) break; // the closing delimiter
    // Part headers, a blank line, then the HTTP response: status line, its headers, a blank line, the body.
    const headEnd = part.indexOf('\r\n\r\n');
    const responseHeadEnd = headEnd < 0 ? -1 : part.indexOf('\r\n\r\n', headEnd + 4);
    if (responseHeadEnd < 0) continue;
    const index = Number(part.slice(0, headEnd).match(/^content-id:\s*<?response-call(\d+)>?\s*$/im)?.[1] ?? NaN);
    const status = Number(part.slice(headEnd + 4, responseHeadEnd).match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? NaN);
    if (!Number.isInteger(index) || index >= paths.length || !Number.isInteger(status)) continue;
    out[index] = { status, data: parsed(part.slice(responseHeadEnd + 4).replace(/\r\n$/, '')) };
  }
  return out;
}

/** The port's Mail from Gmail's Message, which must carry its payload. */
function toMail(m: gmail_v1.Schema$Message, id: string) {
  if (!m.payload || typeof m.payload !== 'object') throw new MailboxError('unavailable', "the mailbox provider's answer to a message request had no payload");
  return { id: m.id ?? id, threadId: m.threadId ?? '', labelIds: m.labelIds ?? [], internalDate: Number(m.internalDate ?? 0), payload: m.payload ?? {} };
}

/**
 * Batches of GETs, each call's answer turned by `take` into its value, or into the MailboxError that call alone
 * would have given; a batch that failed as a whole gives its error to each of its calls.
 */
async function batched<T>(auth: InstanceType<GmailModule['auth']['OAuth2']>, s: MailboxSettings, paths: string[], what: string, take: (data: object, i: number) => T): Promise<(T | MailboxError)[]> {
  const out: (T | MailboxError)[] = [];
  for (let from = 0; from < paths.length; from += BATCH_CALLS) {
    const chunk = paths.slice(from, from + BATCH_CALLS);
    let answers: ({ status: number; data: unknown } | null)[];
    try {
      answers = await batchGet(auth, s, chunk);
    } catch (e) {
      const err = mailboxError(e);
      if (!(err instanceof MailboxError)) throw err;
      out.push(...chunk.map(() => err));
      continue;
    }
    answers.forEach((a, i) => {
      try {
        if (!a) throw new MailboxError('unavailable', `the mailbox provider's answer to a batch request left out ${what}`);
        if (a.status < 200 || a.status >= 300) throw mailboxError({ response: { status: a.status, data: a.data } });
        out.push(take(answer<object>(a.data, what), from + i));
      } catch (e) {
        const err = mailboxError(e);
        if (!(err instanceof MailboxError)) throw err;
        out.push(err);
      }
    });
  }
  return out;
}

/** A session on one mailbox with its refresh token; access tokens are refreshed by the client as needed. */
export async function openSession(s: MailboxSettings, refreshToken: string): Promise<MailboxSession> {
  const mod = await load();
  const auth = oauthClient(mod, s);
  auth.setCredentials({ refresh_token: refreshToken });
  const api = mod.gmail({ version: 'v1', auth, rootUrl: s.baseUrl.replace(/\/+$/, '') + '/', retry: false, timeout: s.timeoutMs ?? 20_000 });
  const users = api.users;
  return {
    profileEmail: () => wrap(async () => (await users.getProfile({ userId: 'me' })).data.emailAddress ?? ''),
    listLabels: () =>
      wrap(async () => {
        const r = await users.labels.list({ userId: 'me' });
        return (r.data.labels ?? []).map((l) => ({ id: l.id ?? '', name: l.name ?? '', type: l.type ?? 'user' }));
      }),
    listMessageIds: ({ q, labelId, max }) =>
      wrap(async () => {
        const ids: string[] = [];
        let pageToken: string | undefined;
        do {
          const r = await users.messages.list({ userId: 'me', q, labelIds: labelId ? [labelId] : undefined, maxResults: 500, pageToken });
          for (const m of r.data.messages ?? []) if (m.id) ids.push(m.id);
          pageToken = r.data.nextPageToken ?? undefined;
        } while (pageToken && ids.length < max);
        return { ids: ids.slice(0, max), truncated: ids.length > max || !!pageToken };
      }),
    getMessage: (id, format) =>
      wrap(async () => {
        const query = format === 'metadata' ? 'format=metadata&metadataHeaders=From&metadataHeaders=Subject&metadataHeaders=Date' : `format=${encodeURIComponent(format)}`;
        return toMail(await getJson<gmail_v1.Schema$Message>(auth, s, `messages/${encodeURIComponent(id)}?${query}`, 'a message request'), id);
      }),
    getMessages: (ids) => batched(auth, s, ids.map((id) => `messages/${encodeURIComponent(id)}?format=full`), 'a message request', (m, i) => toMail(m, ids[i])),
    getAttachments: (items) =>
      batched(auth, s, items.map((a) => `messages/${encodeURIComponent(a.messageId)}/attachments/${encodeURIComponent(a.attachmentId)}`), 'an attachment request', (data) => attachmentBytes(data)),
    getAttachment: (messageId, attachmentId) =>
      wrap(async () => attachmentBytes(await getJson<object>(auth, s, `messages/${encodeURIComponent(messageId)}/attachments/${encodeURIComponent(attachmentId)}`, 'an attachment request'))),
    historyId: () => wrap(async () => String((await users.getProfile({ userId: 'me' })).data.historyId ?? '')),
    listHistory: ({ startHistoryId, labelId, max }) =>
      wrap(async () => {
        const seen = new Map<string, string[]>();
        // The cursor handed back: the mailbox's history id once everything was read; after a stop at `max`,
        // the id of the last record taken, so the next call goes on from there and nothing is skipped.
        let historyId = startHistoryId;
        let pageToken: string | undefined;
        do {
          // Watching a label, a mail the user labels later counts as arriving there (labelAdded).
          const historyTypes = labelId ? ['messageAdded', 'labelAdded'] : ['messageAdded'];
          const r = await users.history.list({ userId: 'me', startHistoryId, historyTypes, labelId, maxResults: 500, pageToken });
          for (const h of r.data.history ?? []) {
            const added = [...(h.messagesAdded ?? []), ...(h.labelsAdded ?? []).filter((l) => labelId && l.labelIds?.includes(labelId))];
            for (const a of added) if (a.message?.id && !seen.has(a.message.id)) seen.set(a.message.id, a.message.labelIds ?? []);
            if (h.id) historyId = String(h.id);
            if (seen.size >= max) {
              const more = h !== r.data.history!.at(-1) || Boolean(r.data.nextPageToken);
              if (more) return { messages: [...seen].map(([id, labelIds]) => ({ id, labelIds })), historyId, truncated: true };
            }
          }
          pageToken = r.data.nextPageToken ?? undefined;
          if (!pageToken && r.data.historyId) historyId = String(r.data.historyId);
        } while (pageToken);
        return { messages: [...seen].map(([id, labelIds]) => ({ id, labelIds })), historyId, truncated: false };
      }),
  };
}

/** The mailbox port's Gmail provider, registered on import. */
export const gmailProvider: MailboxProvider = { name: 'gmail', authorizeUrl, exchangeCode, openSession };
registerMailboxProvider(gmailProvider);
