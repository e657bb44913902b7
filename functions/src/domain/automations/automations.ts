/**
 * Automations (issue 9): the system statements automation and mailbox automations.
 *
 * Records (under businesses/{b}/):
 * - automations/{id}: `system_statements` (the statements automation: one per business, written on first change or
 *   first run, never deleted; until then its defaults stand) or a random id for a `mailbox_invoices` automation,
 *   whose `config.accountId` names the mailbox (mailboxDisconnect removes them with it).
 * - automationRuns/{runId}: one per run, {automationId, trigger, status, accounts, mailed | import ...}; the last
 *   MAX_RUNS per automation are kept. A statements run's syncs write automationRuns/{runId}/statements/{statementId}
 *   when they settle (domain/statements/statements.ts).
 *
 * Statements run: startStatementsRun requests one sync per statement account (requestStatementSync with the run id,
 *   each one a STATEMENT_SYNC_QUEUE task). Fan-in (issue 18): each sync, as it settles, records its account on the run
 *   (accountSettled in runSettlement.ts, one transaction on the run record); the one that settles the last account
 *   flips `completing` and queues the completion step (a STATEMENTS_CHECK_QUEUE task) at once, which mails the package
 *   (through the outbox) once. One more check waits for the deadline (RUN_DEADLINE_MS), the safety net for syncs that
 *   never settle. A "run now" while the month's run still pulls joins it, adding the accounts connected since.
 *   The schedule (2nd of the month, Israel) enqueues one STATEMENTS_RUN_QUEUE task per business; its run id is derived
 *   from the month, so a second firing fans out nothing.
 * Mailbox automation: a MAILBOX_POLL_QUEUE task per enabled automation every POLL_EVERY_MINUTES reads the mailbox's
 *   history since the stored cursor (the first poll only records the cursor) and feeds the new message ids to the
 *   import path of domain/mail/mailImport.ts (an import record and its batches).
 *
 * This file holds the records, their changes and the runs' bookkeeping; the statements run is in statementsRun.ts
 * and the mailbox polls in mailboxPoll.ts.
 */
import { z } from 'zod';
import type { Services } from '../../core/context.ts';
import { ApiError, notFound, precondition } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { deleteDocs } from '../../ports/store.ts';
import { runsPath, STATEMENTS_CHECK_QUEUE } from './runSettlement.ts';

export { runsPath, STATEMENTS_CHECK_QUEUE, accountSettled } from './runSettlement.ts';
import { requestStatementSync, statementId } from '../statements/statements.ts';
import { automationsPath, getMailbox, withMailbox } from '../mail/mailboxes.ts';
import { importsPath, type ImportRecord } from '../mail/mailImport.ts';

export const SYSTEM_STATEMENTS_ID = 'system_statements';
export const STATEMENTS_RUN_QUEUE = 'automationStatementsRun';
export const MAILBOX_POLL_QUEUE = 'automationMailboxPoll';
/** Runs kept per automation (spec §8). */
export const MAX_RUNS = 30;
/** Mailbox automations one business may have. */
export const MAX_AUTOMATIONS = 50;
/** How long a statements run waits for its syncs at most (the safety net's check runs then). */
export const RUN_DEADLINE_MS = 2 * 3_600_000;
export const POLL_EVERY_MINUTES = 10;

export const automationPath = (b: string, id: string) => `${automationsPath(b)}/${id}`;

export type AutomationType = 'statements' | 'mailbox_invoices';
export type RunStatus = 'running' | 'done' | 'failed';
export type Trigger = 'schedule' | 'manual';

export interface StatementsConfig {
  recipients: string[];
  onlyWhenComplete: boolean;
  /** The month package also links the accountant's ZIP of that month (buildAccZip over the whole accountant tree). Absent on older records: false. */
  includeAccountantZip: boolean;
}

/** The accountant's ZIP a statements run linked in its mail (issue 19). */
export interface RunAccountantZip {
  fileId: string;
  fileName: string;
  url: string;
  expiresAt: string;
  size: number;
  entries: number;
  missing: number;
}
export interface MailboxConfig {
  accountId: string;
  labelId: string | null;
  labelName: string;
}

