import type { Caller, Services } from '../../core/context.ts';
import { ApiError, isApiError, notFound } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { consumeQuota, QuotaReservation } from '../../core/quota.ts';
import { sniffFileType } from '../../core/fileTypes.ts';
import { pdfRefusal } from '../../core/pdfInflation.ts';
import { increment, type Transaction } from '../../ports/store.ts';
import { invoicesPath, type InvoiceReading, type ReadingStatus } from '../invoices/invoices.ts';
import { matchSupplier, newInvoiceDoc, readInvoiceSafely, settleDocument, sha256Bytes } from '../invoices/invoiceDocs.ts';
import { withMailbox, getMailbox } from './mailboxes.ts';
import { MailboxError, type Mail, type MailPart, type MailboxSession } from '../../ports/mailbox.ts';
import { iso } from '../../core/clock.ts';
import { searchTokensOf } from '../search.ts';
import { loadRules, matchRule, type FileableDoc, type FolderRuleRecord } from '../invoices/folderRules.ts';
import { mailHtml, mailText } from './mailView.ts';
import { BODY_PART, bodyPdfName, mailToPdf } from './mailPdf.ts';
import { decodeHeader } from './mime.ts';

// Shared with mailView.ts from mime.ts, so the two files do not import each other.
export { decodeHeader } from './mime.ts';

/**
 * Mailbox imports (spec "Mailbox, scanned mail, import"): the import record, the batches fanned out
 * over the task queue, and one scanned-mail record per message (keyed by account and message id) so a
 * retried task never imports a mail twice.
 *
 * Failures (issue 20): a temporary one (a 5xx, a network error, a garbled or cut-off answer) is tried again within
 * the mail (FETCH_TRIES), then by the batch (BATCH_ATTEMPTS runs, each a task scheduled with RETRY_DELAYS_S); a mail
 * still failing keeps `willRetry`, so a later import of the mailbox or its automation's next poll tries it again (up to
 * MAIL_ATTEMPTS in all). A batch that gives up settles itself, so the import always ends: `done`, or `partial` /
 * `failed` with the provider's error as the reason. Permanent failures (not found, refused, not a PDF or image) are final.
 * A running batch beats (`beatAt`) every BEAT_MS; a silent import tells when it resumes (`resumesAt`).
 */

/** Mails one import (or count) looks at, at most. */
export const MAX_IMPORT_MAILS = 5000;
/** Mails per task. */
export const IMPORT_BATCH = 25;
export const MAIL_IMPORT_QUEUE = 'mailboxImportBatch';

/** Gmail search for mails received after `sinceMs` (after: takes unix seconds). */
export const importQuery = (sinceMs: number) => `after:${Math.floor(sinceMs / 1000)}`;

export const importsPath = (businessId: string, importId = '') => `businesses/${businessId}/mailImports${importId ? '/' + importId : ''}`;
export const mailsPath = (businessId: string, seenId = '') => `businesses/${businessId}/mails${seenId ? '/' + seenId : ''}`;
export const seenIdOf = (accountId: string, messageId: string) => `${accountId}_${messageId}`;

/** Tries of one Gmail call within a mail when it fails temporarily. */
export const FETCH_TRIES = 3;
/** Runs of one batch before it gives up (the queue's own retries stay for crashes). */
export const BATCH_ATTEMPTS = 5;
/** Pause before the batch's next run, after run 1, 2, 3, 4. */
export const RETRY_DELAYS_S = [15, 60, 240, 600];
/** Tries of one mail in all (a batch run counts one; later imports and polls go on counting) before a temporary failure is final. */
export const MAIL_ATTEMPTS = 25;
/** Mails in a temporary error one automation poll sends to its import again, at most. */
export const RETRY_PER_POLL = 100;
/** How often a running batch says it is alive; three missed beats make the import stalled. */
export const BEAT_MS = 20_000;
export const STALE_MS = 3 * BEAT_MS;

export type ImportStatus = 'running' | 'done' | 'partial' | 'failed' | 'canceled' | 'stopped';
export type MailResult = 'processing' | 'imported' | 'no_invoice' | 'duplicate' | 'error';

