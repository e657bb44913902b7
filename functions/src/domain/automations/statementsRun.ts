/** The statements automation's run (see the header of automations.ts): fan-out of syncs, the completion check, the schedule. */
import type { Services } from '../../core/context.ts';
import { isApiError, precondition } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { enqueueDelivery, stageMessage } from '../../core/outbox.ts';
import { accountsPath, automationRunStatementPath, requestStatementSync, statementId, statementsPath, type AccountRecord, type StatementRecord } from '../statements/statements.ts';
import { buildStatementsZip, monthPackageEmail, recordSend } from '../accountant/monthPackage.ts';
import { buildAccZip } from '../accountant/accZip.ts';
import { lastClosedMonth } from '../months.ts';
import { accountSettled } from './runSettlement.ts';
import { businessContact } from '../payments/paymentMessages.ts';
import { SYSTEM_STATEMENTS_ID, STATEMENTS_RUN_QUEUE, STATEMENTS_CHECK_QUEUE, MAX_RUNS, RUN_DEADLINE_MS, runsPath, type Trigger, type StatementsConfig, type RunAccount, type RunAccountantZip, type RunRecord, nowIso, readAutomation, statementsConfig, ensureSystemAutomation, setLastRun, pruneRuns, newRun } from './automations.ts';

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
    throw precondition('id: the statements automation is paused; resume it (automationUpdate with enabled: true) first', { reason: 'automationPaused' });
  }
  if (trigger === 'manual') {
    // A second "run now" while the month is still being pulled joins that run: no second fan-out, no second mail;
    // accounts connected since it started are added to it. A run already finishing is not joined.
    const recent = await s.store.query({ collection: runsPath(businessId), where: [['automationId', '==', SYSTEM_STATEMENTS_ID]], orderBy: [['startedAtMs', 'desc']], limit: MAX_RUNS });
    const running = recent.map((d) => d.data as unknown as RunRecord).find((r) => r.month === month && r.status === 'running' && !r.completing);
    if (running) {
      const joined = await joinRun(s, running, accounts);
      if (joined) return joined;
    }
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
  await requestSyncs(s, run, accounts, run.accounts.map((a) => a.accountId));
  // The safety net: at the deadline, accounts still pending fail and the run completes anyway.
  await s.tasks.enqueue(STATEMENTS_CHECK_QUEUE, { businessId, runId, check: 0 }, { id: `automationCheck-${businessId}-${runId}-0`, delaySeconds: Math.ceil(RUN_DEADLINE_MS / 1000) });
  // Accounts that settled before the fan-out ended (refused at once, or quick syncs) wait for this to complete the run.
  await accountSettled(s, businessId, runId, null, month, null, { fannedOut: true });
  return ((await s.store.get(path))?.data as unknown as RunRecord | undefined) ?? { ...run, fannedOut: true };
}

/** Requests the syncs of these accounts of the run; a retried fan-out skips those that already settled for it. */
async function requestSyncs(s: Services, run: RunRecord, accounts: AccountRecord[], ids: string[]) {
  const { businessId, runId } = run;
  const month = run.month!;
  const settled = await s.store.getAll(ids.map((id) => automationRunStatementPath(businessId, runId, statementId(id, month))));
  const byId = new Map(accounts.map((a) => [a.id, a]));
  for (const [i, accountId] of ids.entries()) {
    if (settled[i]) continue;
    const a = byId.get(accountId);
    try {
      if (!a) throw precondition('the account was disconnected', { reason: 'needsReconnect' });
      await requestStatementSync(s, businessId, a.source, a.id, month, { runId });
    } catch (e) {
      if (!isApiError(e)) throw e;
      // Refused before any task (needs reconnect, disconnected): that account settles failed now.
      await accountSettled(s, businessId, runId, accountId, month, { status: 'failed', reason: e.message.replace(/^accountId: /, '') });
    }
  }
}

/**
 * A "run now" joining the month's running run: statement accounts connected since it started are added (pending) and
 * their syncs requested under it, so its one mail covers them. Null when the run began finishing meanwhile.
 */
