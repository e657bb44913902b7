/**
 * Automations (issue 9): the system statements automation and mailbox automations.
 *
 * Records (under businesses/{b}/):
 * - automations/{id}: `system_statements` (the statements automation: one per business, written on first change or
 *   first run, never deleted; until then its defaults stand) or a random id for a `mailbox_invoices` automation,
 *   whose `config.accountId` names the mailbox (mailboxDisconnect removes them with it).
 * - automationRuns/{runId}: one per run, {automationId, trigger, status, accounts, mailed | import ...}; the last
 *   MAX_RUNS per automation are kept. A statements run's syncs write automationRuns/{runId}/statements/{statementId}
 *   when they settle (domain/statements.ts).
 *
 * Statements run: startStatementsRun requests one sync per statement account (requestStatementSync with the run id,
 *   each one a STATEMENT_SYNC_QUEUE task), then a STATEMENTS_CHECK_QUEUE task looks at the run every CHECK_EVERY_S
 *   until every account settled or the deadline passed, and mails the package (through the outbox) once.
 *   The schedule (2nd of the month, Israel) enqueues one STATEMENTS_RUN_QUEUE task per business; its run id is derived
 *   from the month, so a second firing fans out nothing.
 * Mailbox automation: a MAILBOX_POLL_QUEUE task per enabled automation every POLL_EVERY_MINUTES reads the mailbox's
 *   history since the stored cursor (the first poll only records the cursor) and feeds the new message ids to the
 *   import path of domain/mailImport.ts (an import record and its batches).
 */
import { z } from 'zod';
import type { Services } from '../core/context.ts';
import { ApiError, isApiError, notFound, precondition } from '../core/errors.ts';
import { iso } from '../core/clock.ts';
import { sha256 } from '../core/ids.ts';
import { enqueueDelivery, stageMessage } from '../core/outbox.ts';
import { deleteDocs } from '../ports/store.ts';
import { accountsPath, automationRunStatementPath, requestStatementSync, statementId, statementsPath, type AccountRecord, type StatementRecord } from './statements.ts';
import { buildStatementsZip, monthPackageEmail, recordSend } from './monthPackage.ts';
import { businessContact } from './paymentMessages.ts';
import { lastClosedMonth } from './months.ts';
import { automationsPath, getMailbox, withMailbox } from './mailboxes.ts';
import { enqueueImportBatches, importQuery, importsPath, MAX_IMPORT_MAILS, newImportRecord, type ImportRecord } from './mailImport.ts';
import { MailboxError } from '../adapters/mailbox/gmail.ts';

export const SYSTEM_STATEMENTS_ID = 'system_statements';
export const STATEMENTS_RUN_QUEUE = 'automationStatementsRun';
export const STATEMENTS_CHECK_QUEUE = 'automationStatementsCheck';
export const MAILBOX_POLL_QUEUE = 'automationMailboxPoll';
/** Runs kept per automation (spec §8). */
export const MAX_RUNS = 30;
/** Mailbox automations one business may have. */
export const MAX_AUTOMATIONS = 50;
/** How often the completion step looks at a statements run, and how long it waits for the syncs at most. */
export const CHECK_EVERY_S = 60;
export const RUN_DEADLINE_MS = 2 * 3_600_000;
export const POLL_EVERY_MINUTES = 10;

export const automationPath = (b: string, id: string) => `${automationsPath(b)}/${id}`;
export const runsPath = (b: string, runId = '') => `businesses/${b}/automationRuns${runId ? '/' + runId : ''}`;

export type AutomationType = 'statements' | 'mailbox_invoices';
export type RunStatus = 'running' | 'done' | 'failed';
export type Trigger = 'schedule' | 'manual';

export interface StatementsConfig {
  recipients: string[];
  onlyWhenComplete: boolean;
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
  deadlineAtMs: number;
  mailed: { to: string[]; at: string; messageIds: string[]; missing: string[] } | null;
  /** Mailbox polls: the import fed with the new mails. */
  importId: string | null;
  found: number;
}