export interface ImportRecord {
  importId: string;
  accountId: string;
  since: number;
  labelId: string;
  status: ImportStatus;
  reason: string;
  total: number;
  batches: number;
  batchesDone: number;
  seen: number;
  invoices: number;
  duplicates: number;
  noInvoice: number;
  errors: number;
  /** Mails of this import left in a temporary error: a later import or poll tries them again. */
  retryLater?: number;
  /** Batches that gave up after BATCH_ATTEMPTS runs. */
  failedBatches?: number;
  /** The last beat of a running batch. */
  beatAt?: string | null;
  /** When a batch waiting to run again (after a temporary failure) is due. */
  retryAt?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ScannedMail {
  seenId: string;
  accountId: string;
  messageId: string;
  importId: string;
  from: string;
  subject: string;
  date: string;
  /** The mail's date in unix ms (the upload time when the mail has none): mailsList orders by it. */
  dateMs: number;
  result: MailResult;
  reason: string;
  invoices: number;
  docIds: string[];
  search: string[];
  /** Times the mail was processed (by imports and polls). */
  attempts?: number;
  /** The result is a temporary error: the next import of the mailbox, or its automation's next poll, tries again. */
  willRetry?: boolean;
  createdAt: string;
}

// ---------------------------------------------------------------------------------------------
// MIME

export const headerOf = (part: MailPart | undefined, name: string) => decodeHeader(part?.headers?.find((h) => h.name?.toLowerCase() === name.toLowerCase())?.value ?? '');

const INVOICE_TYPES = new Set(['application/pdf', 'image/jpeg', 'image/png']);

export interface AttachmentRef {
  partId: string;
  fileName: string;
  attachmentId: string | null;
  data: string | null;
  /** The size the provider declares for the bytes (before transfer encoding), when it does. */
  size: number | null;
}

/** Files worth reading: PDFs and images with a file name, not inline images (logos, signatures); forwarded mails' parts included. */
export function invoiceAttachments(payload: MailPart): AttachmentRef[] {
  const out: AttachmentRef[] = [];
  const walk = (p: MailPart) => {
    for (const c of p.parts ?? []) walk(c);
    if (p.parts?.length || !p.filename) return;
    const type = (p.mimeType ?? '').toLowerCase();
    const disposition = headerOf(p, 'Content-Disposition').toLowerCase();
    const inline = disposition.startsWith('inline') || (!disposition && headerOf(p, 'Content-ID') !== '');
    const isPdfByName = type === 'application/octet-stream' && /\.pdf$/i.test(p.filename);
    if (inline && type.startsWith('image/')) return;
    if (!INVOICE_TYPES.has(type) && !isPdfByName) return;
    out.push({ partId: p.partId ?? '', fileName: decodeHeader(p.filename).replace(/[\\/\u0000-\u001f]/g, '_').slice(0, 200), attachmentId: p.body?.attachmentId ?? null, data: p.body?.data ?? null, size: typeof p.body?.size === 'number' ? p.body.size : null });
  };
  walk(payload);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Starting, waiting, canceling

/**
 * When a running import goes on, if it is not moving now: a batch waiting after a temporary failure resumes at its
 * retry time; a batch whose worker stopped beating (a crash, a kill -9) is delivered again by the queue within
 * `redeliveryMs` of its last beat. Null while a batch is working.
 */
export function resumesAt(r: ImportRecord, now: number, redeliveryMs: number): string | null {
  if (r.status !== 'running') return null;
  const beat = r.beatAt ? Date.parse(r.beatAt) : NaN;
  if (Number.isFinite(beat) && now - beat < STALE_MS) return null;
  if (r.retryAt && Date.parse(r.retryAt) > now) return r.retryAt;
  if (Number.isFinite(beat)) return iso(Math.max(now, beat + redeliveryMs));
  return null;
}

export const importView = (r: ImportRecord, s: Pick<Services, 'clock' | 'tasks'>) => ({
  importId: r.importId,
  accountId: r.accountId,
  since: r.since,
  labelId: r.labelId || null,
  status: r.status,
  reason: r.reason,
  total: r.total,
  seen: r.seen,
  invoices: r.invoices,
  duplicates: r.duplicates,
  noInvoice: r.noInvoice,
  errors: r.errors,
  retryLater: r.retryLater ?? 0,
  resumesAt: resumesAt(r, s.clock.now(), s.tasks.redeliveryMs),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export async function readImport(services: Services, businessId: string, importId: string): Promise<ImportRecord | null> {
  const d = await services.store.get(importsPath(businessId, importId));
  return d ? (d.data as unknown as ImportRecord) : null;
}

/** A running import of these message ids (none yet when the ids are listed after it is created). */
export function newImportRecord(o: { importId: string; accountId: string; since: number; labelId: string; ids: string[] }, now: number): ImportRecord {
  const at = new Date(now).toISOString();
  const batches = Math.ceil(o.ids.length / IMPORT_BATCH);
  return {
    importId: o.importId,
    accountId: o.accountId,
    since: o.since,
    labelId: o.labelId,
    status: 'running',
    reason: '',
    total: o.ids.length,
    batches,
    batchesDone: 0,
    seen: 0,
    invoices: 0,
    duplicates: 0,
    noInvoice: 0,
    errors: 0,
    retryLater: 0,
    failedBatches: 0,
    beatAt: null,
    retryAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

/** One task per batch of ids; the task id is the batch's, so enqueueing again (a retry) adds nothing. */
export async function enqueueImportBatches(services: Services, businessId: string, importId: string, ids: string[]): Promise<void> {
  for (let n = 0; n * IMPORT_BATCH < ids.length; n++) {
    await services.tasks.enqueue(MAIL_IMPORT_QUEUE, { businessId, importId, batch: n, ids: ids.slice(n * IMPORT_BATCH, (n + 1) * IMPORT_BATCH) }, { id: `mailimport-${businessId}-${importId}-${n}` });
  }
}

/** The mails of the mailbox left in a temporary error, to be tried again (by an automation's poll). */
export async function mailsToRetry(services: Services, businessId: string, accountId: string, max: number): Promise<{ messageId: string; attempts: number }[]> {
  const docs = await services.store.query({ collection: mailsPath(businessId), where: [['accountId', '==', accountId], ['willRetry', '==', true]], limit: max });
  return docs.map((d) => d.data as unknown as ScannedMail).map((m) => ({ messageId: m.messageId, attempts: m.attempts ?? 1 }));
}

/**
 * Creates the import (or returns the existing one with that id, starting nothing), lists the
 * message ids and enqueues one task per batch; task ids derive from the import and batch number.
 */
export async function startImport(services: Services, caller: Caller, opts: { accountId: string; since: number; labelId: string; importId: string }): Promise<{ record: ImportRecord; created: boolean }> {
  const { businessId } = caller;
  const path = importsPath(businessId, opts.importId);
  const existing = await readImport(services, businessId, opts.importId);
  if (existing) return { record: existing, created: false };
  const mailbox = await getMailbox(services.store, businessId, opts.accountId);
  const record = newImportRecord({ importId: opts.importId, accountId: mailbox.accountId, since: opts.since, labelId: opts.labelId, ids: [] }, services.clock.now());
  try {
    await services.store.create(path, { ...record });
  } catch (e) {
    if (isApiError(e) && e.code === 'already-exists') return { record: (await readImport(services, businessId, opts.importId))!, created: false };
    throw e;
  }
  let ids: string[];
  try {
    ({ ids } = await withMailbox(services, businessId, opts.accountId, (s) => s.listMessageIds({ q: importQuery(opts.since), labelId: opts.labelId || undefined, max: MAX_IMPORT_MAILS })));
  } catch (e) {
    // A revoked grant stops the import; any other refusal of the listing is the provider's failure.
    const status = isApiError(e) && e.code === 'failed-precondition' ? 'stopped' : 'failed';
    await services.store.update(path, { status, reason: (e instanceof Error ? e.message : String(e)).slice(0, 500), updatedAt: new Date(services.clock.now()).toISOString() });
    throw e;
  }
  const batches = Math.ceil(ids.length / IMPORT_BATCH);
  await services.store.update(path, { total: ids.length, batches, status: batches ? 'running' : 'done', updatedAt: new Date(services.clock.now()).toISOString() });
  await enqueueImportBatches(services, businessId, opts.importId, ids);
  return { record: (await readImport(services, businessId, opts.importId))!, created: true };
}

/** Polls the import until it is no longer running or `waitMs` passed. */
export async function waitForImport(services: Services, businessId: string, importId: string, waitMs: number): Promise<ImportRecord> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = await readImport(services, businessId, importId);
    if (!r) throw notFound(`importId: import ${importId}`, 'import');
    if (r.status !== 'running' || Date.now() >= deadline) return r;
    await new Promise((res) => setTimeout(res, Math.min(500, Math.max(0, deadline - Date.now()))));
  }
}

export async function cancelImport(services: Services, businessId: string, importId: string): Promise<ImportRecord> {
  const path = importsPath(businessId, importId);
  return services.store.runTransaction(async (tx) => {
    const d = await tx.get(path);
    if (!d) throw notFound(`importId: import ${importId}`, 'import');
    const r = d.data as unknown as ImportRecord;
    if (r.status !== 'running') return r;
    const updatedAt = new Date(services.clock.now()).toISOString();
    tx.update(path, { status: 'canceled', reason: 'canceled by the user', updatedAt });
    return { ...r, status: 'canceled' as const, reason: 'canceled by the user', updatedAt };
  });
}

// ---------------------------------------------------------------------------------------------
// One batch (the task)

const systemCaller = (businessId: string): Caller => ({ businessId, userId: 'system', email: '', role: 'user', keyName: 'mailbox import' });

/** Thrown inside a mail when the AI quota is used up: the rest of the import stops. */
class StopImport extends Error {}

/** Gmail kept failing temporarily on a whole message: this run of the batch stops, and runs again later. */
class ProviderFailing extends Error {}

/**
 * Whether a failed Gmail call may work when tried again: a 5xx, a rate limit, a garbled or cut-off answer (all
 * MailboxError `unavailable`/`ratelimited`), or no answer at all (a reset connection, a timeout: the HTTP client's
 * own errors). A revoked grant, a refusal and a missing mail are final.
 */
export function isTemporary(e: unknown): boolean {
  if (e instanceof MailboxError) return e.failure === 'unavailable' || e.failure === 'ratelimited';
  return !isApiError(e) && !(e instanceof StopImport);
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 300);

/** `fn`, tried up to FETCH_TRIES times while it fails temporarily, pausing mailboxFetchRetryMs and then twice that. */
async function tryAgain<T>(services: Services, fn: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= FETCH_TRIES || !isTemporary(e)) throw e;
      const ms = services.config.mailboxFetchRetryMs * 2 ** (i - 1);
      if (ms) await new Promise((r) => setTimeout(r, ms));
    }
  }
}

export interface BatchOutcome {
  /** Mails left in a temporary error. */
  retryLater: number;
  /** The reason of one of them. */
  lastTemporary: string | null;
}

/**
 * Imports these message ids of the mailbox: each becomes a scanned-mail record (once, or again while it is in a
 * temporary error), its attachments invoice documents. Issue 9's automations call this with the ids they found.
 */
export async function importMessages(services: Services, opts: { businessId: string; accountId: string; importId: string; ids: string[]; isStopped: () => Promise<boolean> }): Promise<BatchOutcome> {
  const { businessId, accountId } = opts;
  const parallel = Math.max(1, services.config.mailboxImportParallelism);
  // Read once per batch: a rule saved mid-import applies from the next batch on.
  const bodyRules = (await loadRules(services.store, businessId)).filter((r) => r.enabled && r.bodyInvoice);
  const out: BatchOutcome = { retryLater: 0, lastTemporary: null };
  // The batch's AI readings are reserved together (one commit, not one a mail), about one a mail; what is left goes back
  // at the end (if the store fails then, the units stay charged: the limit errs on the safe side).
  const aiQuota = new QuotaReservation({ store: services.store, limits: services.config.quotas, businessId, name: 'ai', planned: opts.ids.length, now: () => services.clock.now() });
  const takeAi = () => aiQuota.take();
  await withMailbox(services, businessId, accountId, async (session) => {
    // The batch's mail records in one read: each mail's is read here, not again when the mail comes up.
    const records = await services.store.getAll(opts.ids.map((id) => mailsPath(businessId, seenIdOf(accountId, id))));
    const priors = new Map(opts.ids.map((id, i) => [id, records[i]?.data as unknown as ScannedMail | undefined]));
    const ahead = await fetchAhead(session, opts.ids.filter((id) => !priors.get(id) || priors.get(id)!.willRetry));
    let next = 0;
    let checked = -Infinity;
    let stop = false;
    let failure: unknown = null;
    const worker = async () => {
      while (!stop && next < opts.ids.length) {
        const id = opts.ids[next++];
        // A cancel is seen within STOP_CHECK_MS (and always before the batch's first mail), not by a read a mail.
        if (performance.now() - checked >= STOP_CHECK_MS) {
          checked = performance.now();
          if (await opts.isStopped()) {
            stop = true;
            return;
          }
        }
        try {
          const r = await importOne(services, session, { businessId, accountId, importId: opts.importId, messageId: id }, { prior: priors.get(id), bodyRules, takeAi, ahead });
          if (r.retry) {
            out.retryLater++;
            out.lastTemporary = r.reason;
          }
        } catch (e) {
          stop = true;
          if (e instanceof StopImport) {
            await services.store.update(importsPath(businessId, opts.importId), { status: 'stopped', reason: e.message.slice(0, 500), updatedAt: new Date(services.clock.now()).toISOString() }).catch(() => undefined);
            return;
          }
          failure ??= e;
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, opts.ids.length) }, worker));
    // Thrown once every worker ended, so no mail of this run is still in flight when the batch settles or runs again.
    if (failure) throw failure;
  }).finally(() => aiQuota.release().catch(() => undefined));
  return out;
}

