import { createHash } from 'node:crypto';
import type { Services, Caller } from '../../core/context.ts';
import type { Doc, Reader, Transaction, UpdateData } from '../../ports/store.ts';
import type { FileRef } from '../../core/files.ts';
import { ApiError, isApiError, notFound } from '../../core/errors.ts';
import { iso } from '../../core/clock.ts';
import { appendActivity, type ActivityParams } from '../../core/activity.ts';
import { enqueueDelivery, stageMessage } from '../../core/outbox.ts';
import type { OutboundMessage } from '../../ports/outbox.ts';
import { normalizeEmail, supplierKeyOf } from '../contacts.ts';
import { businessPath } from '../business.ts';
import { businessContact, businessNotifications, type BusinessContact } from './paymentMessages.ts';
import { countAnonymousPayment, knownPayout, recordPaymentToSupplier, suppliersPath, type SupplierRecord } from './suppliers.ts';
import { currentSupplierKey } from './supplierAliases.ts';
import { publicSlugPath } from '../publicLink.ts';
import { supplierInvoiceArrived } from '../invoices/supplierInvoices.ts';
import { filerReceiptEmail } from '../../emails/messages.ts';
import { approverNotices, type ApproverNotice } from './approvalNotices.ts';
import type { EmailLang } from '../../emails/render.ts';
import {
  assertAllowed,
  maskPayout,
  newPaymentLink,
  payoutDiffers,
  paymentSearchTokens,
  paymentsPath,
  statusAfterSubmission,
  supplierLinkPath,
  type Payout,
  type PaymentFile,
  type PaymentRecord,
  type PaymentStatus,
} from './payments.ts';
import { KEPT_SUBMISSIONS, isSubmissionId, isLinkToken, linkSubmissionPath, type Problems, SubmissionInvalid, type PayoutFields, type Upload, type Checked, type SubmissionResult, checkPhone, payoutMethodsFor, checkPayout, checkAmount, checkInvoice } from './submissionChecks.ts';

/**
 * What a supplier does on the public pages, free of HTTP: give payout details, attach an invoice,
 * or file a request through a business's standing link. Every change runs in one transaction that
 * reads before it writes; a form's submission id makes a replay change nothing.
 */

// The checks live in submissionChecks.ts; re-exported for the pages and operations that use them from here.
export { MAX_INVOICE_BYTES, KEPT_SUBMISSIONS, newSubmissionId, isSubmissionId, isLinkToken, linkSubmissionPath, type Problem, type Problems, SubmissionInvalid, isSubmissionInvalid, type PayoutFields, type Upload, type SubmissionResult, payoutMethodsFor, checkPayout, accountLengthFor, parseMajorAmount, checkInvoice } from './submissionChecks.ts';

/** Resolves a supplier link to its payment; null for an unknown or rotated token. */
export async function paymentByToken(reader: Reader, token: string): Promise<PaymentRecord | null> {
  if (!isLinkToken(token)) return null;
  const link = await reader.get(supplierLinkPath(token));
  if (!link) return null;
  const { businessId, paymentId } = link.data as { businessId: string; paymentId: string };
  const doc = await reader.get(paymentsPath(businessId, paymentId));
  const payment = doc?.data as PaymentRecord | undefined;
  return payment && payment.linkToken === token ? payment : null;
}

/** Resolves a standing-link slug to its business id; null when no business holds it. */
export async function businessBySlug(reader: Reader, slug: string): Promise<string | null> {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) || slug.length > 40) return null;
  const rec = await reader.get(publicSlugPath(slug));
  const businessId = rec?.data.businessId as string | undefined;
  if (!businessId) return null;
  const business = await reader.get(businessPath(businessId));
  return business && business.data.publicSlug === slug ? businessId : null;
}

const toPaymentFile = (ref: FileRef, sha256: string, at: string): PaymentFile => ({
  fileId: ref.fileId,
  fileName: ref.fileName,
  contentType: ref.contentType,
  size: ref.size,
  sha256,
  uploadedAt: at,
});

const withSubmission = (p: PaymentRecord, id: string) => [...(p.submissions ?? []), id].slice(-KEPT_SUBMISSIONS);

/** What a transaction produced: the outbox records to enqueue once it committed. */
interface Applied extends SubmissionResult {
  staged: Staged[];
}

/** A staged message's record and channel (each channel is delivered from its own queue). */
type Staged = { path: string; channel: OutboundMessage['channel'] };