export interface LastRun {
  runId: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  summary: string;
}

export interface AutomationRecord {
  id: string;
  businessId: string;
  type: AutomationType;
  system: boolean;
  name: string;
  enabled: boolean;
  config: StatementsConfig | MailboxConfig;
  lastRun: LastRun | null;
  /** Mailbox automations: the Gmail history id read up to (null: the next poll records the current one). */
  cursor: { historyId: string; at: string } | null;
  lastPolledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RunAccount {
  accountId: string;
  name: string;
  status: 'pending' | 'ready' | 'failed';
  reason: string | null;
}

export interface RunRecord {
  runId: string;
  automationId: string;
  businessId: string;
  trigger: Trigger;
  status: RunStatus;
  summary: string;
  startedAt: string;
  startedAtMs: number;
  finishedAt: string | null;
  /** Statements runs. */
  month: string | null;
  accounts: RunAccount[];
  fannedOut: boolean;
  /** Set (once) by the transaction that saw the last account settle: the completion step is queued. */
  completing?: boolean;
  deadlineAtMs: number;
  /** status/reason/outcomes follow the outbox (domain/accountant/monthPackage.ts settleSend); absent until a message settled. */
  mailed: { to: string[]; at: string; messageIds: string[]; missing: string[]; accountantZip?: RunAccountantZip | null; status?: 'sending' | 'sent' | 'failed'; reason?: string | null; outcomes?: Record<string, { to: string; status: 'delivered' | 'undelivered' | 'failed'; reason: string | null }> } | null;
  /** Mailbox polls: the import fed with the new mails. */
  importId: string | null;
  found: number;
  /** A finished statements run that mailed nothing: why (absent on runs before it was kept). */
  notMailed?: 'noRecipients' | 'incomplete';
}

export const RUN_OUTCOMES = ['statementsRunning', 'statementsMailed', 'statementsNotMailed', 'statementsFailed', 'pollRunning', 'pollFailed', 'pollImported', 'pollNothingNew'] as const;

/**
 * The run in words the dashboard translates: an outcome and its params (a month, counts, account names), read from
 * the run's own fields, so runs written before outcomes existed get them too.
 */
export function runOutcome(r: RunRecord): { outcome: (typeof RUN_OUTCOMES)[number]; params: Record<string, string | number | null> } {
  if (r.month) {
    const failed = r.accounts.filter((a) => a.status === 'failed');
    const base = { month: r.month, synced: r.accounts.filter((a) => a.status === 'ready').length, total: r.accounts.length, failed: failed.map((a) => a.name).join(', ') || null };
    if (r.status === 'running') return { outcome: 'statementsRunning', params: base };
    if (r.status === 'failed') return { outcome: 'statementsFailed', params: base };
    if (r.mailed) return { outcome: 'statementsMailed', params: { ...base, recipients: r.mailed.to.length, missing: r.mailed.missing.length } };
    return { outcome: 'statementsNotMailed', params: { ...base, why: r.notMailed ?? null } };
  }
  if (r.status === 'running') return { outcome: 'pollRunning', params: {} };
  if (r.status === 'failed') return { outcome: 'pollFailed', params: {} };
  return r.importId ? { outcome: 'pollImported', params: { found: r.found } } : { outcome: 'pollNothingNew', params: {} };
}

export const nowIso = (s: Services) => iso(s.clock.now());

function defaultSystem(businessId: string, at: string): AutomationRecord {
  return {
    id: SYSTEM_STATEMENTS_ID,
    businessId,
    type: 'statements',
    system: true,
    name: 'Monthly statements',
    enabled: true,
    config: { recipients: [], onlyWhenComplete: false, includeAccountantZip: false },
    lastRun: null,
    cursor: null,
    lastPolledAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

/** An automation of the business, the statements automation with its defaults when never written. */
export async function readAutomation(s: Services, businessId: string, id: string): Promise<AutomationRecord> {
  const doc = /^[A-Za-z0-9_-]{1,60}$/.test(id) ? await s.store.get(automationPath(businessId, id)) : null;
  if (doc) return doc.data as unknown as AutomationRecord;
  if (id === SYSTEM_STATEMENTS_ID) return defaultSystem(businessId, nowIso(s));
  throw notFound(`id: automation ${id}`, 'automation');
}

/** The statements automation, written with its defaults the first time it is used. */
export async function ensureSystemAutomation(s: Services, businessId: string): Promise<AutomationRecord> {
  const path = automationPath(businessId, SYSTEM_STATEMENTS_ID);
  return s.store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    if (doc) return doc.data as unknown as AutomationRecord;
    const rec = defaultSystem(businessId, nowIso(s));
    tx.create(path, { ...rec });
    return rec;
  });
}

/** The statements automation's config with its defaults filled in (records written before a setting existed lack it). */
export function statementsConfig(c: Partial<StatementsConfig>): StatementsConfig {
  return { recipients: c.recipients ?? [], onlyWhenComplete: c.onlyWhenComplete ?? false, includeAccountantZip: c.includeAccountantZip ?? false };
}

export function automationView(a: AutomationRecord) {
  return {
    id: a.id,
    type: a.type,
    system: a.system,
    name: a.name,
    enabled: a.enabled,
    config: a.type === 'statements' ? statementsConfig(a.config as StatementsConfig) : a.config,
    lastRun: a.lastRun,
    lastPolledAt: a.lastPolledAt ?? null,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

export async function listAutomations(s: Services, businessId: string) {
  const docs = await s.store.query({ collection: automationsPath(businessId), limit: MAX_AUTOMATIONS + 10 });
  const recs = docs.map((d) => d.data as unknown as AutomationRecord);
  const system = recs.find((r) => r.id === SYSTEM_STATEMENTS_ID) ?? defaultSystem(businessId, nowIso(s));
  const others = recs.filter((r) => r.id !== SYSTEM_STATEMENTS_ID).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return [system, ...others].map(automationView);
}

// ---------------------------------------------------------------------------------------------
// Create, update, delete

export async function createMailboxAutomation(s: Services, businessId: string, input: { accountId: string; labelId: string | null; labelName?: string; name?: string }) {
  const mailbox = await getMailbox(s.store, businessId, input.accountId, 'config.accountId');
  const existing = (await s.store.query({ collection: automationsPath(businessId), where: [['config.accountId', '==', mailbox.accountId]] })).map((d) => d.data as unknown as AutomationRecord);
  const same = existing.find((a) => (a.config as MailboxConfig).labelId === input.labelId);
  if (same) throw new ApiError('already-exists', `config: automation ${same.id} already watches this mailbox${input.labelId ? ' label' : ''}`, { reason: 'automationExists' });
  if ((await s.store.count({ collection: automationsPath(businessId) })) >= MAX_AUTOMATIONS + 1) throw precondition(`a business may have at most ${MAX_AUTOMATIONS} mailbox automations; delete one first`, { reason: 'tooManyAutomations', params: { max: MAX_AUTOMATIONS } });
  // The mailbox is asked now: the label must exist, and the history cursor starts here (nothing older is imported).
  const { labelName, historyId } = await withMailbox(s, businessId, mailbox.accountId, async (session) => {
    let name = input.labelName ?? '';
    if (input.labelId) {
      const label = (await session.listLabels()).find((l) => l.id === input.labelId);
      if (!label) throw notFound(`config.labelId: label ${input.labelId} in mailbox ${mailbox.email}`, 'label');
      name = label.name;
    }
    return { labelName: name, historyId: await session.historyId() };
  });
  const at = nowIso(s);
  const rec: AutomationRecord = {
    id: s.ids(),
    businessId,
    type: 'mailbox_invoices',
    system: false,
    name: input.name || `Invoices from ${mailbox.email}${labelName ? ` (${labelName})` : ''}`.slice(0, 100),
    enabled: true,
    config: { accountId: mailbox.accountId, labelId: input.labelId, labelName },
    lastRun: null,
    cursor: historyId ? { historyId, at } : null,
    lastPolledAt: null,
    createdAt: at,
    updatedAt: at,
  };
  await s.store.create(automationPath(businessId, rec.id), { ...rec });
  return automationView(rec);
}

export async function updateAutomation(s: Services, businessId: string, id: string, patch: { enabled?: boolean; name?: string; config?: Partial<StatementsConfig> }) {
  const current = await readAutomation(s, businessId, id);
  if (patch.config && current.type !== 'statements') throw new ApiError('invalid-argument', 'config: recipients, onlyWhenComplete and includeAccountantZip apply to the statements automation only', { reason: 'statementsOnly' });
  if (current.system) await ensureSystemAutomation(s, businessId);
  const path = automationPath(businessId, id);
  return s.store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    if (!doc) throw notFound(`id: automation ${id}`, 'automation');
    const a = doc.data as unknown as AutomationRecord;
    const next: AutomationRecord = { ...a, updatedAt: nowIso(s) };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.enabled !== undefined) {
      // A mailbox automation resumed watches from now on: what arrived while paused is not imported.
      if (patch.enabled && !a.enabled && a.type === 'mailbox_invoices') next.cursor = null;
      next.enabled = patch.enabled;
    }
    if (patch.config) {
      const c = statementsConfig(a.config as StatementsConfig);
      next.config = {
        recipients: patch.config.recipients ? [...new Set(patch.config.recipients)] : c.recipients,
        onlyWhenComplete: patch.config.onlyWhenComplete ?? c.onlyWhenComplete,
        includeAccountantZip: patch.config.includeAccountantZip ?? c.includeAccountantZip,
      };
    }
    tx.set(path, { ...next });
    return automationView(next);
  });
}