/** A batch's mails and attachments fetched ahead, each taken once by the mail that reads it. */
interface FetchedAhead {
  messages: Map<string, Mail>;
  /** By `${messageId}/${attachmentId}`. */
  attachments: Map<string, Buffer>;
}

/** How often a batch looks whether its import was canceled or stopped (real time: the check is a read). */
const STOP_CHECK_MS = 200;

/** Attachments fetched ahead by a batch: at most this many bytes, as the provider declares them; larger ones come one by one. */
const AHEAD_BYTES = 8 * 1024 * 1024;

/**
 * The batch's mails `wanted` (those without a final record) and their invoice attachments, fetched ahead in as few requests
 * as the provider allows: with Gmail's batch endpoint, two requests for a batch of mails instead of two a mail (issue
 * 23). Only what came back whole is kept: anything else (a call that failed, a provider without batching) is asked
 * for when its mail is read, one by one, with the usual retries and error handling.
 */
async function fetchAhead(session: MailboxSession, wanted: string[]): Promise<FetchedAhead> {
  const ahead: FetchedAhead = { messages: new Map(), attachments: new Map() };
  if (!session.getMessages || wanted.length < 2) return ahead;
  const mails = await session.getMessages(wanted).catch(() => []);
  const calls: { messageId: string; attachmentId: string }[] = [];
  let bytes = 0;
  mails.forEach((m, i) => {
    if (m instanceof MailboxError) return;
    ahead.messages.set(wanted[i], m);
    for (const a of invoiceAttachments(m.payload)) {
      if (!a.attachmentId || a.size === null || bytes + a.size > AHEAD_BYTES) continue;
      bytes += a.size;
      calls.push({ messageId: wanted[i], attachmentId: a.attachmentId });
    }
  });
  if (calls.length && session.getAttachments) {
    const got = await session.getAttachments(calls).catch(() => []);
    got.forEach((r, i) => {
      if (!(r instanceof MailboxError)) ahead.attachments.set(`${calls[i].messageId}/${calls[i].attachmentId}`, r);
    });
  }
  return ahead;
}