/**
 * Saves the file before the transaction (bytes cannot go into one), runs it, then removes the
 * file when the transaction failed or did not keep it, and enqueues the staged messages.
 */
async function withFile<R extends Applied>(s: Services, businessId: string, file: Checked | null, run: (saved: PaymentFile | null) => Promise<R>): Promise<R> {
  const saved = file ? toPaymentFile(await s.files.save(businessId, file), file.sha256, iso(s.clock.now())) : null;
  let out: R;
  try {
    out = await run(saved);
  } catch (e) {
    if (saved) await discard(s, businessId, saved.fileId);
    throw e;
  }
  if (saved && !out.invoiceAdded) await discard(s, businessId, saved.fileId);
  // The new invoice is listed at once and read with AI by a task (domain/invoices/supplierInvoices.ts).
  if (saved && out.invoiceAdded) await supplierInvoiceArrived(s, businessId, out.payment, saved);
  for (const { path, channel } of out.staged) {
    try {
      await enqueueDelivery(s.tasks, path, channel);
    } catch (e) {
      s.logger.error('could not enqueue outbox delivery; the sweeper will pick it up', { path, error: String(e) });
    }
  }
  return out;
}

async function discard(s: Services, businessId: string, fileId: string) {
  try {
    await s.files.remove(businessId, fileId);
  } catch (e) {
    s.logger.warn('could not remove an unused upload', { businessId, fileId, error: String(e) });
  }
}

async function stageAll(s: Services, tx: Transaction, businessId: string, kind: 'ready' | 'lateInvoice' | 'publicFiling', p: PaymentRecord, to: BusinessContact | null, reason: string): Promise<Staged[]> {
  if (!to) return [];
  return (await businessNotifications(s.config, kind, p, to)).map((m) => ({ path: stageMessage(tx, businessId, s.ids(), m, reason, s.clock.now(), p.id, s.config.credentialsKey), channel: m.channel }));
}

/** The approvers' emails (approvalNotices.ts), staged under their own ids after the transaction's writes. */
function stageNotices(s: Services, tx: Transaction, businessId: string, p: PaymentRecord, notices: ApproverNotice[], reason: string): Staged[] {
  return notices.map((n) => ({ path: stageMessage(tx, businessId, n.id, n.message, reason, s.clock.now(), p.id, s.config.credentialsKey), channel: n.message.channel }));
}

/** The page's language, remembered for the supplier's later emails (on the payment and the supplier). */
const langChange = (p: PaymentRecord, lang: EmailLang | undefined): Partial<PaymentRecord> => (lang && lang !== p.supplierLang ? { supplierLang: lang } : {});

/** The supplier pages act as no user; activity rows name the link instead. */
const linkActor = (businessId: string, userId: string, keyName: string): Caller => ({ businessId, userId, email: '', role: 'user', keyName });

async function note(s: Services, actor: Caller, operation: string, paymentId: string, summary: string, params: ActivityParams) {
  try {
    await appendActivity(s.store, s.ids, actor, s.clock.now(), { operation, kind: 'payments', params, targetIds: [paymentId], summary });
  } catch (e) {
    s.logger.warn('could not write the activity row', { operation, paymentId, error: String(e) });
  }
}

async function requirePayment(token: string, reader: Reader): Promise<PaymentRecord> {
  const p = await paymentByToken(reader, token);
  if (!p) throw notFound('payment link', 'link');
  return p;
}

const replayed = (payment: PaymentRecord): Applied => ({ outcome: 'replayed', payment, invoiceAdded: false, staged: [] });

/** A payment takes at most `pageLimits.filesPerPayment` files from the link (anonymous uploads are bounded). */
export class TooManyFiles extends ApiError {
  constructor(max: number) {
    super('resource-exhausted', `this payment already holds ${max} files, the most it takes`, { reason: 'tooManyFiles', params: { max } });
  }
}
function assertRoomForFile(s: Services, p: PaymentRecord) {
  const max = s.config.pageLimits.filesPerPayment;
  if ((p.invoices?.length ?? 0) >= max) throw new TooManyFiles(max);
}

/** A payment that already holds payout details (a standing-link filing under review) takes no new ones. */
const payoutGiven = () => new ApiError('failed-precondition', 'payout details were already given for this payment', { reason: 'payoutAlreadyGiven' });

export interface SubmitPayoutInput {
  token: string;
  submissionId: string;
  payout: PayoutFields;
  /** Major units as typed; used only when the payment has an open amount. */
  amount?: string;
  invoice?: Upload | null;
  /** The page's language: the supplier's later emails follow it. */
  lang?: EmailLang;
}

