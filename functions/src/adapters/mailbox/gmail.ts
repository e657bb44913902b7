import type { gmail_v1 } from '@googleapis/gmail';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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

/** Kept-alive connections for the per-mail calls (idle sockets do not hold the process open: Node unrefs them). */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** One GET with node:http(s): the status and the body as text; rejects on a socket failure or after `timeoutMs` in all. */
function httpGet(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const https = url.startsWith('https:');
    const req = (https ? httpsRequest : httpRequest)(url, { headers, agent: https ? agents.https : agents.http }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('the answer was cut off')));
    });
    function fail(e: Error) {
      clearTimeout(timer);
      reject(e);
    }
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })), timeoutMs);
    req.on('error', fail);
    req.end();
  });
}

/**
 * GET of one Gmail API resource, for the two calls an import makes per mail (the message, its attachment), with
 * node:http(s) on kept-alive connections: through @googleapis/gmail each cost about four times the CPU (gaxios,
 * node-fetch, the client's request pipeline), and `fetch` about 1.4 times (issue 23). The access token is the
 * OAuth2Client's (refreshed by it when expired, and once more when the API answers 401); failures become the
 * MailboxErrors `mailboxError` gives the client's.
 */
async function getJson<T>(auth: InstanceType<GmailModule['auth']['OAuth2']>, s: MailboxSettings, path: string, what: string): Promise<T> {
  const url = `${s.baseUrl.replace(/\/+$/, '')}/gmail/v1/users/me/${path}`;
  for (let attempt = 1; ; attempt++) {
    const { token } = await auth.getAccessToken();
    let res: { status: number; text: string };
    try {
      res = await httpGet(url, { authorization: `Bearer ${token}`, accept: 'application/json' }, s.timeoutMs ?? 20_000);
    } catch (e) {
      if ((e as { name?: string })?.name === 'TimeoutError') throw new MailboxError('unavailable', 'the mailbox provider did not answer in time');
      // A refused or reset connection, or a body cut off mid-way.
      throw new MailboxError('unavailable', 'the mailbox provider is not answering');
    }
    let data: unknown = null;
    try {
      data = JSON.parse(res.text);
    } catch {
      // not JSON: garbled or cut off (below), or an error page
    }
    if (res.status === 401 && attempt === 1) {
      // An access token the provider no longer takes: get a fresh one once, as the client's own requests do.
      auth.setCredentials({ refresh_token: auth.credentials.refresh_token });
      continue;
    }
    if (res.status < 200 || res.status >= 300) throw mailboxError({ response: { status: res.status, data } });
    return answer<T & object>(data, what);
  }
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
        const m = await getJson<gmail_v1.Schema$Message>(auth, s, `messages/${encodeURIComponent(id)}?${query}`, 'a message request');
        if (!m.payload || typeof m.payload !== 'object') throw new MailboxError('unavailable', "the mailbox provider's answer to a message request had no payload");
        return { id: m.id ?? id, threadId: m.threadId ?? '', labelIds: m.labelIds ?? [], internalDate: Number(m.internalDate ?? 0), payload: m.payload ?? {} };
      }),
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
