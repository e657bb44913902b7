/**
 * The chat-tool port: a workspace the business connected by OAuth consent (a bot token), its status, and its
 * members as people who can become employees. Slack fills it (adapters/chat/slackClient.ts), registering itself
 * with registerChatProvider; the domain looks it up by name.
 */

/** The tool's OAuth client and API base, from configuration. */
export interface ChatSettings {
  authUrl: string;
  /** API base, ending with `/`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  /** The longest Retry-After waited for in a request; longer ones fail as rate-limited. */
  maxRetryWaitSec?: number;
}

export type ChatFailure = 'auth' | 'ratelimited' | 'unavailable' | 'refused';

/** A chat-tool failure: `error` is the tool's own code (e.g. `invalid_auth`), never a token. */
export class ChatError extends Error {
  readonly failure: ChatFailure;
  readonly error: string;
  readonly retryAfterSec: number | null;
  constructor(failure: ChatFailure, error: string, retryAfterSec: number | null = null) {
    super(error);
    this.name = 'ChatError';
    this.failure = failure;
    this.error = error;
    this.retryAfterSec = retryAfterSec;
  }
}

/** A member of the workspace, as the tool's profile gives it (unchecked text). */
export interface ChatMember {
  id: string;
  name?: string;
  email?: string;
  phone?: string;
  title?: string;
  /** A person: not a bot, an app, a deactivated member or the tool's own helper. */
  person: boolean;
}

/** What a consent grants: the bot token and the workspace (team) it belongs to. */
export interface ChatGrant {
  accessToken: string;
  teamId: string;
  teamName: string;
  botUserId: string | null;
  scope: string;
}

export interface ChatClient {
  /** The browser URL of the consent screen. */
  authorizeUrl(p: { redirectUri: string; state: string }): string;
  exchangeCode(p: { code: string; redirectUri: string }): Promise<ChatGrant>;
  /** Whether the token still works, and its workspace. */
  authTest(token: string): Promise<{ teamId: string; teamName: string }>;
  revoke(token: string): Promise<boolean>;
  /** Every member, stopping with `truncated` at `max`. */
  listMembers(token: string, max: number): Promise<{ members: ChatMember[]; truncated: boolean; pages: number }>;
}

export interface ChatProvider {
  readonly name: string;
  client(settings: ChatSettings): ChatClient;
}

const providers = new Map<string, ChatProvider>();

export function registerChatProvider(provider: ChatProvider): void {
  providers.set(provider.name, provider);
}

export function chatProvider(name: string): ChatProvider {
  const p = providers.get(name);
  if (!p) throw new Error(`no chat provider registered as ${name}`);
  return p;
}
