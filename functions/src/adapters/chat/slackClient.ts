import type { WebClient } from '@slack/web-api';
import { ChatError, registerChatProvider, type ChatFailure, type ChatGrant, type ChatMember, type ChatProvider, type ChatSettings } from '../../ports/chat.ts';

/**
 * The chat tool is Slack: OAuth v2 and the Web API through `@slack/web-api`, pointed at
 * CHAT_BASE_URL. The SDK is loaded on first use, so cold starts that never touch Slack skip it. Every call has the
 * CHAT_TIMEOUT_MS time limit (the SDK aborts the request); a timeout is `unavailable`.
 */

export type SlackSettings = ChatSettings;

/** Bot scopes: the member list with emails (phone and title are in the profile). */
export const SLACK_BOT_SCOPES = ['users:read', 'users:read.email'];

export type SlackFailure = ChatFailure;

/** A Slack failure: `error` is Slack's own code (`invalid_auth`, `ratelimited`, ...), never a token. */
export class SlackError extends ChatError {
  constructor(failure: SlackFailure, error: string, retryAfterSec: number | null = null) {
    super(failure, error, retryAfterSec);
    this.name = 'SlackError';
  }
}

/** Slack's answers that mean the stored token no longer works: the user must connect again. */
const AUTH_ERRORS = new Set(['invalid_auth', 'token_revoked', 'token_expired', 'account_inactive', 'not_authed', 'missing_scope', 'no_permission', 'team_access_not_granted']);

export interface SlackMember {
  id: string;
  team_id?: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_app_user?: boolean;
  profile?: { real_name?: string; display_name?: string; email?: string; phone?: string; title?: string };
}

export type SlackGrant = ChatGrant;

let sdk: Promise<typeof import('@slack/web-api')> | undefined;
const loadSdk = () => (sdk ??= import('@slack/web-api'));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function slackClient(settings: SlackSettings) {
  const maxWait = settings.maxRetryWaitSec ?? 10;

  async function client(token?: string): Promise<WebClient> {
    const { WebClient, LogLevel } = await loadSdk();
    return new WebClient(token, {
      slackApiUrl: settings.baseUrl,
      timeout: settings.timeoutMs ?? 20_000,
      // We retry rate limits ourselves (bounded); network failures are not retried inside a request.
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
      allowAbsoluteUrls: false,
    });
  }

  /** One Web API call; a `ratelimited` answer is retried after Retry-After, up to 3 attempts. */
  async function call<T>(token: string | undefined, method: string, args: Record<string, unknown>): Promise<T> {
    const web = await client(token);
    for (let attempt = 1; ; attempt++) {
      try {
        return (await web.apiCall(method, args)) as T;
      } catch (e) {
        const err = e as { code?: string; retryAfter?: number; data?: { error?: string }; statusCode?: number };
        if (err.code === 'slack_webapi_rate_limited_error') {
          const wait = err.retryAfter ?? 1;
          if (attempt >= 3 || wait > maxWait) throw new SlackError('ratelimited', 'ratelimited', wait);
          await sleep(wait * 1000);
          continue;
        }
        if (err.code === 'slack_webapi_platform_error') {
          const code = String(err.data?.error ?? 'unknown_error').slice(0, 80);
          throw new SlackError(AUTH_ERRORS.has(code) ? 'auth' : 'refused', code);
        }
        if (err.code === 'slack_webapi_http_error') throw new SlackError('unavailable', `http_${err.statusCode ?? 'error'}`);
        throw new SlackError('unavailable', 'request_failed');
      }
    }
  }

  return {
    authorizeUrl({ redirectUri, state }: { redirectUri: string; state: string }): string {
      const url = new URL(settings.authUrl);
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('scope', SLACK_BOT_SCOPES.join(','));
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      return url.toString();
    },

    /** `oauth.v2.access`: the authorization code for a bot token. */
    async exchangeCode({ code, redirectUri }: { code: string; redirectUri: string }): Promise<SlackGrant> {
      const r = await call<{ access_token?: string; scope?: string; bot_user_id?: string; team?: { id?: string; name?: string } }>(undefined, 'oauth.v2.access', {
        client_id: settings.clientId,
        client_secret: settings.clientSecret,
        code,
        redirect_uri: redirectUri,
      });
      if (!r.access_token || !r.team?.id) throw new SlackError('unavailable', 'bad_reply');
      return { accessToken: r.access_token, teamId: r.team.id, teamName: r.team.name ?? '', botUserId: r.bot_user_id ?? null, scope: r.scope ?? '' };
    },

    /** `auth.test`: whether the token still works, and its workspace. */
    async authTest(token: string): Promise<{ teamId: string; teamName: string }> {
      const r = await call<{ team_id?: string; team?: string }>(token, 'auth.test', {});
      return { teamId: r.team_id ?? '', teamName: r.team ?? '' };
    },

    /** `auth.revoke`. */
    async revoke(token: string): Promise<boolean> {
      const r = await call<{ revoked?: boolean }>(token, 'auth.revoke', {});
      return r.revoked === true;
    },

    /** Every workspace member, paging `users.list` by cursor; stops with `truncated` at `max`. */
    async listMembers(token: string, max: number): Promise<{ members: SlackMember[]; truncated: boolean; pages: number }> {
      const members: SlackMember[] = [];
      let cursor = '';
      let pages = 0;
      do {
        const r = await call<{ members?: SlackMember[]; response_metadata?: { next_cursor?: string } }>(token, 'users.list', { limit: 200, ...(cursor ? { cursor } : {}) });
        pages++;
        members.push(...(r.members ?? []));
        cursor = r.response_metadata?.next_cursor ?? '';
        if (members.length >= max) return { members: members.slice(0, max), truncated: Boolean(cursor) || members.length > max, pages };
      } while (cursor);
      return { members, truncated: false, pages };
    },
  };
}

export type SlackClient = ReturnType<typeof slackClient>;

/** Slackbot is a member of every workspace but not a person. */
const SLACKBOT_ID = 'USLACKBOT';

/** A Slack member in the chat port's words. */
export function chatMember(m: SlackMember): ChatMember {
  const p = m.profile ?? {};
  return {
    id: m.id,
    name: p.real_name || m.real_name || p.display_name || m.name,
    email: p.email,
    phone: p.phone,
    title: p.title,
    person: !m.deleted && !m.is_bot && !m.is_app_user && m.id !== SLACKBOT_ID,
  };
}

/** The chat port's Slack provider, registered on import. */
export const slackChat: ChatProvider = {
  name: 'slack',
  client(settings) {
    const slack = slackClient(settings);
    return {
      ...slack,
      async listMembers(token, max) {
        const r = await slack.listMembers(token, max);
        return { ...r, members: r.members.map(chatMember) };
      },
    };
  },
};
registerChatProvider(slackChat);
