/**
 * Statements: connections, accounts and monthly statements from the statement sources (domain/statements/statementSources.ts).
 *
 * Records (all under businesses/{b}/):
 * - statementConnections/{connectionId}: one per connect; the sealed credentials shared by its accounts.
 * - statementAccounts/{accountId}: one per provider account; status `connected` | `needs_reconnect`.
 *   The id is derived from source + provider account id, so reconnecting keeps the same id and its statements.
 * - statements/{accountId}_{month}: status `pending` | `ready` | `failed` (reason), files (ids into core/files.ts,
 *   listed with capability download links), `send` (per-month send state; null until statementsSend fills it).
 *
 * Syncing (every `<source>Sync` and the monthly automation use the same path):
 *   requestStatementSync() marks the statement `pending`, bumps its `gen` and enqueues one STATEMENT_SYNC_QUEUE task
 *   with id statementSync:{b}:{accountId}:{month}:{gen}. A request while one is pending returns it without queueing again.
 *   runStatementSync() (the task) fetches the files, stores them, then swaps them in and deletes the previous ones:
 *   a re-sync replaces files and never duplicates them; a task whose gen is stale throws its files away.
 *
 * Automation hook (issue 9): pass `runId` to requestStatementSync; when the task settles (ready or failed) it writes
 *   businesses/{b}/automationRuns/{runId}/statements/{accountId}_{month} = {accountId, month, status, reason, settledAt}.
 *   Issue 9 counts those docs against the accounts it fanned out to know when the run is complete.
 */
import { z } from 'zod';
import { id as idSchema, month as monthSchema } from '../../core/schema.ts';
import type { Services } from '../../core/context.ts';
import type { Caller, Ctx } from '../../core/context.ts';
import { ApiError, isApiError, notFound, precondition } from '../../core/errors.ts';
import { seal, unseal } from '../../core/secrets.ts';
import { iso } from '../../core/clock.ts';
import { sha256 } from '../../core/ids.ts';
import type { FileRef } from '../../core/files.ts';
import { deleteDocs } from '../../ports/store.ts';
import { closedMonth, closedMonths } from '../months.ts';
import { NeedsReconnect, NotYetAvailable, ProviderUnavailable, statementSource, type ConnectResult, type ProviderAccount, type SourceEnv, type StatementRow } from './statementSources.ts';

export const STATEMENT_SYNC_QUEUE = 'statementSync';
/** A transient failure is retried by the queue; after this many runs the statement is marked failed. */
export const MAX_SYNC_RUNS = 5;
/** A month whose data the provider does not have yet waits (pending, with the reason) at most this many times. */
export const MAX_SYNC_WAITS = 40;

export type AccountStatus = 'connected' | 'needs_reconnect';
export type StatementStatus = 'pending' | 'ready' | 'failed';

export interface ConnectionRecord {
  id: string;
  source: string;
  sealed: string;
  /** Non-secret facts about the connection (e.g. `sandbox`), safe to show. */
  meta: Record<string, string | boolean>;
  monthsWithActivity: string[];
  createdAt: string;
}