const nowIso = (s: Services) => iso(s.clock.now());

function defaultSystem(businessId: string, at: string): AutomationRecord {
  return {
    id: SYSTEM_STATEMENTS_ID,
    businessId,
    type: 'statements',
    system: true,
    name: 'Monthly statements',
    enabled: true,
    config: { recipients: [], onlyWhenComplete: false },
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
  throw notFound(`id: automation ${id}`);
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

export function automationView(a: AutomationRecord) {
  return {
    id: a.id,
    type: a.type,
    system: a.system,
    name: a.name,
    enabled: a.enabled,
    config: a.config,
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
  if (same) throw new ApiError('already-exists', `config: automation ${same.id} already watches this mailbox${input.labelId ? ' label' : ''}`);
  if ((await s.store.count({ collection: automationsPath(businessId) })) >= MAX_AUTOMATIONS + 1) throw precondition(`a business may have at most ${MAX_AUTOMATIONS} mailbox automations; delete one first`);
  // The mailbox is asked now: the label must exist, and the history cursor starts here (nothing older is imported).
  const { labelName, historyId } = await withMailbox(s, businessId, mailbox.accountId, async (session) => {
    let name = input.labelName ?? '';
    if (input.labelId) {
      const label = (await session.listLabels()).find((l) => l.id === input.labelId);
      if (!label) throw notFound(`config.labelId: label ${input.labelId} in mailbox ${mailbox.email}`);
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
  if (patch.config && current.type !== 'statements') throw new ApiError('invalid-argument', 'config: recipients and onlyWhenComplete apply to the statements automation only');
  if (current.system) await ensureSystemAutomation(s, businessId);
  const path = automationPath(businessId, id);
  return s.store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    if (!doc) throw notFound(`id: automation ${id}`);
    const a = doc.data as unknown as AutomationRecord;
    const next: AutomationRecord = { ...a, updatedAt: nowIso(s) };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.enabled !== undefined) {
      // A mailbox automation resumed watches from now on: what arrived while paused is not imported.
      if (patch.enabled && !a.enabled && a.type === 'mailbox_invoices') next.cursor = null;
      next.enabled = patch.enabled;
    }
    if (patch.config) {
      const c = a.config as StatementsConfig;
      next.config = {
        recipients: patch.config.recipients ? [...new Set(patch.config.recipients)] : c.recipients,
        onlyWhenComplete: patch.config.onlyWhenComplete ?? c.onlyWhenComplete,
      };
    }
    tx.set(path, { ...next });
    return automationView(next);
  });
}

export async function deleteAutomation(s: Services, businessId: string, id: string) {
  if (id === SYSTEM_STATEMENTS_ID) throw precondition('id: the statements automation cannot be deleted; pause it instead (automationUpdate with enabled: false)');
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
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    month: r.month,
    accounts: r.accounts,
    mailed: r.mailed,
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

const lastRunOf = (r: RunRecord): LastRun => ({ runId: r.runId, status: r.status, startedAt: r.startedAt, finishedAt: r.finishedAt, summary: r.summary });

async function setLastRun(s: Services, r: RunRecord) {
  await s.store.update(automationPath(r.businessId, r.automationId), { lastRun: lastRunOf(r) }).catch(() => undefined);
}

/** Keeps the newest MAX_RUNS runs of the automation; older ones go with their settlement records. */
async function pruneRuns(s: Services, businessId: string, automationId: string) {
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
async function recordRun(s: Services, run: RunRecord) {
  await s.store.set(runsPath(run.businessId, run.runId), { ...run });
  await pruneRuns(s, run.businessId, run.automationId);
}

function newRun(s: Services, fields: Pick<RunRecord, 'runId' | 'automationId' | 'businessId' | 'trigger' | 'summary'> & Partial<RunRecord>): RunRecord {
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

// ---------------------------------------------------------------------------------------------
// The statements run

/**
 * Starts (or, for the schedule, resumes) the statements run of `month`: one sync per statement account, then the
 * completion check. A scheduled run's id is derived from the month: firing twice fans out once.
 */
export async function startStatementsRun(s: Services, businessId: string, month: string, trigger: Trigger): Promise<RunRecord | null> {
  const accounts = (await s.store.query({ collection: accountsPath(businessId) })).map((d) => d.data as unknown as AccountRecord).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  if (trigger === 'schedule' && !accounts.length) return null;
  const auto = await ensureSystemAutomation(s, businessId);
  if (!auto.enabled) {
    if (trigger === 'schedule') return null;
    throw precondition('id: the statements automation is paused; resume it (automationUpdate with enabled: true) first');
  }
  if (trigger === 'manual') {
    // A second "run now" while the month is still being pulled joins that run: no second fan-out, no second mail.
    const recent = await s.store.query({ collection: runsPath(businessId), where: [['automationId', '==', SYSTEM_STATEMENTS_ID]], orderBy: [['startedAtMs', 'desc']], limit: MAX_RUNS });
    const running = recent.map((d) => d.data as unknown as RunRecord).find((r) => r.month === month && r.status === 'running');
    if (running) return running;
  }
  const runId = trigger === 'schedule' ? `statements-${month}` : `statements-${month}-${s.ids()}`;
  const path = runsPath(businessId, runId);
  const fresh = newRun(s, {
    runId,
    automationId: SYSTEM_STATEMENTS_ID,
    businessId,
    trigger,
    month,
    summary: `pulling ${month} for ${accounts.length} account(s)`,
    accounts: accounts.map((a) => ({ accountId: a.id, name: a.name, status: 'pending', reason: null })),
  });
  const run = await s.store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    if (doc) return doc.data as unknown as RunRecord;
    tx.create(path, { ...fresh });
    return fresh;
  });
  if (run.fannedOut) return run;
  if (run === fresh) {
    await setLastRun(s, run);
    await pruneRuns(s, businessId, SYSTEM_STATEMENTS_ID);
  }
  // A retried fan-out skips the accounts that already settled for this run.
  const settled = await s.store.getAll(run.accounts.map((a) => automationRunStatementPath(businessId, runId, statementId(a.accountId, month))));
  const byId = new Map(accounts.map((a) => [a.id, a]));
  for (const [i, ra] of run.accounts.entries()) {
    if (settled[i]) continue;
    const a = byId.get(ra.accountId);
    try {
      if (!a) throw precondition('the account was disconnected');
      await requestStatementSync(s, businessId, a.source, a.id, month, { runId });
    } catch (e) {
      if (!isApiError(e)) throw e;
      // Refused before any task (needs reconnect, disconnected): that account settles failed now.
      await s.store.set(automationRunStatementPath(businessId, runId, statementId(ra.accountId, month)), { accountId: ra.accountId, month, status: 'failed', reason: e.message.replace(/^accountId: /, ''), settledAt: nowIso(s) });
    }
  }
  await s.store.update(path, { fannedOut: true });
  await s.tasks.enqueue(STATEMENTS_CHECK_QUEUE, { businessId, runId, check: 0 }, { id: `automationCheck-${businessId}-${runId}-0`, delaySeconds: CHECK_EVERY_S });
  return { ...run, fannedOut: true };
}

/** Where each account of the run stands: its settlement record, else its statement once no longer pending. */
async function accountOutcomes(s: Services, run: RunRecord): Promise<RunAccount[]> {
  const month = run.month!;
  const ids = run.accounts.map((a) => statementId(a.accountId, month));
  const [settled, statements] = await Promise.all([
    s.store.getAll(ids.map((id) => automationRunStatementPath(run.businessId, run.runId, id))),
    s.store.getAll(ids.map((id) => statementsPath(run.businessId, id))),
  ]);
  return run.accounts.map((a, i) => {
    const done = settled[i]?.data as { status?: string; reason?: string | null } | undefined;
    if (done?.status === 'ready' || done?.status === 'failed') return { ...a, status: done.status, reason: done.reason ?? null };
    // The statement settled without this run's record (another sync of the month was pending when the run asked,
    // or the record was lost): the statement's outcome counts. It was pending since the run asked.
    const st = statements[i]?.data as unknown as StatementRecord | undefined;
    if (!st) return { ...a, status: 'failed' as const, reason: 'the statement was deleted while syncing' };
    if (st.status !== 'pending') return { ...a, status: st.status, reason: st.reason };
    return { ...a, status: 'pending' as const, reason: null };
  });
}

/**
 * The completion step (a STATEMENTS_CHECK_QUEUE task): re-enqueued every CHECK_EVERY_S until every account settled
 * or the deadline passed; then mails the package when configured, once (the run's status guards it).
 */
export async function checkStatementsRun(s: Services, payload: Record<string, unknown>): Promise<void> {
  const businessId = String(payload.businessId);
  const runId = String(payload.runId);
  const check = Number(payload.check) || 0;
  const path = runsPath(businessId, runId);
  const run = (await s.store.get(path))?.data as unknown as RunRecord | undefined;
  if (!run || run.status !== 'running' || !run.month) return;
  const now = s.clock.now();
  let accounts = await accountOutcomes(s, run);
  const pending = accounts.filter((a) => a.status === 'pending').length;
  if (pending && now < run.deadlineAtMs) {
    await s.store.update(path, { accounts, summary: `pulling ${run.month}: ${accounts.length - pending} of ${accounts.length} account(s) settled` });
    await s.tasks.enqueue(STATEMENTS_CHECK_QUEUE, { businessId, runId, check: check + 1 }, { id: `automationCheck-${businessId}-${runId}-${check + 1}`, delaySeconds: CHECK_EVERY_S });
    return;
  }
  accounts = accounts.map((a) => (a.status === 'pending' ? { ...a, status: 'failed' as const, reason: 'still syncing when the run ended' } : a));
  const failed = accounts.filter((a) => a.status === 'failed');
  const auto = await readAutomation(s, businessId, SYSTEM_STATEMENTS_ID);
  const { recipients, onlyWhenComplete } = auto.config as StatementsConfig;
  const complete = failed.length === 0;
  let summary = `${run.month}: ${accounts.length - failed.length} of ${accounts.length} account(s) synced`;
  let mail = false;
  if (!recipients.length) summary += '; not mailed: the automation has no recipients';
  else if (onlyWhenComplete && !complete) summary += `; not mailed: ${failed.map((a) => a.name).join(', ')} failed and onlyWhenComplete is on`;
  else mail = true;

  const at = iso(now);
  const zip = mail ? await buildStatementsZip(s, businessId, run.month, run.accounts.map((a) => a.accountId)) : null;
  const business = zip ? await businessContact(s.store, businessId) : null;
  const emails = zip && business ? await Promise.all(recipients.map((to) => monthPackageEmail(s.config, business, to, run.month!, zip))) : [];
  const staged = await s.store.runTransaction(async (tx) => {
    const cur = (await tx.get(path))?.data as unknown as RunRecord | undefined;
    if (!cur || cur.status !== 'running') return null;
    const paths = emails.map((message) => stageMessage(tx, businessId, s.ids(), message, 'automationStatements', now, runId));
    const mailed = zip ? { to: recipients, at, messageIds: paths.map((p) => p.split('/').at(-1)!), missing: zip.missing } : null;
    if (mailed) summary += `; mailed to ${recipients.join(', ')}${zip!.missing.length ? ` (missing: ${zip!.missing.join(', ')})` : ''}`;
    tx.update(path, { status: 'done', accounts, summary, finishedAt: at, mailed });
    return { paths, mailed };
  });
  if (!staged) return;
  for (const p of staged.paths) {
    try {
      await enqueueDelivery(s.tasks, p);
    } catch (e) {
      s.logger.error('could not enqueue outbox delivery; the outbox sweep re-queues it', { path: p, error: String(e) });
    }
  }
  if (staged.mailed && zip) await recordSend(s.store, businessId, run.month, { at, to: recipients, zipFileId: zip.fileId, accounts: zip.accounts, missing: zip.missing, runId });
  await setLastRun(s, { ...run, status: 'done', summary, finishedAt: at });
}

/** The STATEMENTS_RUN_QUEUE task of the schedule: one business, one month. */
export async function runScheduledStatements(s: Services, payload: Record<string, unknown>): Promise<void> {
  await startStatementsRun(s, String(payload.businessId), String(payload.month), 'schedule');
}

/**
 * The monthly schedule: one STATEMENTS_RUN_QUEUE task per business for the last closed month (task ids derived from
 * business and month). Businesses without statement accounts or with the automation paused end in the task.
 */
export async function scheduleMonthlyStatements(s: Services): Promise<number> {
  const month = lastClosedMonth(s.clock.now());
  let n = 0;
  let after: string | null = null;
  for (;;) {
    const page = await s.store.query({ collection: 'businesses', orderBy: [['id', 'asc']], limit: 300, ...(after !== null && { startAfter: [after] }) });
    for (const b of page) {
      await s.tasks.enqueue(STATEMENTS_RUN_QUEUE, { businessId: b.id, month }, { id: `automationStatements-${b.id}-${month}` });
      n++;
    }
    if (page.length < 300) return n;
    after = page.at(-1)!.id;
  }
}

// ---------------------------------------------------------------------------------------------
// Mailbox automations

/** Mail the user wrote (drafts, sent without also arriving) is not an arriving invoice. */
const arriving = (labelIds: string[]) => !labelIds.includes('DRAFT') && (!labelIds.includes('SENT') || labelIds.includes('INBOX'));

/** The schedule: one MAILBOX_POLL_QUEUE task per enabled mailbox automation, per poll slot. */
export async function scheduleMailboxPolls(s: Services): Promise<number> {
  const slot = Math.floor(s.clock.now() / (POLL_EVERY_MINUTES * 60_000));
  let n = 0;
  let after: string | null = null;
  for (;;) {
    const page = await s.store.query({
      collection: 'automations',
      group: true,
      where: [['type', '==', 'mailbox_invoices'], ['enabled', '==', true]],
      orderBy: [['id', 'asc']],
      limit: 300,
      ...(after !== null && { startAfter: [after] }),
    });
    for (const d of page) {
      const a = d.data as unknown as AutomationRecord;
      await s.tasks.enqueue(MAILBOX_POLL_QUEUE, { businessId: a.businessId, automationId: a.id }, { id: `automationPoll-${a.businessId}-${a.id}-${slot}` });
      n++;
    }
    if (page.length < 300) return n;
    after = (page.at(-1)!.data as { id: string }).id;
  }
}

/**
 * One poll (the MAILBOX_POLL_QUEUE task, or automationRunNow): the mails added since the cursor become one import.
 * A paused or deleted automation does nothing. Failures are recorded on a run, not retried: the next poll tries again.
 */
export async function pollMailboxAutomation(s: Services, businessId: string, automationId: string, trigger: Trigger = 'schedule'): Promise<RunRecord | null> {
  const a = (await s.store.get(automationPath(businessId, automationId)))?.data as unknown as AutomationRecord | undefined;
  if (!a || a.type !== 'mailbox_invoices' || !a.enabled) return null;
  const cfg = a.config as MailboxConfig;
  const labelId = cfg.labelId ?? undefined;
  const at = nowIso(s);
  type Found = { historyId: string; ids: string[]; from: string | null; note: string };
  let found: Found;
  try {
    found = await withMailbox(s, businessId, cfg.accountId, async (session): Promise<Found> => {
      if (!a.cursor) return { historyId: await session.historyId(), ids: [], from: null, note: 'started watching: mails arriving from now on are imported' };
      try {
        const h = await session.listHistory({ startHistoryId: a.cursor.historyId, labelId, max: MAX_IMPORT_MAILS });
        const note = h.truncated ? `more new mail than one poll takes (${MAX_IMPORT_MAILS}): the next poll goes on from here` : '';
        return { historyId: h.historyId, ids: h.messages.filter((m) => arriving(m.labelIds)).map((m) => m.id), from: a.cursor.historyId, note };
      } catch (e) {
        if (!(e instanceof MailboxError) || e.failure !== 'not_found') throw e;
        // Gmail forgot the cursor (kept about a week): search by date since the last poll instead, and start over.
        const historyId = await session.historyId();
        const { ids } = await session.listMessageIds({ q: importQuery(Date.parse(a.cursor.at)), labelId, max: MAX_IMPORT_MAILS });
        return { historyId, ids, from: a.cursor.historyId, note: 'the mailbox history had expired: searched by date since the last poll' };
      }
    });
  } catch (e) {
    if (!isApiError(e)) throw e;
    const run = newRun(s, { runId: `poll-${s.ids()}`, automationId, businessId, trigger, summary: `poll failed: ${e.message}`.slice(0, 500) });
    run.status = 'failed';
    run.finishedAt = at;
    await recordRun(s, run);
    await s.store.update(automationPath(businessId, automationId), { lastPolledAt: at, lastRun: lastRunOf(run) }).catch(() => undefined);
    return run;
  }
  let run: RunRecord | null = null;
  // An empty scheduled poll is not a run (it would push the useful ones out of the 30 kept); a manual one is.
  if (found.ids.length || !a.cursor || trigger === 'manual') {
    // The import id derives from the automation and the cursor it read from: a retried poll feeds the same import.
    const importId = found.ids.length ? sha256(`automation:${businessId}:${automationId}:${found.from ?? ''}`).slice(0, 20) : null;
    if (importId) await feedImport(s, businessId, importId, cfg, found.ids, Date.parse(a.cursor?.at ?? at));
    run = newRun(s, {
      runId: importId ? `poll-${importId}` : `poll-${s.ids()}`,
      automationId,
      businessId,
      trigger,
      importId,
      found: found.ids.length,
      summary: importId ? `${found.ids.length} new mail(s) sent to import ${importId}${found.note ? ` (${found.note})` : ''}` : found.note || 'no new mail since the last check',
    });
    run.status = 'done';
    run.finishedAt = at;
    await recordRun(s, run);
  }
  // Guarded: a pause or delete meanwhile keeps its own state.
  await s.store.runTransaction(async (tx) => {
    const cur = (await tx.get(automationPath(businessId, automationId)))?.data as unknown as AutomationRecord | undefined;
    if (!cur || !cur.enabled) return;
    tx.update(automationPath(businessId, automationId), { cursor: { historyId: found.historyId, at }, lastPolledAt: at, ...(run && { lastRun: lastRunOf(run) }) });
  });
  return run;
}

/** The new message ids as one mailbox import (domain/mailImport.ts), in its batches on its queue. */
async function feedImport(s: Services, businessId: string, importId: string, cfg: MailboxConfig, ids: string[], since: number) {
  const path = importsPath(businessId, importId);
  const record = newImportRecord({ importId, accountId: cfg.accountId, since, labelId: cfg.labelId ?? '', ids }, s.clock.now());
  await s.store.runTransaction(async (tx) => {
    if (!(await tx.get(path))) tx.create(path, { ...record });
  });
  await enqueueImportBatches(s, businessId, importId, ids);
}

/** The MAILBOX_POLL_QUEUE task. */
export async function runMailboxPoll(s: Services, payload: Record<string, unknown>): Promise<void> {
  await pollMailboxAutomation(s, String(payload.businessId), String(payload.automationId), 'schedule');
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
    z.object({ recipients: z.array(z.string()), onlyWhenComplete: z.boolean() }),
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
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  month: z.string().nullable(),
  accounts: z.array(z.object({ accountId: z.string(), name: z.string(), status: z.enum(['pending', 'ready', 'failed']), reason: z.string().nullable() })),
  mailed: z.object({ to: z.array(z.string()), at: z.string(), messageIds: z.array(z.string()), missing: z.array(z.string()) }).nullable(),
  import: z
    .object({ importId: z.string(), found: z.number(), status: z.string(), seen: z.number(), invoices: z.number(), duplicates: z.number(), errors: z.number() })
    .nullable(),
});