/** A value fetched ahead, taken out (so the batch does not hold it once read). */
function takeAhead<T>(m: Map<string, T>, key: string): T | undefined {
  const v = m.get(key);
  if (v !== undefined) m.delete(key);
  return v;
}

interface BatchMarker {
  batch: number;
  /** Runs of the batch so far, counted when each starts (a run that crashed counts too). */
  attempts: number;
  lastError: string | null;
  /** Set when the batch settled: done, or given up (`failed`). */
  doneAt: string | null;
  failed?: boolean;
}

/** The state an import ends in once its last batch settled. */
function finalState(r: ImportRecord, failedBatches: number, note: string | null): Partial<ImportRecord> {
  const retryLater = r.retryLater ?? 0;
  if (!failedBatches && !retryLater) return { status: 'done', retryAt: null };
  const cause = note || r.reason || 'the mailbox provider kept failing';
  const more = retryLater ? `; ${retryLater} mail(s) will be tried again by the next import of this mailbox or its automation's next poll` : '';
  // Partial: some mails got a final result (imported, no invoice, a duplicate, a permanent error).
  return { status: r.seen - retryLater > 0 ? 'partial' : 'failed', reason: `${cause}${more}`.slice(0, 500), retryAt: null };
}

/**
 * The MAIL_IMPORT_QUEUE task: one batch of an import. A run that ends with a temporary failure (Gmail failing on a
 * message, or mails left in a temporary error) schedules the batch's next run (RETRY_DELAYS_S) until BATCH_ATTEMPTS;
 * then the batch settles anyway, with the failure as the import's reason.
 */