/**
 * The supplier gives payout details (and maybe the invoice): sent → ready, or → awaiting_invoice
 * while a required invoice is missing. The details also go to the supplier's `supplierSide`.
 */
export async function submitPayout(s: Services, input: SubmitPayoutInput): Promise<SubmissionResult> {
  if (!isSubmissionId(input.submissionId)) throw new ApiError('invalid-argument', 'submissionId: missing or malformed', { reason: 'badLink' });
  const pre = await requirePayment(input.token, s.store);
  if (pre.submissions?.includes(input.submissionId)) return replayed(pre);
  assertAllowed('supplierSubmit', pre.status);
  if (pre.payout) throw payoutGiven();

  const problems: Problems = {};
  const payout = checkPayout(input.payout, payoutMethodsFor(pre), problems, pre.currency ?? 'ILS');
  const amount = pre.openAmount && (input.amount?.trim() || pre.amountAgorot === 0) ? checkAmount(input.amount, problems) : null;
  let file = input.invoice ? await checkInvoice(input.invoice, problems) : null;
  if (Object.keys(problems).length || !payout) throw new SubmissionInvalid(problems);
  if (file && pre.invoices.some((f) => f.sha256 === file!.sha256)) file = null;

  const { businessId, id } = pre;
  const out = await withFile(s, businessId, file, (saved) =>
    s.store.runTransaction(async (tx): Promise<Applied> => {
      const doc = await tx.get(paymentsPath(businessId, id));
      if (!doc) throw notFound('payment', 'payment');
      const p = doc.data as unknown as PaymentRecord;
      const supplier = await tx.get(suppliersPath(businessId, p.supplierKey));
      const contact = await businessContact(tx, businessId);
      if (p.submissions?.includes(input.submissionId)) return replayed(p);
      assertAllowed('supplierSubmit', p.status);
      if (p.payout) throw payoutGiven();
      if (p.payMethods.length && !p.payMethods.includes(payout.method)) throw new SubmissionInvalid({ method: 'method' });

      const at = iso(s.clock.now());
      const added = saved !== null && !p.invoices.some((f) => f.sha256 === saved.sha256);
      const invoices = added ? [...p.invoices, saved] : p.invoices;
      const status: PaymentStatus = statusAfterSubmission({ invoiceRequired: p.invoiceRequired, invoices });
      // Details that differ from the ones known for this supplier (Israeli account, Bit, or IBAN/SWIFT abroad) are flagged.
      const known = knownPayout((supplier?.data as SupplierRecord | undefined) ?? null);
      const changed = known !== null && payoutDiffers(known, payout);
      const changes = {
        status,
        payout,
        payoutChanged: changed,
        payoutChange: changed ? { previous: maskPayout(known), filed: maskPayout(payout) } : null,
        ...langChange(p, input.lang),
        amountAgorot: p.openAmount && amount !== null ? amount : p.amountAgorot,
        invoices,
        submissions: withSubmission(p, input.submissionId),
        supplierSubmittedAt: at,
        readyAt: status === 'ready' ? at : p.readyAt,
        updatedAt: at,
      } satisfies Partial<PaymentRecord>;
      const next: PaymentRecord = { ...p, ...changes };
      const notices = await approverNotices(s.config, tx, p, next, contact);
      tx.update(doc.path, changes as UpdateData);
      writeSupplierSide(tx, businessId, p, supplier, { ...payout, submittedAt: at }, at, input.lang);
      const staged = status === 'ready' ? await stageAll(s, tx, businessId, 'ready', next, contact, 'supplierSubmit') : [];
      staged.push(...stageNotices(s, tx, businessId, next, notices, 'approvalNeeded'));
      return { outcome: 'applied', payment: next, invoiceAdded: added, staged };
    }),
  );
  if (out.outcome === 'applied') {
    await note(s, linkActor(businessId, 'supplier-link', 'supplier link'), 'supplierSubmit', id, `${out.payment.supplierName} gave ${payout.method} payout details; the payment is ${out.payment.status}`, { supplier: out.payment.supplierName, status: out.payment.status });
  }
  return publicResult(out);
}