export async function deleteAutomation(s: Services, businessId: string, id: string) {
  if (id === SYSTEM_STATEMENTS_ID) throw precondition('id: the statements automation cannot be deleted; pause it instead (automationUpdate with enabled: false)', { reason: 'cannotDeleteStatementsAutomation' });
  await readAutomation(s, businessId, id);
  const runs = await s.store.query({ collection: runsPath(businessId), where: [['automationId', '==', id]] });
  await deleteDocs(s.store, [...runs.map((r) => r.path), automationPath(businessId, id)]);
  return { id, deleted: true as const, runsRemoved: runs.length };
}

// ---------------------------------------------------------------------------------------------
// Runs

export async function runView(s: Services, r: RunRecord) {
  let imp: ImportRecord | null = null;
  if (r.importId) imp = ((await s.store.get(importsPath(r.businessId, r.importId)))?.data as unknown as ImportRecord | undefined) ?? null;
  return {
    runId: r.runId,
    automationId: r.automationId,
    trigger: r.trigger,
    status: r.status,
    summary: r.summary,
    ...runOutcome(r),
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    month: r.month,
    accounts: r.accounts,
    mailed: r.mailed ? { to: r.mailed.to, at: r.mailed.at, messageIds: r.mailed.messageIds, missing: r.mailed.missing, accountantZip: r.mailed.accountantZip ?? null, status: r.mailed.status ?? 'sending', reason: r.mailed.reason ?? null } : null,
    import: r.importId
      ? { importId: r.importId, found: r.found, status: imp?.status ?? 'running', seen: imp?.seen ?? 0, invoices: imp?.invoices ?? 0, duplicates: imp?.duplicates ?? 0, errors: imp?.errors ?? 0 }
      : null,
  };
}