export async function runImportBatch(services: Services, payload: Record<string, unknown>): Promise<void> {
  const { store, clock } = services;
  const businessId = String(payload.businessId);
  const importId = String(payload.importId);
  const batch = Number(payload.batch);
  const ids = (payload.ids as string[]) ?? [];
  const path = importsPath(businessId, importId);
  const rec = await readImport(services, businessId, importId);
  if (!rec) return;
  const markerPath = `${path}/batches/${batch}`;
  const marker = (await store.get(markerPath))?.data as unknown as Partial<BatchMarker> | undefined;
  if (marker?.doneAt) return;
  const attempts = (marker?.attempts ?? 0) + 1;
  const at = () => iso(clock.now());
  await store.set(markerPath, { batch, attempts, lastError: marker?.lastError ?? null, doneAt: null });
  const isStopped = async () => (await readImport(services, businessId, importId))?.status !== 'running';
  // failure: the batch gave up (Gmail kept failing on its messages); note: why it ends short, for the import's reason.
  let failure: string | null = null;
  let note: string | null = null;
  if (rec.status === 'running') {
    if (attempts > BATCH_ATTEMPTS) {
      // Runs that ended without settling (the worker died each time) count as well.
      failure = marker?.lastError || 'the import task kept stopping before it finished';
    } else {
      await store.update(path, { beatAt: at(), retryAt: null });
      const beat = setInterval(() => void store.update(path, { beatAt: at() }).catch(() => undefined), BEAT_MS);
      beat.unref();
      let outcome: BatchOutcome = { retryLater: 0, lastTemporary: null };
      try {
        outcome = await importMessages(services, { businessId, accountId: rec.accountId, importId, ids, isStopped });
      } catch (e) {
        // A revoked grant ends the import with the reason instead of retrying in a loop.
        if (isApiError(e) && e.code === 'failed-precondition') {
          await store.update(path, { status: 'stopped', reason: e.message.slice(0, 500), updatedAt: at() });
        } else failure = errorText(e);
      } finally {
        clearInterval(beat);
      }
      note = failure ?? (outcome.retryLater ? `${outcome.retryLater} mail(s) failed temporarily (${outcome.lastTemporary})` : null);
      if (note && attempts < BATCH_ATTEMPTS && !(await isStopped())) {
        const delay = RETRY_DELAYS_S[Math.min(attempts, RETRY_DELAYS_S.length) - 1];
        await store.update(markerPath, { lastError: note.slice(0, 500) });
        await store.update(path, { retryAt: iso(clock.now() + delay * 1000), updatedAt: at() });
        await services.tasks.enqueue(MAIL_IMPORT_QUEUE, { businessId, importId, batch, ids }, { id: `mailimport-${businessId}-${importId}-${batch}-r${attempts}`, delaySeconds: delay });
        return;
      }
      if (failure) await recordUnreached(services, { businessId, accountId: rec.accountId, importId, ids, reason: failure });
    }
  }
  await store.runTransaction(async (tx) => {
    const m = (await tx.get(markerPath))?.data as unknown as Partial<BatchMarker> | undefined;
    const d = await tx.get(path);
    if (m?.doneAt || !d) return;
    const r = d.data as unknown as ImportRecord;
    const now = at();
    tx.set(markerPath, { batch, attempts, lastError: failure ?? note ?? m?.lastError ?? null, doneAt: now, failed: failure !== null });
    const done = r.batchesDone + 1;
    const failedBatches = (r.failedBatches ?? 0) + (failure !== null ? 1 : 0);
    const patch: Partial<ImportRecord> = { batchesDone: done, failedBatches, updatedAt: now };
    if (failure !== null && !r.reason) patch.reason = `batch ${batch + 1} of ${r.batches} gave up after ${Math.min(attempts, BATCH_ATTEMPTS)} runs: ${failure}`.slice(0, 500);
    if (done >= r.batches && r.status === 'running') Object.assign(patch, finalState(r, failedBatches, r.reason || patch.reason || note));
    tx.update(d.path, { ...patch });
  });
}