/** The supplier side of the supplier record; a payment whose supplier record is missing gets one. */
function writeSupplierSide(tx: Transaction, businessId: string, p: PaymentRecord, supplier: Doc | null, side: SupplierRecord['supplierSide'], at: string, lang: EmailLang | undefined) {
  if (supplier) {
    tx.update(supplier.path, { supplierSide: side, ...(lang ? { lang } : {}), updatedAt: at });
    return;
  }
  const record: SupplierRecord = {
    key: p.supplierKey,
    name: p.supplierName,
    phone: p.supplierPhone,
    email: p.supplierEmail,
    kind: 'supplier',
    manual: false,
    paymentCount: 1,
    lastPaymentAt: p.createdAt,
    card: {},
    supplierSide: side,
    ...(lang ? { lang } : {}),
    createdAt: at,
    updatedAt: at,
  };
  tx.set(suppliersPath(businessId, p.supplierKey), { ...record });
}

export interface AttachInvoiceInput {
  token: string;
  submissionId: string;
  invoice: Upload | null;
  lang?: EmailLang;
}

/**
 * An invoice arrives after the payout details: awaiting_invoice → ready (business told), on a paid
 * payment it is a late invoice (business told per notifyLateInvoice*), otherwise it is just kept.
 */
export async function attachInvoice(s: Services, input: AttachInvoiceInput): Promise<SubmissionResult> {
  if (!isSubmissionId(input.submissionId)) throw new ApiError('invalid-argument', 'submissionId: missing or malformed', { reason: 'badLink' });
  const pre = await requirePayment(input.token, s.store);
  if (pre.submissions?.includes(input.submissionId)) return replayed(pre);
  assertAllowed('attachInvoice', pre.status);

  const problems: Problems = {};
  const file = input.invoice ? await checkInvoice(input.invoice, problems) : null;
  if (!input.invoice) problems.invoice = 'required';
  if (!file) throw new SubmissionInvalid(problems);
  const known = pre.invoices.some((f) => f.sha256 === file.sha256);
  if (!known) assertRoomForFile(s, pre);

  const { businessId, id } = pre;
  const out = await withFile(s, businessId, known ? null : file, (saved) =>
    s.store.runTransaction(async (tx): Promise<Applied> => {
      const doc = await tx.get(paymentsPath(businessId, id));
      if (!doc) throw notFound('payment', 'payment');
      const p = doc.data as unknown as PaymentRecord;
      const contact = await businessContact(tx, businessId);
      if (p.submissions?.includes(input.submissionId)) return replayed(p);
      assertAllowed('attachInvoice', p.status);
      if (saved && !p.invoices.some((f) => f.sha256 === saved.sha256)) assertRoomForFile(s, p);

      const at = iso(s.clock.now());
      const added = saved !== null && !p.invoices.some((f) => f.sha256 === saved.sha256);
      const invoices = added ? [...p.invoices, saved] : p.invoices;
      const turnsReady = p.status === 'awaiting_invoice' && statusAfterSubmission({ invoiceRequired: p.invoiceRequired, invoices }) === 'ready';
      const changes = {
        status: turnsReady ? 'ready' : p.status,
        ...langChange(p, input.lang),
        invoices,
        submissions: withSubmission(p, input.submissionId),
        readyAt: turnsReady ? at : p.readyAt,
        updatedAt: at,
      } satisfies Partial<PaymentRecord>;
      const next: PaymentRecord = { ...p, ...changes };
      const notices = await approverNotices(s.config, tx, p, next, contact);
      tx.update(doc.path, changes as UpdateData);
      const staged = turnsReady
        ? await stageAll(s, tx, businessId, 'ready', next, contact, 'supplierInvoice')
        : p.status === 'paid' && added
          ? await stageAll(s, tx, businessId, 'lateInvoice', next, contact, 'lateInvoice')
          : [];
      staged.push(...stageNotices(s, tx, businessId, next, notices, 'approvalNeeded'));
      return { outcome: 'applied', payment: next, invoiceAdded: added, staged };
    }),
  );
  if (out.invoiceAdded) {
    await note(s, linkActor(businessId, 'supplier-link', 'supplier link'), 'supplierInvoice', id, `${out.payment.supplierName} attached an invoice; the payment is ${out.payment.status}`, { supplier: out.payment.supplierName, status: out.payment.status });
  }
  return publicResult(out);
}

const DAY_MS = 86_400_000;
/** Recent standing-link filings by their content (TTL: a day), so a re-posted form files nothing new. */
const filingPath = (businessId: string, key: string) => `businesses/${businessId}/linkFilings/${key}`;

