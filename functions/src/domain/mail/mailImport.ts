import type { Caller, Services } from '../../core/context.ts';
import { ApiError, isApiError, notFound } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { consumeQuota } from '../../core/quota.ts';
import { sniffFileType } from '../../core/fileTypes.ts';
import { pdfRefusal } from '../../core/pdfInflation.ts';
import { increment } from '../../ports/store.ts';
import { invoicesPath, type InvoiceReading, type ReadingStatus } from '../invoices/invoices.ts';
import { matchSupplier, newInvoiceDoc, readInvoiceSafely, settleDocument, sha256Bytes } from '../invoices/invoiceDocs.ts';
import { withMailbox, getMailbox } from './mailboxes.ts';
import type { Mail, MailPart, MailboxSession } from '../../ports/mailbox.ts';
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

export type ImportStatus = 'running' | 'done' | 'canceled' | 'stopped';
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
    out.push({ partId: p.partId ?? '', fileName: decodeHeader(p.filename).replace(/[\\/\u0000-\u001f]/g, '_').slice(0, 200), attachmentId: p.body?.attachmentId ?? null, data: p.body?.data ?? null });
  };
  walk(payload);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Starting, waiting, canceling

export const importView = (r: ImportRecord) => ({
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
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

async function readImport(services: Services, businessId: string, importId: string): Promise<ImportRecord | null> {
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
    await services.store.update(path, { status: 'stopped', reason: (e instanceof Error ? e.message : String(e)).slice(0, 500), updatedAt: new Date(services.clock.now()).toISOString() });
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
    if (!r) throw notFound(`importId: import ${importId}`);
    if (r.status !== 'running' || Date.now() >= deadline) return r;
    await new Promise((res) => setTimeout(res, Math.min(500, Math.max(0, deadline - Date.now()))));
  }
}

export async function cancelImport(services: Services, businessId: string, importId: string): Promise<ImportRecord> {
  const path = importsPath(businessId, importId);
  return services.store.runTransaction(async (tx) => {
    const d = await tx.get(path);
    if (!d) throw notFound(`importId: import ${importId}`);
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

/**
 * Imports these message ids of the mailbox: each becomes a scanned-mail record (once), its
 * attachments invoice documents. Issue 9's automations call this with the ids they found.
 */
export async function importMessages(services: Services, opts: { businessId: string; accountId: string; importId: string; ids: string[]; isStopped: () => Promise<boolean> }): Promise<void> {
  const { businessId, accountId } = opts;
  const parallel = Math.max(1, services.config.mailboxImportParallelism);
  // Read once per batch: a rule saved mid-import applies from the next batch on.
  const bodyRules = (await loadRules(services.store, businessId)).filter((r) => r.enabled && r.bodyInvoice);
  await withMailbox(services, businessId, accountId, async (session) => {
    let next = 0;
    let stop = false;
    const worker = async () => {
      while (!stop && next < opts.ids.length) {
        const id = opts.ids[next++];
        if (await opts.isStopped()) {
          stop = true;
          return;
        }
        try {
          await importOne(services, session, { businessId, accountId, importId: opts.importId, messageId: id }, bodyRules);
        } catch (e) {
          if (e instanceof StopImport) {
            stop = true;
            await services.store.update(importsPath(businessId, opts.importId), { status: 'stopped', reason: e.message.slice(0, 500), updatedAt: new Date(services.clock.now()).toISOString() }).catch(() => undefined);
            return;
          }
          throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, opts.ids.length) }, worker));
  });
}

export async function runImportBatch(services: Services, payload: Record<string, unknown>): Promise<void> {
  const businessId = String(payload.businessId);
  const importId = String(payload.importId);
  const batch = Number(payload.batch);
  const ids = (payload.ids as string[]) ?? [];
  const rec = await readImport(services, businessId, importId);
  if (!rec) return;
  const markerPath = `${importsPath(businessId, importId)}/batches/${batch}`;
  if (await services.store.get(markerPath)) return;
  const isStopped = async () => (await readImport(services, businessId, importId))?.status !== 'running';
  if (rec.status === 'running') {
    try {
      await importMessages(services, { businessId, accountId: rec.accountId, importId, ids, isStopped });
    } catch (e) {
      // A revoked grant ends the import with the reason instead of retrying in a loop.
      if (isApiError(e) && e.code === 'failed-precondition') {
        await services.store.update(importsPath(businessId, importId), { status: 'stopped', reason: e.message.slice(0, 500), updatedAt: new Date(services.clock.now()).toISOString() });
      } else throw e;
    }
  }
  await services.store.runTransaction(async (tx) => {
    const m = await tx.get(markerPath);
    const d = await tx.get(importsPath(businessId, importId));
    if (m || !d) return;
    const r = d.data as unknown as ImportRecord;
    tx.set(markerPath, { batch, doneAt: new Date(services.clock.now()).toISOString() });
    const done = r.batchesDone + 1;
    tx.update(d.path, { batchesDone: done, ...(done >= r.batches && r.status === 'running' ? { status: 'done' } : {}), updatedAt: new Date(services.clock.now()).toISOString() });
  });
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

async function importOne(services: Services, session: MailboxSession, m: { businessId: string; accountId: string; importId: string; messageId: string }, bodyRules: readonly FolderRuleRecord[] = []): Promise<void> {
  const { store, clock } = services;
  const seenId = seenIdOf(m.accountId, m.messageId);
  const seenPath = mailsPath(m.businessId, seenId);
  const prior = await store.get(seenPath);
  if (prior) return;
  const msg: Mail = await session.getMessage(m.messageId, 'full');
  const from = headerOf(msg.payload, 'From').slice(0, 300);
  const subject = headerOf(msg.payload, 'Subject').slice(0, 500);
  const date = new Date(msg.internalDate || clock.now()).toISOString();
  let result: MailResult = 'no_invoice';
  let reason = '';
  const docIds: string[] = [];
  let dups = 0;
  let errs = 0;
  for (const a of invoiceAttachments(msg.payload)) {
    let bytes: Buffer;
    try {
      bytes = a.attachmentId ? await session.getAttachment(m.messageId, a.attachmentId) : Buffer.from(a.data ?? '', 'base64url');
    } catch (e) {
      errs++;
      reason = `attachment ${a.fileName} could not be fetched: ${e instanceof Error ? e.message : String(e)}`;
      continue;
    }
    const r = await ingestAttachment(services, { ...m, from, subject, date, fileName: a.fileName, partId: a.partId, bytes });
    if (r.outcome === 'imported') docIds.push(r.docId);
    else if (r.outcome === 'duplicate') dups++;
    else {
      errs++;
      reason = r.reason;
    }
  }
  // A body rule prints the body only when no attachment was an invoice (imported or a duplicate):
  // the body of a mail that carries its invoice is a cover note, and reading it would cost AI quota.
  if (!docIds.length && !dups && bodyRuleMatches(bodyRules, { accountId: m.accountId, from, subject, date, messageId: m.messageId })) {
    const bytes = await mailToPdf({ from, subject, date, text: mailText(msg.payload), html: mailHtml(msg.payload) });
    const r = await ingestAttachment(services, { ...m, from, subject, date, fileName: bodyPdfName(subject), partId: BODY_PART, bytes });
    if (r.outcome === 'imported') docIds.push(r.docId);
    else if (r.outcome === 'duplicate') dups++;
    else {
      errs++;
      reason = r.reason;
    }
  }
  if (docIds.length) result = 'imported';
  else if (errs) result = 'error';
  else if (dups) result = 'duplicate';
  const at = new Date(clock.now()).toISOString();
  const rec: ScannedMail = {
    seenId,
    accountId: m.accountId,
    messageId: m.messageId,
    importId: m.importId,
    from,
    subject,
    date,
    dateMs: Number.isFinite(Date.parse(date)) ? Date.parse(date) : Date.parse(at),
    result,
    reason: reason.slice(0, 500),
    invoices: docIds.length,
    docIds,
    // Word beginnings of sender and subject, as invoicesList's q matches them.
    search: searchTokensOf([from, subject], [], 120),
    createdAt: at,
  };
  await store.runTransaction(async (tx) => {
    if (await tx.get(seenPath)) return;
    tx.create(seenPath, { ...rec });
    tx.update(importsPath(m.businessId, m.importId), {
      seen: increment(1),
      invoices: increment(docIds.length),
      duplicates: increment(result === 'duplicate' ? 1 : 0),
      noInvoice: increment(result === 'no_invoice' ? 1 : 0),
      errors: increment(result === 'error' ? 1 : 0),
      updatedAt: at,
    });
  });
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
): Promise<Ingested> {
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
      await consumeQuota(store, config.quotas, a.businessId, 'ai', 1, clock.now());
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
  const ref = await files.save(a.businessId, { fileName: a.fileName, contentType, bytes: a.bytes });
  const base = newInvoiceDoc(
    { docId, businessId: a.businessId, fileId: ref.fileId, fileName: a.fileName, contentType, size: a.bytes.length, sha256: sha, source: 'mailbox', createdAtMs: now },
    { reading, readingStatus: status, readingError, readAt: status === 'read' ? at : null, mailbox: { accountId: a.accountId, from: a.from, subject: a.subject, receivedAt: a.date, messageId: a.messageId, body: a.partId === BODY_PART } },
  );
  const attempt = () =>
    store.runTransaction(async (tx) => {
      if (await tx.get(invoicesPath(a.businessId, docId))) return { existed: true as const };
      const settled = await settleDocument(tx, { businessId: a.businessId, at, doc: base, previous: null, matched, refile: true });
      if (settled.duplicate.duplicateOf) return { existed: false as const, duplicateOf: settled.duplicate.duplicateOf };
      settled.commit();
      return { existed: false as const, duplicateOf: null };
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
    await files.remove(a.businessId, ref.fileId).catch(() => undefined);
    throw e;
  }
  if (out.existed || out.duplicateOf) await files.remove(a.businessId, ref.fileId).catch(() => undefined);
  if (out.existed) return { outcome: 'imported', docId };
  if (out.duplicateOf) return { outcome: 'duplicate', duplicateOf: out.duplicateOf };
  return { outcome: 'imported', docId };
}

export { systemCaller, ApiError };
