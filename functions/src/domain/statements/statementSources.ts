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
 * - anything else is a transient failure: the sync task retries it and finally records `failed` with the reason.
 * 429 + Retry-After is retried inside the adapter (see retryAfterFetch) within the call's budget.
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

const sources = new Map<string, StatementSource>();

export function registerStatementSource(source: StatementSource): void {
  sources.set(source.name, source);
}

export function statementSource(name: string): StatementSource | undefined {
  return sources.get(name);
}

/**
 * fetch with 429 handling: waits Retry-After (seconds) and retries while the total wait stays within `budgetMs`;
 * then returns the 429 for the adapter to report.
 */
export async function retryAfterFetch(url: string, init: RequestInit, budgetMs = 20_000): Promise<Response> {
  let waited = 0;
  for (;;) {
    const res = await fetch(url, init);
    if (res.status !== 429) return res;
    const secs = Number(res.headers.get('retry-after') ?? '1');
    const ms = Math.max(0, Number.isFinite(secs) ? secs * 1000 : 1000);
    if (waited + ms > budgetMs) return res;
    await res.arrayBuffer().catch(() => undefined);
    await new Promise((r) => setTimeout(r, ms));
    waited += ms;
  }
}