export async function listRuns(s: Services, businessId: string, id: string) {
  await readAutomation(s, businessId, id);
  const docs = await s.store.query({ collection: runsPath(businessId), where: [['automationId', '==', id]], orderBy: [['startedAtMs', 'desc']], limit: MAX_RUNS });
  return Promise.all(docs.map((d) => runView(s, d.data as unknown as RunRecord)));
}

export const lastRunOf = (r: RunRecord): LastRun => ({ runId: r.runId, status: r.status, startedAt: r.startedAt, finishedAt: r.finishedAt, summary: r.summary });

export async function setLastRun(s: Services, r: RunRecord) {
  await s.store.update(automationPath(r.businessId, r.automationId), { lastRun: lastRunOf(r) }).catch(() => undefined);
}

/** Keeps the newest MAX_RUNS runs of the automation; older ones go with their settlement records. */
export async function pruneRuns(s: Services, businessId: string, automationId: string) {
  const old = await s.store.query({ collection: runsPath(businessId), where: [['automationId', '==', automationId]], orderBy: [['startedAtMs', 'desc']], offset: MAX_RUNS, limit: 100 });
  for (const r of old) {
    const settled = await s.store.query({ collection: `${r.path}/statements`, limit: 450 });
    const batch = s.store.batch();
    for (const d of settled) batch.delete(d.path);
    batch.delete(r.path);
    await batch.commit();
  }
}