export interface StandingRequestInput {
  slug: string;
  submissionId: string;
  name?: string;
  phone?: string;
  email?: string;
  /** Major units as typed. */
  amount?: string;
  vatIncluded?: boolean;
  /** The filer charges no VAT (an exempt dealer). */
  noVat?: boolean;
  description?: string;
  payout: PayoutFields;
  invoice?: Upload | null;
  /** The page's language: the filer's emails follow it. */
  lang?: EmailLang;
}

/**
 * Anyone files a payment request through a business's standing link. Payout details are required
 * there, so the payment starts where a supplier's submission would take it (ready, or
 * awaiting_invoice): channel link, nothing delivered, the business notified.
 */
export async function fileStandingRequest(s: Services, input: StandingRequestInput): Promise<SubmissionResult> {
  if (!isSubmissionId(input.submissionId)) throw new ApiError('invalid-argument', 'submissionId: missing or malformed', { reason: 'badLink' });
  const businessId = await businessBySlug(s.store, input.slug);
  if (!businessId) throw notFound('public link', 'link');
  const firstTime = await replayOf(s.store, businessId, input.submissionId);
  if (firstTime) return publicResult(replayed(firstTime));

  const problems: Problems = {};
  const name = (input.name ?? '').trim();
  if (!name) problems.name = 'required';
  else if (name.length > 200) problems.name = 'tooLong';
  const phone = checkPhone(input.phone, 'phone', problems);
  let email: string | null = null;
  const emailText = (input.email ?? '').trim();
  if (emailText.length > 254) problems.email = 'email';
  else if (emailText) {
    try {
      email = normalizeEmail(emailText, 'email');
    } catch {
      problems.email = 'email';
    }
  }
  if (!phone && !email && !problems.phone && !problems.email) problems.contact = 'contact';
  const amount = checkAmount(input.amount, problems);
  const description = (input.description ?? '').trim();
  if (!description) problems.description = 'required';
  else if (description.length > 2000) problems.description = 'tooLong';
  const payout = checkPayout(input.payout, [], problems);
  const file = input.invoice ? await checkInvoice(input.invoice, problems) : null;
  if (Object.keys(problems).length || !payout || amount === null) throw new SubmissionInvalid(problems);

  const contactKey = supplierKeyOf({ phone, email });
  const contentKey = createHash('sha256')
    .update(JSON.stringify([name, phone, email, amount, description, input.vatIncluded === true, input.noVat === true, payout]))
    .digest('hex')
    .slice(0, 40);
  const attempt = () =>
    withFile(s, businessId, file, (saved) =>
      s.store.runTransaction(async (tx): Promise<Applied> => {
        const mark = await tx.get(linkSubmissionPath(businessId, input.submissionId));
        if (mark) {
          const first = await tx.get(paymentsPath(businessId, String(mark.data.paymentId)));
          if (!first) throw notFound('payment', 'payment');
          return replayed(first.data as unknown as PaymentRecord);
        }
        // Back, then Send again, re-posts the same form under a new submission id: the same content within a day is the same filing.
        const sameForm = await tx.get(filingPath(businessId, contentKey));
        if (sameForm && s.clock.now() - Number(sameForm.data.createdAtMs) < DAY_MS) {
          const first = await tx.get(paymentsPath(businessId, String(sameForm.data.paymentId)));
          if (first) return replayed(first.data as unknown as PaymentRecord);
        }
        // A merged supplier's contact files under the supplier it was merged into (supplierMerge).
        const supplierKey = await currentSupplierKey(tx, businessId, contactKey);
        const supplierDoc = await tx.get(suppliersPath(businessId, supplierKey));
        const contact = await businessContact(tx, businessId);

        const now = s.clock.now();
        const at = iso(now);
        const link = newPaymentLink(s.config.publicLinkBase);
        const invoices = saved ? [saved] : [];
        // Nobody verified the filer: unless the business opted in, the owner reviews before it counts as ready.
        const autoReady = contact?.publicFilingsReady === true;
        const status = autoReady ? statusAfterSubmission({ invoiceRequired: false, invoices }) : 'sent';
        const known = knownPayout((supplierDoc?.data as SupplierRecord | undefined) ?? null);
        const changed = known !== null && payoutDiffers(known, payout);
        const payment: PaymentRecord = {
          id: s.ids(),
          businessId,
          status,
          supplierName: name,
          supplierPhone: phone,
          supplierEmail: email,
          supplierKey,
          amountAgorot: amount,
          openAmount: false,
          currency: 'ILS',
          vatIncluded: input.vatIncluded === true,
          noVat: input.noVat === true,
          invoiceRequired: false,
          payMethods: [],
          description,
          channel: 'link',
          linkToken: link.token,
          invoices,
          proof: null,
          payout,
          itaVerdict: null,
          invoiceNumber: '',
          search: paymentSearchTokens({ supplierName: name, description, invoiceNumber: '' }),
          submissions: [input.submissionId],
          supplierLang: input.lang ?? 'he',
          viaPublicLink: true,
          filedBy: 'public',
          needsReview: !autoReady,
          payoutChanged: changed,
          payoutChange: changed ? { previous: maskPayout(known), filed: maskPayout(payout) } : null,
          createdAt: at,
          createdAtMs: now,
          updatedAt: at,
          sentAt: null, // channel link: nothing is sent (as createPayment does)
          supplierSubmittedAt: at,
          readyAt: status === 'ready' ? at : null,
          paidAt: null,
          canceledAt: null,
        };
        const notices = await approverNotices(s.config, tx, null, payment, contact);
        tx.create(paymentsPath(businessId, payment.id), { ...payment });
        tx.create(link.path, { businessId, paymentId: payment.id });
        tx.create(linkSubmissionPath(businessId, input.submissionId), { paymentId: payment.id, createdAt: at });
        tx.set(filingPath(businessId, contentKey), { paymentId: payment.id, createdAtMs: now, expireAt: new Date(now + DAY_MS).toISOString(), expireAtMs: now + DAY_MS });
        if (supplierDoc) {
          countAnonymousPayment(tx, businessId, supplierDoc.data as unknown as SupplierRecord, supplierKey, at);
        } else {
          const side = { ...payout, name, submittedAt: at };
          recordPaymentToSupplier(sideWriter(tx, suppliersPath(businessId, supplierKey), side), businessId, null, payment, at);
        }
        const staged = await stageAll(s, tx, businessId, 'publicFiling', payment, contact, 'publicLinkRequest');
        staged.push(...stageNotices(s, tx, businessId, payment, notices, 'approvalNeeded'));
        // The filer who gave an email gets their request's own page, to follow it and add an invoice later.
        if (email && contact) {
          const receipt = await filerReceiptEmail(s.config, contact, payment, link.url, payment.supplierLang ?? 'he');
          staged.push({ path: stageMessage(tx, businessId, s.ids(), receipt, 'publicLinkFiler', now, payment.id, s.config.credentialsKey), channel: receipt.channel });
        }
        return { outcome: 'applied', payment, invoiceAdded: saved !== null, staged };
      }),
    );
  let out: Applied;
  try {
    out = await attempt();
  } catch (e) {
    // A twin request committed the same submission id first (on Firestore, as a failed create).
    const first = isApiError(e) && e.code === 'already-exists' ? await replayOf(s.store, businessId, input.submissionId) : null;
    if (!first) throw e;
    out = replayed(first);
  }
  if (out.outcome === 'applied') {
    const p = out.payment;
    await note(s, linkActor(businessId, 'public-link', 'public link'), 'publicLinkRequest', p.id, `${p.supplierName} filed a payment request through the public link; the payment is ${p.status}`, { supplier: p.supplierName, status: p.status });
  }
  return publicResult(out);
}

async function replayOf(reader: Reader, businessId: string, submissionId: string): Promise<PaymentRecord | null> {
  const mark = await reader.get(linkSubmissionPath(businessId, submissionId));
  if (!mark) return null;
  const doc = await reader.get(paymentsPath(businessId, String(mark.data.paymentId)));
  return doc ? (doc.data as unknown as PaymentRecord) : null;
}

/** Routes the supplier record's one write (by recordPaymentToSupplier) through with `supplierSide` added, so the document is written once. */
function sideWriter(tx: Transaction, supplierPath: string, side: SupplierRecord['supplierSide']): Transaction {
  const add = <T extends object>(path: string, data: T): T => (path === supplierPath ? { ...data, supplierSide: side } : data);
  return {
    get: (p) => tx.get(p),
    getAll: (p) => tx.getAll(p),
    query: (q) => tx.query(q),
    set: (p, d) => tx.set(p, add(p, d)),
    create: (p, d) => tx.create(p, add(p, d)),
    update: (p, d) => tx.update(p, add(p, d)),
    delete: (p) => tx.delete(p),
  };
}

const publicResult = ({ outcome, payment, invoiceAdded }: Applied): SubmissionResult => ({ outcome, payment, invoiceAdded });