/** Mails of a batch that gave up before reaching them: recorded in a temporary error, so a poll tries them again. */
async function recordUnreached(services: Services, b: { businessId: string; accountId: string; importId: string; ids: string[]; reason: string }) {
  const at = iso(services.clock.now());
  for (const messageId of b.ids) {
    await recordMail(services, b.businessId, {
      seenId: seenIdOf(b.accountId, messageId),
      accountId: b.accountId,
      messageId,
      importId: b.importId,
      from: '',
      subject: '',
      date: at,
      dateMs: Date.parse(at),
      result: 'error',
      reason: `not read: ${b.reason}`.slice(0, 500),
      invoices: 0,
      docIds: [],
      search: [],
      attempts: 1,
      willRetry: true,
      createdAt: at,
    }, { onlyNew: true });
  }
}

const ZERO = { seen: 0, invoices: 0, duplicates: 0, noInvoice: 0, errors: 0, retryLater: 0 };
/** What a mail record adds to its import's counters. */
const countsOf = (m: ScannedMail | undefined, importId: string) =>
  m && m.importId === importId
    ? { seen: 1, invoices: m.invoices, duplicates: m.result === 'duplicate' ? 1 : 0, noInvoice: m.result === 'no_invoice' ? 1 : 0, errors: m.result === 'error' ? 1 : 0, retryLater: m.willRetry ? 1 : 0 }
    : ZERO;

/**
 * Writes a mail's record and moves its import's counters by the difference to what the record counted before (a mail
 * tried again within the same import replaces its own earlier count; one from an earlier import counts anew here).
 * A record that became final meanwhile is kept; `onlyNew` writes only where there is no record yet.
 */
async function recordMail(services: Services, businessId: string, rec: ScannedMail, opts: { onlyNew?: boolean } = {}): Promise<void> {
  await services.store.runTransaction(async (tx) => (await prepareMailRecord(tx, businessId, rec.seenId, opts))(rec));
}

/**
 * recordMail inside a caller's transaction: reads the mail's current record (call it before the transaction writes
 * anything) and answers the function that writes the new one. The import's counters move by increments, which read
 * nothing, so concurrent mails of an import do not conflict on them.
 */
async function prepareMailRecord(tx: Transaction, businessId: string, seenId: string, opts: { onlyNew?: boolean } = {}): Promise<(rec: ScannedMail) => void> {
  const seenPath = mailsPath(businessId, seenId);
  const cur = (await tx.get(seenPath))?.data as unknown as ScannedMail | undefined;
  return (rec) => {
    if (cur && (opts.onlyNew || !cur.willRetry)) return;
    const before = countsOf(cur, rec.importId);
    const after = countsOf(rec, rec.importId);
    tx.set(seenPath, { ...rec, createdAt: cur?.createdAt ?? rec.createdAt });
    tx.update(importsPath(businessId, rec.importId), {
      seen: increment(after.seen - before.seen),
      invoices: increment(after.invoices - before.invoices),
      duplicates: increment(after.duplicates - before.duplicates),
      noInvoice: increment(after.noInvoice - before.noInvoice),
      errors: increment(after.errors - before.errors),
      retryLater: increment(after.retryLater - before.retryLater),
      updatedAt: rec.createdAt,
    });
  };
}

/**
 * Whether a bodyInvoice rule asks for this mail's body: only its mail conditions (from, subject,
 * words, notWords, accountId, source) are checked, as nothing is read yet; the reading's conditions
 * then decide only where the printed body is filed, like any rule.
 */
export function bodyRuleMatches(rules: readonly FolderRuleRecord[], mail: { accountId: string; from: string; subject: string; date: string; messageId: string }): FolderRuleRecord | null {
  const doc: FileableDoc = {
    source: 'mailbox',
    fileName: bodyPdfName(mail.subject),
    reading: null,
    category: '',
    supplierKey: null,
    supplierName: '',
    vendorKey: null,
    mailbox: { accountId: mail.accountId, from: mail.from, subject: mail.subject, receivedAt: mail.date, messageId: mail.messageId, body: true },
  };
  for (const r of rules) {
    if (!r.enabled || !r.bodyInvoice) continue;
    const when = { ...r.when, supplier: '', amountOp: '' as const, currency: '' as const, docType: '' as const, payMethod: '' as const, category: '' };
    if (matchRule({ when }, doc)) return r;
  }
  return null;
}

/**
 * One mail: skipped when it has a final record; otherwise (new, or in a temporary error) fetched, its attachments
 * read, and recorded. Answers whether it is left in a temporary error (to be tried again later).
 */
