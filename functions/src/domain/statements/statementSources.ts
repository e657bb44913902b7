/**
 * The statement-source port. Each source (cardproc, usbank, fxwallet, gateway, market) is one adapter that
 * implements StatementSource and registers itself with registerStatementSource from its adapter module; the
 * shared task and operations (domain/statements/statements.ts) look it up by name. Adding a source = one adapter file
 * plus its `<source>Connect/ListAccounts/Disconnect/Sync` operations, which call the helpers in statements.ts.
 *
 * Adapters report provider refusals by throwing:
 * - ApiError('invalid-argument' | 'failed-precondition', ...) for a wrong credential or a refusal the user can fix
 *   (message says what to do, never contains the credential);
 * - NeedsReconnect for an expired/revoked credential: the framework marks the connection's accounts `needs_reconnect`;
 * - ProviderUnavailable for a network failure, a timeout or a 5xx: transient, the sync task retries it and finally
 *   records `failed` with the reason (connect answers `unavailable`); a provider's 4xx refusal is never this;
 * - NotYetAvailable when the provider does not have the month's data yet: the statement stays `pending` with the
 *   reason and the sync runs again later;
 * - anything else is a transient failure as well, but its text is not shown to the caller.
 * 429 + Retry-After is retried inside the adapter within the call's budget (adapters/providerHttp.ts).
 */
import type { Config } from '../../config.ts';

export interface ProviderAccount {
  /** The provider's id of the account (stable across reconnects). */
  providerAccountId: string;
  name: string;
  currency?: string;
}

export interface StatementFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface ConnectResult {
  accounts: ProviderAccount[];
  /** Closed months with activity, `YYYY-MM`, within the range the framework passes. */
  monthsWithActivity: string[];
}

export interface SourceEnv {
  config: Config;
  /** Closed months the framework offers, newest first (domain/months.ts closedMonths). */
  months: string[];
  /** The service clock's now (ms), for sources whose credentials expire. */
  nowMs?: number;
  /**
   * Set by the sync task: seals and stores credentials the adapter renewed (e.g. a refreshed OAuth token) on the
   * connection at once, so a renewal survives a later failure of the same sync.
   */
  saveCredentials?: (credentials: Record<string, string>) => Promise<void>;
  /** Set by the sync task: the connection's credentials as stored now (another sync may have renewed them meanwhile). */
  loadCredentials?: () => Promise<Record<string, string> | null>;
}

/** One transaction of a month, for sources that report them (market): flat values only. */
export type StatementRow = Record<string, string | number | null>;

/** What sync may answer instead of a bare file list: the files plus the month's transactions, stored as rows. */
export interface SyncResult {
  files: StatementFile[];
  rows?: StatementRow[];
  /** What the files do not cover of the month (e.g. the provider's data starts mid-month); shown as the statement's reason. */
  note?: string;
}

export interface StatementSource {
  name: string;
  /** Validates the credential against the provider; throws before anything is stored when it is wrong. */
  connect(credentials: Record<string, string>, env: SourceEnv): Promise<ConnectResult>;
  /** The account's official files for a closed month (and, for some sources, its transactions as rows). */
  sync(credentials: Record<string, string>, account: ProviderAccount, month: string, env: SourceEnv): Promise<StatementFile[] | SyncResult>;
}

/** Thrown by an adapter when the provider says the credential expired or was revoked. */
export class NeedsReconnect extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NeedsReconnect';
  }
}

/** The provider could not be reached, did not answer in time, or answered 5xx: nothing was decided, try again later. */
export class ProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider does not have the month's data yet (e.g. Stripe's data_available_end is before the month's end). */
export class NotYetAvailable extends Error {
  /** When to try again, in seconds from now. */
  readonly retryAfterSec: number;
  constructor(message: string, retryAfterSec: number) {
    super(message);
    this.name = 'NotYetAvailable';
    this.retryAfterSec = retryAfterSec;
  }
}

const sources = new Map<string, StatementSource>();

export function registerStatementSource(source: StatementSource): void {
  sources.set(source.name, source);
}

export function statementSource(name: string): StatementSource | undefined {
  return sources.get(name);
}

