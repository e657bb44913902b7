/** Mailbox automations' polls (see the header of automations.ts): the schedule, the history cursor, feeding the import. */
import type { Services } from '../../core/context.ts';
import { isApiError } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { withMailbox } from '../mail/mailboxes.ts';
import { MailboxError } from '../../ports/mailbox.ts';
import { enqueueImportBatches, importQuery, importsPath, mailsToRetry, MAX_IMPORT_MAILS, newImportRecord, RETRY_PER_POLL } from '../mail/mailImport.ts';
import { MAILBOX_POLL_QUEUE, POLL_EVERY_MINUTES, automationPath, type Trigger, type MailboxConfig, type AutomationRecord, type RunRecord, nowIso, lastRunOf, recordRun, newRun } from './automations.ts';

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
  // Mails an earlier import left in a temporary error (the provider failed) are tried again with the new ones.
  const retry = (await mailsToRetry(s, businessId, cfg.accountId, RETRY_PER_POLL)).filter((r) => !found.ids.includes(r.messageId));
  const ids = [...found.ids, ...retry.map((r) => r.messageId)];
  let run: RunRecord | null = null;
  // An empty scheduled poll is not a run (it would push the useful ones out of the 30 kept); a manual one is.
  if (ids.length || !a.cursor || trigger === 'manual') {
    // The import id derives from the automation, the cursor it read from and the mails to try again (with their tries
    // so far): a retried poll feeds the same import, a later poll retrying the same mails a new one.
    const again = retry.length ? `:${retry.map((r) => `${r.messageId}.${r.attempts}`).sort().join(',')}` : '';
    const importId = ids.length ? sha256(`automation:${businessId}:${automationId}:${found.from ?? ''}${again}`).slice(0, 20) : null;
    if (importId) await feedImport(s, businessId, importId, cfg, ids, Date.parse(a.cursor?.at ?? at));
    const what = [found.ids.length ? `${found.ids.length} new mail(s)` : '', retry.length ? `${retry.length} mail(s) to try again` : ''].filter(Boolean).join(' and ');
    run = newRun(s, {
      runId: importId ? `poll-${importId}` : `poll-${s.ids()}`,
      automationId,
      businessId,
      trigger,
      importId,
      found: found.ids.length,
      summary: importId ? `${what} sent to import ${importId}${found.note ? ` (${found.note})` : ''}` : found.note || 'no new mail since the last check',
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

/** The new message ids as one mailbox import (domain/mail/mailImport.ts), in its batches on its queue. */
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