async function importOne(
  services: Services,
  session: MailboxSession,
  m: { businessId: string; accountId: string; importId: string; messageId: string },
  /** prior: the mail's record as the batch read it. */
  o: { prior: ScannedMail | undefined; bodyRules: readonly FolderRuleRecord[]; takeAi: () => Promise<void>; ahead: FetchedAhead },
): Promise<{ retry: boolean; reason: string }> {
  const { clock } = services;
  const { prior, bodyRules, takeAi, ahead } = o;
  const seenId = seenIdOf(m.accountId, m.messageId);
  if (prior && !prior.willRetry) return { retry: false, reason: '' };
  const attempts = (prior?.attempts ?? 0) + 1;
  const at = new Date(clock.now()).toISOString();
  const build = (fields: Pick<ScannedMail, 'from' | 'subject' | 'date' | 'result' | 'reason' | 'docIds'> & { temporary: boolean }): ScannedMail => {
    const willRetry = fields.temporary && attempts < MAIL_ATTEMPTS;
    const reason = fields.temporary && !willRetry ? `gave up after ${attempts} tries: ${fields.reason}` : fields.reason;
    const rec: ScannedMail = {
      seenId,
      accountId: m.accountId,
      messageId: m.messageId,
      importId: m.importId,
      from: fields.from,
      subject: fields.subject,
      date: fields.date,
      dateMs: Number.isFinite(Date.parse(fields.date)) ? Date.parse(fields.date) : Date.parse(at),
      result: fields.result,
      reason: reason.slice(0, 500),
      invoices: fields.docIds.length,
      docIds: fields.docIds,
      // Word beginnings of sender and subject, as invoicesList's q matches them.
      search: searchTokensOf([fields.from, fields.subject], [], 120),
      attempts,
      willRetry,
      createdAt: at,
    };
    return rec;
  };
  const record = (fields: Parameters<typeof build>[0]) => {
    const rec = build(fields);
    return recordMail(services, m.businessId, rec).then(() => ({ retry: Boolean(rec.willRetry), reason: rec.reason }));
  };

  let msg: Mail;
  try {
    msg = takeAhead(ahead.messages, m.messageId) ?? (await tryAgain(services, () => session.getMessage(m.messageId, 'full')));
  } catch (e) {
    // Gone or refused: final for this mail. Failing for a while: this run stops (the provider is failing, not the mail).
    if (e instanceof MailboxError && (e.failure === 'not_found' || e.failure === 'refused')) {
      return record({ from: prior?.from ?? '', subject: prior?.subject ?? '', date: prior?.date ?? at, result: 'error', reason: `the mail could not be read: ${e.message}`, docIds: [], temporary: false });
    }
    if (isTemporary(e)) throw new ProviderFailing(errorText(e));
    throw e;
  }
  const from = headerOf(msg.payload, 'From').slice(0, 300);
  const subject = headerOf(msg.payload, 'Subject').slice(0, 500);
  const date = new Date(msg.internalDate || clock.now()).toISOString();
  let reason = '';
  let temporary = '';
  const docIds: string[] = [];
  let dups = 0;
  let errs = 0;
  /** The mail's record once it is complete, with one more attachment's outcome. */
  const summary = (last: Ingested | null) => {
    const ids = last?.outcome === 'imported' ? [...docIds, last.docId] : docIds;
    const d = dups + (last?.outcome === 'duplicate' ? 1 : 0);
    const result: MailResult = ids.length ? 'imported' : errs ? 'error' : d ? 'duplicate' : 'no_invoice';
    return { from, subject, date, result, reason: temporary || reason, docIds: ids, temporary: Boolean(temporary) };
  };
  const attachments = invoiceAttachments(msg.payload);
  for (const [k, a] of attachments.entries()) {
    let bytes: Buffer;
    try {
      bytes = a.attachmentId
        ? takeAhead(ahead.attachments, `${m.messageId}/${a.attachmentId}`) ?? (await tryAgain(services, () => session.getAttachment(m.messageId, a.attachmentId!)))
        : Buffer.from(a.data ?? '', 'base64url');
    } catch (e) {
      if (e instanceof MailboxError && e.failure === 'auth') throw e;
      errs++;
      reason = `attachment ${a.fileName} could not be fetched: ${errorText(e)}`;
      if (isTemporary(e)) temporary = reason;
      continue;
    }
    // The last attachment's transaction writes the mail's record too, when it stores the invoice or finds it a
    // duplicate: either way the mail is complete (no body to print). One commit a mail fewer (issue 23).
    const mailRecord = k === attachments.length - 1 ? (o: Ingested) => build(summary(o)) : undefined;
    const r = await ingestAttachment(services, { ...m, from, subject, date, fileName: a.fileName, partId: a.partId, bytes }, { mailRecord, takeAi });
    if (r.recorded) return { retry: Boolean(r.recorded.willRetry), reason: r.recorded.reason };
    if (r.outcome === 'imported') docIds.push(r.docId);
    else if (r.outcome === 'duplicate') dups++;
    else {
      errs++;
      reason = r.reason;
    }
  }
  // A body rule prints the body only when no attachment was an invoice (imported or a duplicate):
  // the body of a mail that carries its invoice is a cover note, and reading it would cost AI quota.
  // An attachment that could not be fetched yet may be the invoice: the body waits for the next try.
  if (!docIds.length && !dups && !temporary && bodyRuleMatches(bodyRules, { accountId: m.accountId, from, subject, date, messageId: m.messageId })) {
    const bytes = await mailToPdf({ from, subject, date, text: mailText(msg.payload), html: mailHtml(msg.payload) });
    const r = await ingestAttachment(services, { ...m, from, subject, date, fileName: bodyPdfName(subject), partId: BODY_PART, bytes }, { mailRecord: (o) => build(summary(o)), takeAi });
    if (r.recorded) return { retry: Boolean(r.recorded.willRetry), reason: r.recorded.reason };
    if (r.outcome === 'imported') docIds.push(r.docId);
    else if (r.outcome === 'duplicate') dups++;
    else {
      errs++;
      reason = r.reason;
    }
  }
  return record(summary(null));
}