async function joinRun(s: Services, run: RunRecord, accounts: AccountRecord[]): Promise<RunRecord | null> {
  const path = runsPath(run.businessId, run.runId);
  const added = await s.store.runTransaction(async (tx) => {
    const cur = (await tx.get(path))?.data as unknown as RunRecord | undefined;
    if (!cur || cur.status !== 'running' || cur.completing) return null;
    const known = new Set(cur.accounts.map((a) => a.accountId));
    const fresh = accounts.filter((a) => !known.has(a.id)).map((a): RunAccount => ({ accountId: a.id, name: a.name, status: 'pending', reason: null }));
    if (fresh.length) {
      const all = [...cur.accounts, ...fresh];
      tx.update(path, { accounts: all, summary: `pulling ${cur.month} for ${all.length} account(s), ${fresh.length} added by a later run now` });
    }
    return fresh;
  });
  if (added === null) return null;
  if (added.length) await requestSyncs(s, run, accounts, added.map((a) => a.accountId));
  return (await s.store.get(path))!.data as unknown as RunRecord;
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
 * The completion step (a STATEMENTS_CHECK_QUEUE task), queued by the sync that settled the last account, or at the
 * deadline (the safety net: accounts still pending then fail); mails the package when configured, once (the run's
 * status guards it). A check that finds accounts pending before the deadline looks again at the deadline.
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
    await s.tasks.enqueue(STATEMENTS_CHECK_QUEUE, { businessId, runId, check: check + 1 }, { id: `automationCheck-${businessId}-${runId}-${check + 1}`, delaySeconds: Math.ceil((run.deadlineAtMs - now) / 1000) });
    return;
  }
  accounts = accounts.map((a) => (a.status === 'pending' ? { ...a, status: 'failed' as const, reason: 'still syncing when the run ended' } : a));
  const failed = accounts.filter((a) => a.status === 'failed');
  const auto = await readAutomation(s, businessId, SYSTEM_STATEMENTS_ID);
  const { recipients, onlyWhenComplete, includeAccountantZip } = statementsConfig(auto.config as StatementsConfig);
  const complete = failed.length === 0;
  let summary = `${run.month}: ${accounts.length - failed.length} of ${accounts.length} account(s) synced`;
  let mail = false;
  const notMailed = !recipients.length ? 'noRecipients' : onlyWhenComplete && !complete ? 'incomplete' : null;
  if (!recipients.length) summary += '; not mailed: the automation has no recipients';
  else if (onlyWhenComplete && !complete) summary += `; not mailed: ${failed.map((a) => a.name).join(', ')} failed and onlyWhenComplete is on`;
  else mail = true;

  const at = iso(now);
  const zip = mail ? await buildStatementsZip(s, businessId, run.month, run.accounts.map((a) => a.accountId)) : null;
  // The accountant's ZIP of the month rides along as a link (issue 19): the whole accountant tree, this month only.
  const acc = zip && includeAccountantZip ? await buildAccZip(s, businessId, undefined, { from: run.month, to: run.month }, now) : null;
  const accountantZip: RunAccountantZip | null = acc
    ? { fileId: acc.file.fileId, fileName: acc.file.fileName, url: acc.file.url, expiresAt: acc.file.expiresAt!, size: acc.file.size, entries: acc.entries, missing: acc.missing }
    : null;
  const business = zip ? await businessContact(s.store, businessId) : null;
  const emails = zip && business ? await Promise.all(recipients.map((to) => monthPackageEmail(s.config, business, to, run.month!, zip, accountantZip))) : [];
  const staged = await s.store.runTransaction(async (tx) => {
    const cur = (await tx.get(path))?.data as unknown as RunRecord | undefined;
    if (!cur || cur.status !== 'running') return null;
    const paths = emails.map((message) => stageMessage(tx, businessId, s.ids(), message, 'automationStatements', now, runId, s.config.credentialsKey));
    const mailed = zip ? { to: recipients, at, messageIds: paths.map((p) => p.split('/').at(-1)!), missing: zip.missing, accountantZip } : null;
    if (mailed) summary += `; mailed to ${recipients.join(', ')}${zip!.missing.length ? ` (missing: ${zip!.missing.join(', ')})` : ''}`;
    if (mailed && accountantZip) summary += `, with the accountant's ZIP of the month (${accountantZip.entries} file(s))`;
    tx.update(path, { status: 'done', accounts, summary, finishedAt: at, mailed, ...(notMailed && !mailed ? { notMailed } : {}) });
    return { paths, mailed };
  });
  if (!staged) return;
  for (const p of staged.paths) {
    try {
      await enqueueDelivery(s.tasks, p, 'email');
    } catch (e) {
      s.logger.error('could not enqueue outbox delivery; the outbox sweep re-queues it', { path: p, error: String(e) });
    }
  }
  if (staged.mailed && zip) await recordSend(s.store, businessId, run.month, { at, to: recipients, messageIds: staged.mailed.messageIds, zipFileId: zip.fileId, accounts: zip.accounts, missing: zip.missing, runId });
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