/** Stores a finished run and keeps only the newest MAX_RUNS of its automation. */
export async function recordRun(s: Services, run: RunRecord) {
  await s.store.set(runsPath(run.businessId, run.runId), { ...run });
  await pruneRuns(s, run.businessId, run.automationId);
}

export function newRun(s: Services, fields: Pick<RunRecord, 'runId' | 'automationId' | 'businessId' | 'trigger' | 'summary'> & Partial<RunRecord>): RunRecord {
  const now = s.clock.now();
  return {
    status: 'running',
    startedAt: iso(now),
    startedAtMs: now,
    finishedAt: null,
    month: null,
    accounts: [],
    fannedOut: false,
    deadlineAtMs: now + RUN_DEADLINE_MS,
    mailed: null,
    importId: null,
    found: 0,
    ...fields,
  };
}

// Output schemas shared by the automation operations.

const lastRunOutput = z.object({ runId: z.string(), status: z.enum(['running', 'done', 'failed']), startedAt: z.string(), finishedAt: z.string().nullable(), summary: z.string() });
export const automationOutput = z.object({
  id: z.string(),
  type: z.enum(['statements', 'mailbox_invoices']),
  system: z.boolean(),
  name: z.string(),
  enabled: z.boolean(),
  config: z.union([
    z.object({
      recipients: z.array(z.string()),
      onlyWhenComplete: z.boolean(),
      includeAccountantZip: z.boolean().describe("true: the month package also links the accountant's ZIP of the month."),
    }),
    z.object({ accountId: z.string(), labelId: z.string().nullable(), labelName: z.string() }),
  ]),
  lastRun: lastRunOutput.nullable(),
  lastPolledAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const runOutput = z.object({
  runId: z.string(),
  automationId: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  status: z.enum(['running', 'done', 'failed']),
  summary: z.string(),
  outcome: z.enum(RUN_OUTCOMES),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).describe('month, synced, total, failed, recipients, missing, why, found.'),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  month: z.string().nullable(),
  accounts: z.array(z.object({ accountId: z.string(), name: z.string(), status: z.enum(['pending', 'ready', 'failed']), reason: z.string().nullable() })),
  mailed: z
    .object({
      to: z.array(z.string()),
      at: z.string(),
      messageIds: z.array(z.string()),
      missing: z.array(z.string()),
      accountantZip: z
        .object({
          fileId: z.string(),
          fileName: z.string(),
          url: z.string().describe('Capability link to the ZIP; works until expiresAt.'),
          expiresAt: z.string().describe('When the link stops working and the ZIP is deleted (ISO 8601).'),
          size: z.int().describe('Bytes.'),
          entries: z.int().describe('Files in the ZIP.'),
          missing: z.int().describe('Files that could not be read and are not in it.'),
        })
        .nullable()
        .describe("The month's accountant ZIP the mail linked (includeAccountantZip); null otherwise."),
      status: z.enum(['sending', 'sent', 'failed']).describe('sending until every message is final; sent once all were delivered; failed when one was not.'),
      reason: z.string().nullable().describe('Why the mailing failed, naming the recipients; null otherwise.'),
    })
    .nullable(),
  import: z
    .object({ importId: z.string(), found: z.number(), status: z.string(), seen: z.number(), invoices: z.number(), duplicates: z.number(), errors: z.number() })
    .nullable(),
});