export type Ingested = { outcome: 'imported'; docId: string } | { outcome: 'duplicate'; duplicateOf: string } | { outcome: 'error'; reason: string };

/**
 * One mail attachment through the upload path: AI reading (charged to the AI quota), supplier
 * matching, duplicates, folder rules with the mail's origin. The document id derives from the mail
 * and part, so a retried task finds the document it stored before.
 */
export async function ingestAttachment(
  services: Services,
  a: { businessId: string; accountId: string; messageId: string; from: string; subject: string; date: string; fileName: string; partId: string; bytes: Buffer },
  opts: {
    /** The mail's record given this attachment's outcome: written in the invoice's transaction when that stores it or finds a duplicate. */
    mailRecord?: (outcome: Ingested) => ScannedMail;
    /** Charges one AI reading (a batch's reservation); one consumeQuota of its own by default. */
    takeAi?: () => Promise<void>;
  } = {},
): Promise<Ingested & { recorded?: ScannedMail }> {
  const { store, ai, files, clock, config } = services;
  const docId = sha256(`mail:${a.accountId}/${a.messageId}/${a.partId}`).slice(0, 20);
  if (await store.get(invoicesPath(a.businessId, docId))) return { outcome: 'imported', docId };
  const contentType = sniffFileType(a.bytes);
  if (contentType !== 'application/pdf' && contentType !== 'image/jpeg' && contentType !== 'image/png') return { outcome: 'error', reason: `${a.fileName}: not a readable PDF or image` };
  // The upload caps hold for mail too: a PDF bomb is neither read nor stored.
  const refused = contentType === 'application/pdf' ? await pdfRefusal(a.bytes) : null;
  if (refused) return { outcome: 'error', reason: `${a.fileName}: ${refused}` };
  const sha = sha256Bytes(a.bytes);
  let reading: InvoiceReading | null = null;
  let status: ReadingStatus = 'unread';
  let readingError: string | null = null;
  if (ai.configured) {
    try {
      await (opts.takeAi ? opts.takeAi() : consumeQuota(store, config.quotas, a.businessId, 'ai', 1, clock.now()));
    } catch (e) {
      if (isApiError(e) && e.code === 'resource-exhausted') throw new StopImport(`stopped: ${e.message}`);
      throw e;
    }
    const r = await readInvoiceSafely(ai, { bytes: a.bytes, contentType, fileName: a.fileName });
    if (!r.ok) return { outcome: 'error', reason: `${a.fileName}: ${r.reason}` };
    [reading, status] = [r.value, 'read'];
  } else readingError = 'AI is not configured (no GEMINI_API_KEY): stored unread';
  const matched = await matchSupplier(store, a.businessId, reading);
  const now = clock.now();
  const at = new Date(now).toISOString();
  // The file's records commit with the invoice, in its transaction: one commit a mail fewer (issue 23).
  const staged = await files.stage(a.businessId, { fileName: a.fileName, contentType, bytes: a.bytes });
  const ref = staged.ref;
  const base = newInvoiceDoc(
    { docId, businessId: a.businessId, fileId: ref.fileId, fileName: a.fileName, contentType, size: a.bytes.length, sha256: sha, source: 'mailbox', createdAtMs: now },
    { reading, readingStatus: status, readingError, readAt: status === 'read' ? at : null, mailbox: { accountId: a.accountId, from: a.from, subject: a.subject, receivedAt: a.date, messageId: a.messageId, body: a.partId === BODY_PART } },
  );
  const attempt = () =>
    store.runTransaction(async (tx) => {
      if (await tx.get(invoicesPath(a.businessId, docId))) return { existed: true as const };
      const writeMail = opts.mailRecord ? await prepareMailRecord(tx, a.businessId, seenIdOf(a.accountId, a.messageId)) : null;
      const settled = await settleDocument(tx, { businessId: a.businessId, at, doc: base, previous: null, matched, refile: true });
      const duplicateOf = settled.duplicate.duplicateOf;
      const mail = (o: Ingested) => {
        if (!writeMail) return undefined;
        const rec = opts.mailRecord!(o);
        writeMail(rec);
        return rec;
      };
      if (duplicateOf) return { existed: false as const, duplicateOf, recorded: mail({ outcome: 'duplicate', duplicateOf }) };
      staged.record(tx);
      settled.commit();
      return { existed: false as const, duplicateOf: null, recorded: mail({ outcome: 'imported', docId }) };
    });
  let out;
  try {
    try {
      out = await attempt();
    } catch (e) {
      if (!isApiError(e) || e.code !== 'already-exists') throw e;
      out = await attempt();
    }
  } catch (e) {
    await staged.discard().catch(() => undefined);
    throw e;
  }
  // Nothing recorded the file: only its bytes go.
  if (out.existed || out.duplicateOf) await staged.discard().catch(() => undefined);
  if (out.existed) return { outcome: 'imported', docId };
  if (out.duplicateOf) return { outcome: 'duplicate', duplicateOf: out.duplicateOf, recorded: out.recorded };
  return { outcome: 'imported', docId, recorded: out.recorded };
}

export { systemCaller, ApiError };