export interface AccountRecord {
  id: string;
  source: string;
  connectionId: string;
  providerAccountId: string;
  name: string;
  currency: string | null;
  status: AccountStatus;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface StatementFileEntry {
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
}

export interface StatementRecord {
  id: string;
  accountId: string;
  source: string;
  /** Copied so a statement kept after disconnect still says whose it was. */
  accountName: string;
  month: string;
  status: StatementStatus;
  reason: string | null;
  files: StatementFileEntry[];
  gen: number;
  runs: number;
  runId: string | null;
  /** Statements automation runs that asked for this month while it was already pending: they hear of its settling too. */
  waitingRuns?: string[];
  /** Per-month send state, filled by statementsSend and the statements automation; its status follows the outbox. */
  send: SendState | null;
  requestedAt: string;
  syncedAt: string | null;
  /** Sources that report transactions (market): the gen whose rows are current, and how many. */
  rowsGen?: number;
  rowCount?: number;
  /** How many times this gen waited for the provider's data (NotYetAvailable). */
  waits?: number;
}

/**
 * The month package's send: `sending` while a message is pending, `sent` once every recipient's was delivered,
 * `failed` (with the reason) as soon as one finally failed or could not be sent (docs/decisions.md).
 */
export type SendStatus = 'sending' | 'sent' | 'failed';
export interface SendState {
  status: SendStatus;
  reason: string | null;
  at: string;
  to: string[];
  messageIds: string[];
  zipFileId: string;
  accounts: string[];
  missing: string[];
  /** The final outcome of each message, by outbox id. */
  outcomes: Record<string, { to: string; status: 'delivered' | 'undelivered' | 'failed'; reason: string | null }>;
  runId?: string;
}

/** What a send shows: a send recorded before its status was tracked counts as sent. */
export function sendView(send: SendState) {
  const outcomes = Object.values(send.outcomes ?? {});
  return {
    status: send.status ?? 'sent',
    reason: send.reason ?? null,
    at: send.at,
    to: send.to,
    failed: outcomes.filter((o) => o.status !== 'delivered').map((o) => ({ to: o.to, reason: o.reason ?? o.status })),
    zipFileId: send.zipFileId,
    accounts: send.accounts,
    missing: send.missing,
    messageIds: send.messageIds ?? [],
    ...(send.runId ? { runId: send.runId } : {}),
  };
}

/** A stored transaction row of a statement (statementRows/{statementId}_{gen}_{n}); only rows of the statement's rowsGen count. */
export interface StatementRowRecord {
  statementId: string;
  gen: number;
  n: number;
  row: StatementRow;
}

export const connectionsPath = (b: string, id?: string) => `businesses/${b}/statementConnections${id ? `/${id}` : ''}`;
export const accountsPath = (b: string, id?: string) => `businesses/${b}/statementAccounts${id ? `/${id}` : ''}`;
export const statementsPath = (b: string, id?: string) => `businesses/${b}/statements${id ? `/${id}` : ''}`;
export const statementRowsPath = (b: string, id?: string) => `businesses/${b}/statementRows${id ? `/${id}` : ''}`;
export { automationRunStatementPath, statementId } from './statementIds.ts';
import { automationRunStatementPath, statementId } from './statementIds.ts';

export const statementAccountId = (source: string, providerAccountId: string) => `${source}_${sha256(`${source}\n${providerAccountId}`).slice(0, 20)}`;

export function sourceEnv(services: Services): SourceEnv {
  const now = services.clock.now();
  return { config: services.config, months: closedMonths(now), nowMs: now };
}

/** What ListAccounts shows. Never the credentials. */
export function accountView(a: AccountRecord) {
  return { id: a.id, source: a.source, name: a.name, currency: a.currency, status: a.status, reason: a.reason, connectedAt: a.createdAt };
}

/**
 * Connect: the adapter validates the credential first (a refusal stores nothing), then one connection and its
 * accounts are written in one batch. Returns the accounts and the months to pull.
 */
/** Asks the provider which accounts the credentials reach, storing nothing. */
export async function probeSource(ctx: Services, sourceName: string, credentials: Record<string, string>): Promise<ConnectResult> {
  const source = statementSource(sourceName);
  if (!source) throw new ApiError('unavailable', `statement source ${sourceName} is not available`, { reason: 'providerNotConfigured' });
  try {
    return await source.connect(credentials, sourceEnv(ctx));
  } catch (e) {
    if (!isApiError(e) && !(e instanceof NeedsReconnect) && !(e instanceof ProviderUnavailable)) ctx.logger.warn('statement source connect failed', { source: sourceName, error: String(e).slice(0, 300) });
    throw connectError(e);
  }
}

/** Connects the accounts the credentials reach; `probed` is a probeSource answer already in hand (a consent being confirmed). */
export async function connectSource(
  ctx: Services & { caller: Pick<Caller, 'businessId'> },
  sourceName: string,
  credentials: Record<string, string>,
  meta: Record<string, string | boolean> = {},
  probed?: ConnectResult,
) {
  const env = sourceEnv(ctx);
  const result = probed ?? (await probeSource(ctx, sourceName, credentials));
  const { businessId } = ctx.caller;
  const now = iso(ctx.clock.now());
  const sealed = seal(credentials, ctx.config.credentialsKey);
  const connectionId = ctx.ids();
  const months = result.monthsWithActivity.filter((m) => env.months.includes(m)).sort().reverse();
  const ids = result.accounts.map((a) => statementAccountId(sourceName, a.providerAccountId));
  const existing = ids.length ? await ctx.store.getAll(ids.map((id) => accountsPath(businessId, id))) : [];
  const batch = ctx.store.batch();
  batch.set(connectionsPath(businessId, connectionId), { id: connectionId, source: sourceName, sealed, meta, monthsWithActivity: months, createdAt: now } satisfies ConnectionRecord);
  const accounts = result.accounts.map((a, i) => {
    const prev = existing[i]?.data as unknown as AccountRecord | undefined;
    const rec: AccountRecord = {
      id: ids[i],
      source: sourceName,
      connectionId,
      providerAccountId: a.providerAccountId,
      name: a.name,
      currency: a.currency ?? null,
      status: 'connected',
      reason: null,
      createdAt: prev?.createdAt ?? now,
      updatedAt: now,
    };
    batch.set(accountsPath(businessId, rec.id), { ...rec });
    return rec;
  });
  await batch.commit();
  await dropEmptyConnections(ctx, businessId, sourceName);
  return { accounts: accounts.map(accountView), months };
}

/** A provider's refusal keeps its own code and words; only unreachable/5xx/timeouts are `unavailable` (issue 18 A3). */
function connectError(e: unknown): ApiError {
  if (isApiError(e)) return e;
  if (e instanceof NeedsReconnect) return precondition(`the provider refused the credential: ${e.message}`, { reason: 'needsReconnect' });
  if (e instanceof ProviderUnavailable) return new ApiError('unavailable', `${e.message.slice(0, 200)}; nothing was stored, try again later`, { reason: 'sourceDown' });
  // Anything else is an answer we could not read; its internal text stays in the log.
  return new ApiError('unavailable', 'the provider gave an answer that could not be read; nothing was stored, try again later', { reason: 'sourceBadAnswer' });
}

/** The text a failed sync shows: the provider's (ProviderUnavailable) words, never an internal error's. */
const transientReason = (e: unknown) => (e instanceof ProviderUnavailable ? e.message.slice(0, 300) : 'the provider gave an answer that could not be read');

/** Connections whose accounts all moved to a newer connection (a reconnect) hold credentials nobody uses: forget them. */
async function dropEmptyConnections(ctx: Services, businessId: string, source: string) {
  const conns = (await ctx.store.query({ collection: connectionsPath(businessId), where: [['source', '==', source]] })).map((d) => d.data as unknown as ConnectionRecord);
  const accounts = await listAccountRecords(ctx, businessId, source);
  const used = new Set(accounts.map((a) => a.connectionId));
  for (const c of conns) if (!used.has(c.id)) await ctx.store.delete(connectionsPath(businessId, c.id));
}

export async function listAccountRecords(services: Services, businessId: string, source: string): Promise<AccountRecord[]> {
  const docs = await services.store.query({ collection: accountsPath(businessId), where: [['source', '==', source]] });
  return docs.map((d) => d.data as unknown as AccountRecord).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

export async function listAccounts(ctx: Ctx, source: string) {
  return { accounts: (await listAccountRecords(ctx, ctx.caller.businessId, source)).map(accountView) };
}

async function readAccount(services: Services, businessId: string, source: string, accountId: string): Promise<AccountRecord> {
  const doc = accountId.includes('/') ? null : await services.store.get(accountsPath(businessId, accountId));
  const rec = doc?.data as unknown as AccountRecord | undefined;
  if (!rec || rec.source !== source) throw notFound(`accountId: ${source} account ${accountId}`, 'account');
  return rec;
}

/**
 * Disconnect: forgets the account's connection (the sealed credentials) and every account it holds.
 * Stored statements are kept (docs/decisions.md): they are the business's records; statementDelete removes them.
 */
export async function disconnectSource(ctx: Ctx, source: string, accountId: string) {
  const { businessId } = ctx.caller;
  const account = await readAccount(ctx, businessId, source, accountId);
  const siblings = (await listAccountRecords(ctx, businessId, source)).filter((a) => a.connectionId === account.connectionId);
  const batch = ctx.store.batch();
  for (const a of siblings) batch.delete(accountsPath(businessId, a.id));
  batch.delete(connectionsPath(businessId, account.connectionId));
  await batch.commit();
  return { removedAccountIds: siblings.map((a) => a.id) };
}

/** Public shape of a statement, with download links. */
export async function statementView(services: Services, businessId: string, s: StatementRecord) {
  const refs = await Promise.all(s.files.map((f) => services.files.ref(businessId, f.fileId)));
  return {
    id: s.id,
    accountId: s.accountId,
    source: s.source,
    accountName: s.accountName,
    month: s.month,
    status: s.status,
    reason: s.reason,
    files: refs.filter((r): r is FileRef => r !== null),
    send: s.send ? sendView(s.send) : null,
    requestedAt: s.requestedAt,
    syncedAt: s.syncedAt,
  };
}

/**
 * Marks account+month `pending` and queues its sync (idempotent while pending). Used by `<source>Sync` and by the
 * statements automation (pass runId). Validates month (strict, closed) and that the account is the business's.
 */
export async function requestStatementSync(
  services: Services,
  businessId: string,
  source: string,
  accountId: string,
  month: string,
  opts: { runId?: string } = {},
) {
  closedMonth(month, services.clock.now());
  const account = await readAccount(services, businessId, source, accountId);
  if (account.status === 'needs_reconnect') throw precondition(`accountId: the ${source} connection needs to be reconnected (${account.reason ?? 'credential expired or revoked'}); connect again, then sync`, { reason: 'needsReconnect' });
  const id = statementId(accountId, month);
  const now = iso(services.clock.now());
  const { record, queue } = await services.store.runTransaction(async (tx) => {
    const prev = (await tx.get(statementsPath(businessId, id)))?.data as unknown as StatementRecord | undefined;
    if (prev?.status === 'pending') {
      // The sync already under way settles this run's account too.
      if (opts.runId && prev.runId !== opts.runId && !prev.waitingRuns?.includes(opts.runId)) tx.update(statementsPath(businessId, id), { waitingRuns: [...(prev.waitingRuns ?? []), opts.runId] });
      return { record: prev, queue: false };
    }
    const rec: StatementRecord = {
      id,
      accountId,
      source,
      accountName: account.name,
      month,
      status: 'pending',
      reason: null,
      files: prev?.files ?? [],
      gen: (prev?.gen ?? 0) + 1,
      runs: 0,
      runId: opts.runId ?? null,
      send: prev?.send ?? null,
      requestedAt: now,
      syncedAt: prev?.syncedAt ?? null,
    };
    tx.set(statementsPath(businessId, id), { ...rec });
    return { record: rec, queue: true };
  });
  if (queue) {
    await services.tasks.enqueue(
      STATEMENT_SYNC_QUEUE,
      { businessId, accountId, month, gen: record.gen, ...(opts.runId && { runId: opts.runId }) },
      { id: `statementSync:${businessId}:${accountId}:${month}:${record.gen}` },
    );
  }
  return statementView(services, businessId, record);
}

/**
 * Fan-in: the statements automation runs waiting for this statement (the one that asked for the sync, and those that
 * asked while it was pending) hear that it settled; the run whose last account this is completes at once
 * (domain/automations.ts, loaded only when a run waits).
 */
async function notifyRuns(services: Services, businessId: string, st: StatementRecord, status: 'ready' | 'failed', reason: string | null, runId: string | null) {
  const runs = [...new Set([runId, st.runId, ...(st.waitingRuns ?? [])].filter((r): r is string => Boolean(r)))];
  if (!runs.length) return;
  const { accountSettled } = await import('../automations/runSettlement.ts');
  for (const r of runs) await accountSettled(services, businessId, r, st.accountId, st.month, { status, reason });
}

/** The STATEMENT_SYNC_QUEUE task. Settles the statement `ready` or `failed`; throws only to retry a transient failure. */
export async function runStatementSync(services: Services, payload: Record<string, unknown>): Promise<void> {
  const businessId = String(payload.businessId);
  const accountId = String(payload.accountId);
  const month = String(payload.month);
  const gen = Number(payload.gen);
  const runId = typeof payload.runId === 'string' ? payload.runId : null;
  const path = statementsPath(businessId, statementId(accountId, month));
  const current = (await services.store.get(path))?.data as unknown as StatementRecord | undefined;
  if (current && current.gen === gen && current.status !== 'pending') {
    // Settled by an earlier delivery of this task that stopped before telling its runs: tell them (it is idempotent).
    return notifyRuns(services, businessId, current, current.status as 'ready' | 'failed', current.reason, runId);
  }
  if (!current || current.gen !== gen || current.status !== 'pending') return; // deleted or superseded

  const settle = async (status: 'ready' | 'failed', reason: string | null, files?: StatementFileEntry[], rowCount?: number) => {
    const now = iso(services.clock.now());
    const rows = rowCount !== undefined ? { rowsGen: gen, rowCount } : {};
    const settled = await services.store.runTransaction(async (tx) => {
      const s = (await tx.get(path))?.data as unknown as StatementRecord | undefined;
      if (!s || s.gen !== gen) return null;
      tx.update(path, { status, reason, ...(files && { files, syncedAt: now, ...rows }) });
      return s;
    });
    const old = settled?.files ?? null;
    if (old === null) {
      // Superseded or deleted meanwhile: the files and rows this run stored belong to nobody.
      for (const f of files ?? []) await services.files.remove(businessId, f.fileId);
      if (rowCount !== undefined) await deleteStatementRows(services, businessId, statementId(accountId, month), gen);
      return;
    }
    if (files) {
      const kept = new Set(files.map((f) => f.fileId));
      for (const f of old) if (!kept.has(f.fileId)) await services.files.remove(businessId, f.fileId);
      if (rowCount !== undefined) await deleteStatementRows(services, businessId, statementId(accountId, month), undefined, gen);
    }
    if (runId) {
      await services.store.set(automationRunStatementPath(businessId, runId, statementId(accountId, month)), { accountId, month, status, reason, settledAt: now });
    }
    await notifyRuns(services, businessId, settled!, status, reason, runId);
  };

  const accountDoc = await services.store.get(accountsPath(businessId, accountId));
  const account = accountDoc?.data as unknown as AccountRecord | undefined;
  if (!account) return settle('failed', 'the account was disconnected');
  const source = statementSource(account.source);
  if (!source) return settle('failed', `statement source ${account.source} is not available`);
  const conn = (await services.store.get(connectionsPath(businessId, account.connectionId)))?.data as unknown as ConnectionRecord | undefined;
  if (!conn) return settle('failed', 'the account was disconnected');

  await services.store.update(path, { runs: (current.runs ?? 0) + 1 });
  let fetched;
  try {
    const credentials = unseal(conn.sealed, services.config.credentialsKey);
    const provider: ProviderAccount = { providerAccountId: account.providerAccountId, name: account.name, ...(account.currency && { currency: account.currency }) };
    const connPath = connectionsPath(businessId, conn.id);
    const saveCredentials = async (renewed: Record<string, string>) => {
      await services.store.update(connPath, { sealed: seal(renewed, services.config.credentialsKey) }).catch(async (e) => {
        if (await services.store.get(connPath)) throw e; // else a reconnect replaced the connection: nobody uses these
      });
    };
    const loadCredentials = async () => {
      const c = (await services.store.get(connPath))?.data as unknown as ConnectionRecord | undefined;
      return c ? unseal(c.sealed, services.config.credentialsKey) : null;
    };
    fetched = await source.sync(credentials, provider, month, { ...sourceEnv(services), saveCredentials, loadCredentials });
  } catch (e) {
    if (e instanceof NeedsReconnect) {
      await markNeedsReconnect(services, businessId, account, e.message);
      return settle('failed', `needs reconnect: ${e.message}`);
    }
    if (isApiError(e)) return settle('failed', e.message);
    if (e instanceof NotYetAvailable) {
      if ((current.waits ?? 0) >= MAX_SYNC_WAITS) return settle('failed', `the provider still does not have this month's data: ${e.message}`);
      return waitForProvider(services, payload, current, e);
    }
    if (!(e instanceof ProviderUnavailable)) services.logger.warn('statement sync failed', { source: account.source, error: String(e).slice(0, 300) });
    if ((current.runs ?? 0) + 1 >= MAX_SYNC_RUNS) return settle('failed', `the provider kept failing: ${transientReason(e)}`);
    throw e;
  }
  const result = Array.isArray(fetched) ? { files: fetched } : fetched;
  const stored: StatementFileEntry[] = [];
  for (const f of result.files) {
    const ref = await services.files.save(businessId, f);
    stored.push({ fileId: ref.fileId, fileName: ref.fileName, contentType: ref.contentType, size: ref.size });
  }
  if (result.rows) await writeStatementRows(services, businessId, statementId(accountId, month), gen, result.rows);
  await settle('ready', result.note ? result.note.slice(0, 500) : null, stored, result.rows?.length);
}

/**
 * The provider does not have the month's data yet: the statement stays `pending` with the reason, this run does not
 * count against MAX_SYNC_RUNS, and the same gen is queued again after the provider's wait.
 */
async function waitForProvider(services: Services, payload: Record<string, unknown>, current: StatementRecord, e: NotYetAvailable) {
  const businessId = String(payload.businessId);
  const path = statementsPath(businessId, current.id);
  const waits = (current.waits ?? 0) + 1;
  const still = await services.store.runTransaction(async (tx) => {
    const s = (await tx.get(path))?.data as unknown as StatementRecord | undefined;
    if (!s || s.gen !== current.gen || s.status !== 'pending') return false;
    tx.update(path, { reason: e.message.slice(0, 500), runs: current.runs ?? 0, waits });
    return true;
  });
  if (!still) return;
  await services.tasks.enqueue(STATEMENT_SYNC_QUEUE, payload, {
    id: `statementSync:${businessId}:${current.accountId}:${current.month}:${current.gen}:w${waits}`,
    delaySeconds: Math.max(60, Math.min(e.retryAfterSec, 86_400)),
  });
}

/** Writes a sync's rows under its gen; they count once settle points the statement's rowsGen at them. */
async function writeStatementRows(services: Services, businessId: string, sid: string, gen: number, rows: StatementRow[]) {
  for (let i = 0; i < rows.length; i += 400) {
    const batch = services.store.batch();
    rows.slice(i, i + 400).forEach((row, j) => {
      const n = i + j;
      batch.set(statementRowsPath(businessId, `${sid}_${gen}_${String(n).padStart(6, '0')}`), { statementId: sid, gen, n, row } satisfies StatementRowRecord);
    });
    await batch.commit();
  }
}

/** Deletes a statement's rows: of one gen (`only`), of every gen but one (`except`), or all. */
export async function deleteStatementRows(services: Services, businessId: string, sid: string, only?: number, except?: number) {
  const docs = await services.store.query({ collection: statementRowsPath(businessId), where: [['statementId', '==', sid]] });
  const doomed = docs.filter((d) => (only === undefined || d.data.gen === only) && (except === undefined || d.data.gen !== except));
  await deleteDocs(services.store, doomed.map((d) => d.path));
}

/** The current rows of a statement, in the provider's order. */
export async function readStatementRows(services: Services, businessId: string, s: StatementRecord): Promise<StatementRow[]> {
  if (s.rowsGen === undefined) return [];
  const docs = await services.store.query({ collection: statementRowsPath(businessId), where: [['statementId', '==', s.id]] });
  return docs
    .map((d) => d.data as unknown as StatementRowRecord)
    .filter((r) => r.gen === s.rowsGen)
    .sort((a, b) => a.n - b.n)
    .map((r) => r.row);
}

async function markNeedsReconnect(services: Services, businessId: string, account: AccountRecord, reason: string) {
  const siblings = (await listAccountRecords(services, businessId, account.source)).filter((a) => a.connectionId === account.connectionId);
  const batch = services.store.batch();
  const now = iso(services.clock.now());
  for (const a of siblings) batch.update(accountsPath(businessId, a.id), { status: 'needs_reconnect', reason: reason.slice(0, 300), updatedAt: now });
  await batch.commit();
}

export async function listStatements(services: Services, businessId: string) {
  const docs = await services.store.query({ collection: statementsPath(businessId) });
  const recs = docs.map((d) => d.data as unknown as StatementRecord).sort((a, b) => b.month.localeCompare(a.month) || a.accountName.localeCompare(b.accountName));
  return Promise.all(recs.map((s) => statementView(services, businessId, s)));
}

/** Deletes a statement and its files. A sync still running for it finds it gone and discards what it fetched. */
export async function deleteStatement(services: Services, businessId: string, id: string) {
  const path = id.includes('/') ? null : statementsPath(businessId, id);
  const rec = path ? ((await services.store.get(path))?.data as unknown as StatementRecord | undefined) : undefined;
  if (!path || !rec) throw notFound(`id: statement ${id}`, 'statement');
  await services.store.delete(path);
  for (const f of rec.files) await services.files.remove(businessId, f.fileId);
  if (rec.rowsGen !== undefined) await deleteStatementRows(services, businessId, id);
  return { id, deleted: true };
}

// Output schemas shared by the statement operations.

export const fileOutput = z.object({ fileId: z.string(), fileName: z.string(), contentType: z.string(), size: z.int(), url: z.string() });
export const sendOutput = z
  .object({
    status: z.enum(['sending', 'sent', 'failed']).describe('sending until every message is final; sent once all were delivered; failed when one was not.'),
    reason: z.string().nullable().describe('Why the send failed, naming the recipients; null otherwise.'),
    at: z.string(),
    to: z.array(z.string()),
    failed: z.array(z.object({ to: z.string(), reason: z.string() })).describe('Recipients whose message finally failed or could not be sent.'),
    zipFileId: z.string(),
    accounts: z.array(z.string()),
    missing: z.array(z.string()),
    messageIds: z.array(z.string()),
    runId: z.string().optional(),
  })
  .describe("The month's last package send, as the outbox delivered it.");
export const statementOutput = z.object({
  id: z.string(),
  accountId: z.string(),
  source: z.string(),
  accountName: z.string(),
  month: z.string(),
  status: z.enum(['pending', 'ready', 'failed']),
  reason: z.string().nullable(),
  files: z.array(fileOutput),
  send: sendOutput.nullable(),
  requestedAt: z.string(),
  syncedAt: z.string().nullable(),
});
export const accountOutput = z.object({
  id: z.string(),
  source: z.string(),
  name: z.string(),
  currency: z.string().nullable(),
  status: z.enum(['connected', 'needs_reconnect']),
  reason: z.string().nullable(),
  connectedAt: z.string(),
});
export const connectOutput = z.object({ accounts: z.array(accountOutput), months: z.array(z.string()) });
export const listAccountsOutput = z.object({ accounts: z.array(accountOutput) });
export const disconnectOutput = z.object({ removedAccountIds: z.array(z.string()) });
export const syncInput = {
  accountId: () => idSchema().describe('Statement account id, from the source\'s ListAccounts.'),
  month: () => monthSchema().describe('Closed month to sync, YYYY-MM (Israel time); syncing again replaces its files.'),
};
