/**
 * The mailbox port: a mailbox the business connected by OAuth consent, read through a session — its labels,
 * its mails as MIME part trees, their attachments, and a history cursor to follow what arrives. Gmail fills it
 * today (adapters/mailbox/gmail.ts); a second provider (Microsoft 365 mail) registers under its own name.
 * Each adapter registers itself with registerMailboxProvider; the domain looks it up by name.
 */

/** The provider's OAuth client and API root, from configuration. */
export interface MailboxSettings {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  /** The provider's API root, e.g. https://gmail.googleapis.com */
  baseUrl: string;
  /** Time limit of one call (token endpoint or API), ms. */
  timeoutMs?: number;
}

/** Why a call failed, in words the domain can act on. */
export type MailboxFailure = 'auth' | 'not_found' | 'ratelimited' | 'unavailable' | 'refused';

export class MailboxError extends Error {
  readonly failure: MailboxFailure;
  constructor(failure: MailboxFailure, message: string) {
    super(message);
    this.name = 'MailboxError';
    this.failure = failure;
  }
}

export interface MailHeader {
  name?: string | null;
  value?: string | null;
}

/** One MIME part of a mail; `body.data` is base64url, an attachment's bytes come by `body.attachmentId`. */
export interface MailPart {
  partId?: string | null;
  mimeType?: string | null;
  filename?: string | null;
  headers?: MailHeader[];
  body?: { attachmentId?: string | null; size?: number | null; data?: string | null };
  parts?: MailPart[];
}

export interface Mail {
  id: string;
  threadId: string;
  labelIds: string[];
  /** When the mailbox received it, ms since epoch. */
  internalDate: number;
  payload: MailPart;
}

export interface MailLabel {
  id: string;
  name: string;
  /** `system` (inbox, sent, ...) or `user`. */
  type: string;
}

export interface MailboxSession {
  profileEmail(): Promise<string>;
  listLabels(): Promise<MailLabel[]>;
  /** Mail ids matching the provider query `q` (and the label), newest first, up to `max`. */
  listMessageIds(opts: { q: string; labelId?: string; max: number }): Promise<{ ids: string[]; truncated: boolean }>;
  /** `full`: the whole part tree with bodies; `metadata`: headers From, Subject and Date only. */
  getMessage(id: string, format: 'full' | 'metadata'): Promise<Mail>;
  getAttachment(messageId: string, attachmentId: string): Promise<Buffer>;
  /**
   * Several mails (format `full`), or several attachments, in as few requests as the provider allows (Gmail's batch
   * endpoint): each entry, in order, is the value or the MailboxError that call alone would have given. Optional: a
   * provider without batching leaves them out and callers ask one by one.
   */
  getMessages?(ids: string[]): Promise<(Mail | MailboxError)[]>;
  getAttachments?(items: { messageId: string; attachmentId: string }[]): Promise<(Buffer | MailboxError)[]>;
  /** The mailbox's current history cursor: where a watcher starts. */
  historyId(): Promise<string>;
  /**
   * Ids of mails added since the cursor `startHistoryId` (with a label, also those the label was put on since),
   * oldest first, with the cursor to go on from: the mailbox's newest one, or, when `max` stopped the listing
   * (`truncated`), the last record taken (whole records, so slightly more than `max` may come). A cursor too old
   * answers MailboxError not_found.
   */
  listHistory(opts: { startHistoryId: string; labelId?: string; max: number }): Promise<{ messages: { id: string; labelIds: string[] }[]; historyId: string; truncated: boolean }>;
}

export interface MailboxProvider {
  readonly name: string;
  /** The consent page's URL (offline access, so a refresh token comes back). */
  authorizeUrl(s: MailboxSettings, opts: { redirectUri: string; state: string }): Promise<string>;
  /** Exchanges the consent's code; the refresh token is what is kept. */
  exchangeCode(s: MailboxSettings, opts: { code: string; redirectUri: string }): Promise<{ refreshToken: string; scope: string }>;
  /** A session on one mailbox with its refresh token. */
  openSession(s: MailboxSettings, refreshToken: string): Promise<MailboxSession>;
}

const providers = new Map<string, MailboxProvider>();

export function registerMailboxProvider(provider: MailboxProvider): void {
  providers.set(provider.name, provider);
}

export function mailboxProvider(name: string): MailboxProvider {
  const p = providers.get(name);
  if (!p) throw new Error(`no mailbox provider registered as ${name}`);
  return p;
}
