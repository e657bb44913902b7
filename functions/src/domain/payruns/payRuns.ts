/**
 * Payment runs (issue 36 §2): a set of ready, approved payments paid together on one date, with the bank's files.
 * A run keeps a snapshot of each payment as it was when the run was made (amount, currency, payout); its files are
 * built from that snapshot only, so a rebuilt file (an expired link) has the same bytes, and a payment changed
 * after the run is noticed when the run is marked paid rather than silently paid at other values.
 */
import { z } from 'zod';
import { isApiError, notFound, precondition } from '../../core/errors.ts';
import type { Ctx } from '../../core/context.ts';
import { ZIP_LIFETIME_MS } from '../../core/files.ts';
import type { Reader } from '../../ports/store.ts';
import { CURRENCIES } from '../money.ts';
import { approvalAllowsPaying, approvalOf, payoutTarget, type ApprovalPolicy } from '../payments/approvals.ts';
import { maskPayout, paymentsPath, type PaymentFile, type PaymentRecord, type PaymentStatus } from '../payments/payments.ts';
import type { SupplierRecord } from '../payments/suppliers.ts';
import { paymentAmounts } from '../vat.ts';
import { bitCsv, foreignCsv, masavItems, portalCsv, runFileOf, runTotals, type RunFile, type RunPayment, type RunTotal, type SplitRefusal } from './bankFiles.ts';
import { masavCreditFile, masavText, type MasavItem } from './masav.ts';

export const RUN_STATUSES = ['open', 'paid', 'partly_paid', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_FILE_KINDS = ['masav', 'portal', 'foreign', 'bit'] as const;
export type RunFileKind = (typeof RUN_FILE_KINDS)[number];
/** The most payments one run takes (one transaction writes them all, under the store's 500 writes). */
export const RUN_MAX_PAYMENTS = 200;

/**
 * Why a payment cannot go in a run (payRunCreate) or be paid by it (payRunMarkPaid): the codes the dashboard
 * words, in the order they are checked (a payment is named with its first).
 */
export const RUN_REFUSALS = [
  'notFound', // no such payment in this business
  'duplicate', // named twice
  'notReady', // not `ready` (create), or canceled (mark paid)
  'inOpenRun', // already in another open or partly paid run
  'amountNotSet', // an open amount the supplier has not filled
  'notApproved', // approval required and not granted (pending, rejected, or stale after a change)
  'noPayout', // the supplier gave no payout details
  'bankIncomplete', // an Israeli account without bank, branch or number
  'israeliNotIls', // MASAV and the bank's own transfers pay shekels only
  'foreignIncomplete', // abroad without IBAN/account or SWIFT/BIC
  'bitIncomplete', // Bit without a phone
  'bitNotIls', // Bit pays shekels only
  'masavBankCode', // not a 2-digit bank code, or a bank that merged and takes no transfers
  'masavBranch', // not 1-3 digits
  'masavAccount', // not 1-9 digits, or zero
  'masavName', // no letter or digit MASAV can carry
  'masavAmount', // over 11 digits of shekels
  'masavPayeeId', // the supplier's ID over 9 digits
  'notInRun', // payRunMarkPaid: the payment is not (or no longer) in this run
  'changedSinceRun', // payRunMarkPaid: amount, currency or payout changed after the run's files were made
] as const;
export type RunRefusal = (typeof RUN_REFUSALS)[number];

const SPLIT_CODES: Record<SplitRefusal, RunRefusal> = {
  no_payout: 'noPayout',
  no_amount: 'amountNotSet',
  bank_incomplete: 'bankIncomplete',
  israeli_not_ils: 'israeliNotIls',
  foreign_incomplete: 'foreignIncomplete',
  bit_incomplete: 'bitIncomplete',
  bit_not_ils: 'bitNotIls',
  duplicate: 'duplicate',
};
const MASAV_CODES: Record<string, RunRefusal> = { bankCode: 'masavBankCode', branch: 'masavBranch', account: 'masavAccount', payeeName: 'masavName', amountAgorot: 'masavAmount', payeeId: 'masavPayeeId' };

/** A payment as the run saw it. */
export interface RunItemRecord extends RunPayment {
  file: RunFile;
  payoutMasked: string;
  /** Where the money goes, normalised (approvals.payoutTarget): compared when the run is marked paid. */
  payoutTarget: string;
}

/**
 * masavSettingsMissing: fields are the business settings to fill (the run has no MASAV file). changedSinceRun (computed
 * when read): fields are the ids of payments canceled, or whose amount, currency or payout changed, after the files
 * were made: the files still carry them as they were, so they must not be uploaded as they are.
 */
export interface RunWarning {
  reason: 'masavSettingsMissing' | 'changedSinceRun';
  fields: string[];
}

export interface PayRunRecord {
  id: string;
  businessId: string;
  status: RunStatus;
  payDate: string;
  note: string;
  /** The MASAV file's serial (001-999), null when the run has no MASAV file. */
  serial: number | null;
  createdBy: string;
  createdByEmail: string;
  createdAt: string;
  createdAtMs: number;
  /** The creation day in Israel: the MASAV header's creation date, kept so a rebuilt file has the same bytes. */
  createdDay: string;
  paidAt: string | null;
  canceledAt: string | null;
  updatedAt: string;
  /** The MASAV header as it was at creation; null when no MASAV file was made. */
  masav: { institutionId: string; senderId: string; institutionName: string } | null;
  items: RunItemRecord[];
  totals: RunTotal[];
  /** The stored files (a cache of the snapshot: rebuilt when gone). */
  files: { kind: RunFileKind; fileId: string }[];
  warnings: RunWarning[];
  /** The bank's confirmation of the whole run (payRunMarkPaid's proof): kept on the run, not sent to suppliers. */
  proof: PaymentFile | null;
}

export const payRunsPath = (businessId: string, id = '') => `businesses/${businessId}/payRuns${id ? '/' + id : ''}`;
/** The business's last MASAV serial. */
export const masavSerialPath = (businessId: string) => `businesses/${businessId}/counters/masavSerial`;
/** 1…999, then 1 again (docs/decisions.md). */
export const nextSerial = (last: number | undefined) => ((last ?? 0) % 999) + 1;

export const runViewSchema = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  payDate: z.string(),
  note: z.string(),
  serial: z.int().nullable(),
  createdBy: z.string(),
  createdByEmail: z.string(),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
  canceledAt: z.string().nullable(),
  totals: z.array(z.object({ currency: z.enum(CURRENCIES), count: z.int(), totalAgorot: z.int() })),
  items: z.array(
    z.object({
      paymentId: z.string(),
      supplierName: z.string(),
      totalAgorot: z.int(),
      currency: z.enum(CURRENCIES),
      file: z.enum(['masav', 'foreign', 'bit']),
      payoutMasked: z.string(),
      paymentStatus: z.string(),
    }),
  ),
  files: z.array(z.object({ kind: z.enum(RUN_FILE_KINDS), fileName: z.string(), contentType: z.string(), size: z.int(), count: z.int(), url: z.string(), expiresAt: z.string() })),
  warnings: z.array(z.object({ reason: z.string(), fields: z.array(z.string()) })),
  proof: z.object({ fileName: z.string(), url: z.string() }).nullable(),
});
export type RunView = z.output<typeof runViewSchema>;

/** The supplier's ID or company number for MASAV: digits only, up to 9; otherwise unknown. */
function payeeIdOf(supplier: SupplierRecord | null): string | null {
  const raw = (supplier?.card?.companyId ?? '').replace(/[\s-]/g, '');
  return /^\d{1,9}$/.test(raw) ? raw : null;
}

/** The MASAV refusal of one item (checked alone, with a placeholder header), or null. */
function masavRefusal(item: MasavItem): RunRefusal | null {
  try {
    masavCreditFile({ institutionId: '00000000', senderId: '00000', institutionName: 'X', payDate: '2000-01-01', createdDate: '2000-01-01', serial: 1, items: [item] });
    return null;
  } catch (e) {
    if (!isApiError(e)) throw e;
    const field = /^items\[0\]\.(\w+)$/.exec(e.details.field ?? '')?.[1];
    return (field && MASAV_CODES[field]) || 'masavAmount';
  }
}

/** A payment as a run item, or why it cannot be one. Checks in RUN_REFUSALS order, from `inOpenRun` on. */
export function runItemOf(
  p: PaymentRecord,
  policy: ApprovalPolicy,
  supplier: SupplierRecord | null,
  openRunIds: ReadonlySet<string>,
): RunItemRecord | { refused: RunRefusal } {
  if (p.status !== 'ready') return { refused: 'notReady' };
  if (p.runId && openRunIds.has(p.runId)) return { refused: 'inOpenRun' };
  if (p.openAmount && p.amountAgorot === 0) return { refused: 'amountNotSet' };
  if (!approvalAllowsPaying(approvalOf(p, policy))) return { refused: 'notApproved' };
  const rp: RunPayment = {
    paymentId: p.id,
    supplierName: p.supplierName,
    amountAgorot: paymentAmounts(p).totalAgorot,
    currency: p.currency,
    payout: p.payout,
    invoiceNumber: p.invoiceNumber || undefined,
    payeeId: payeeIdOf(supplier),
  };
  const file = runFileOf(rp);
  if (typeof file !== 'string') return { refused: SPLIT_CODES[file.refused] };
  if (file === 'masav') {
    const refused = masavRefusal(masavItems([rp])[0]);
    if (refused) return { refused };
  }
  return { ...rp, file, payoutMasked: maskPayout(p.payout), payoutTarget: payoutTarget(p.payout) };
}

/** The refusal of a run's payments: failed-precondition naming each payment with its code (parallel lists). */
export function runRefused(refused: { paymentId: string; reason: RunRefusal }[]) {
  const listed = refused.slice(0, 20).map((r) => `${r.paymentId} (${r.reason})`).join(', ');
  return precondition(`paymentIds: ${refused.length} payment${refused.length > 1 ? 's' : ''} cannot be paid in this run: ${listed}${refused.length > 20 ? ', …' : ''}`, {
    reason: 'runPaymentsRefused',
    params: { paymentIds: refused.map((r) => r.paymentId), reasons: refused.map((r) => r.reason) },
  });
}

/** The MASAV header's settings and name, or the fields missing (a warning: the run builds without a MASAV file). */
export function masavSettings(business: Record<string, unknown>): { masav: PayRunRecord['masav']; missing: string[] } {
  const institutionId = String(business.masavInstitutionId ?? '');
  const senderId = String(business.masavSenderId ?? '');
  const institutionName = [business.businessName, business.businessNameEn, business.name].map((v) => String(v ?? '').trim()).find((n) => masavText(n)) ?? '';
  const missing = [...(/^\d{8}$/.test(institutionId) ? [] : ['masavInstitutionId']), ...(/^\d{5}$/.test(senderId) ? [] : ['masavSenderId']), ...(institutionName ? [] : ['businessName'])];
  return { masav: missing.length ? null : { institutionId, senderId, institutionName }, missing };
}

export interface BuiltFile {
  kind: RunFileKind;
  fileName: string;
  contentType: string;
  bytes: Buffer;
  count: number;
}

/** The run's files from its snapshot: the same run gives the same bytes. */
export function buildRunFiles(run: Pick<PayRunRecord, 'items' | 'masav' | 'serial' | 'payDate' | 'createdDay'>): BuiltFile[] {
  const of = (f: RunFile) => run.items.filter((i) => i.file === f);
  const masav = of('masav');
  const foreign = of('foreign');
  const bit = of('bit');
  const csv = 'text/csv; charset=utf-8';
  const out: BuiltFile[] = [];
  if (masav.length && run.masav && run.serial !== null) {
    const bytes = masavCreditFile({ ...run.masav, payDate: run.payDate, createdDate: run.createdDay, serial: run.serial, items: masavItems(masav) });
    out.push({ kind: 'masav', fileName: `masav-${run.payDate}-${String(run.serial).padStart(3, '0')}.txt`, contentType: 'application/octet-stream', bytes, count: masav.length });
  }
  if (masav.length) out.push({ kind: 'portal', fileName: `bank-transfers-${run.payDate}.csv`, contentType: csv, bytes: portalCsv(masav), count: masav.length });
  if (foreign.length) out.push({ kind: 'foreign', fileName: `foreign-transfers-${run.payDate}.csv`, contentType: csv, bytes: foreignCsv(foreign), count: foreign.length });
  if (bit.length) out.push({ kind: 'bit', fileName: `bit-${run.payDate}.csv`, contentType: csv, bytes: bitCsv(bit), count: bit.length });
  return out;
}

/** A link this close to its end is made again rather than handed out. */
const FRESH_FOR_MS = 86_400_000;

/**
 * The run's files with working links. With `renew` (payRunGet, the operations that change a run), an open run's
 * file whose link has less than a day left, or is gone, is built again from the snapshot (same bytes) and stored with
 * a new 7-day link. Otherwise (payRunsList; a run paid or partly paid) only the links still working are shown: a
 * paid payment's file is not handed out again, as uploading it twice would pay twice. A canceled run has no files.
 */
export async function runFiles(ctx: Pick<Ctx, 'files' | 'store' | 'clock' | 'logger'>, run: PayRunRecord, renew = true): Promise<RunView['files']> {
  if (run.status === 'canceled') return [];
  const now = ctx.clock.now();
  if (!renew || run.status !== 'open') {
    const out: RunView['files'] = [];
    for (const b of buildRunFiles(run)) {
      const have = run.files.find((f) => f.kind === b.kind);
      const ref = have ? await ctx.files.ref(run.businessId, have.fileId) : null;
      if (ref?.expiresAt && Date.parse(ref.expiresAt) > now) out.push({ kind: b.kind, fileName: ref.fileName, contentType: ref.contentType, size: ref.size, count: b.count, url: ref.url, expiresAt: ref.expiresAt });
    }
    return out;
  }
  const built = buildRunFiles(run);
  const out: RunView['files'] = [];
  const stored: PayRunRecord['files'] = [];
  let changed = false;
  for (const b of built) {
    const have = run.files.find((f) => f.kind === b.kind);
    let ref = have ? await ctx.files.ref(run.businessId, have.fileId) : null;
    if (!ref || !ref.expiresAt || Date.parse(ref.expiresAt) - now < FRESH_FOR_MS) {
      ref = await ctx.files.save(run.businessId, { fileName: b.fileName, contentType: b.contentType, bytes: b.bytes, lifetimeMs: ZIP_LIFETIME_MS });
      changed = true;
    }
    stored.push({ kind: b.kind, fileId: ref.fileId });
    out.push({ kind: b.kind, fileName: ref.fileName, contentType: ref.contentType, size: ref.size, count: b.count, url: ref.url, expiresAt: ref.expiresAt! });
  }
  if (changed) {
    await ctx.store.update(payRunsPath(run.businessId, run.id), { files: stored }).catch((e) => ctx.logger.warn('could not record a run\'s rebuilt files', { runId: run.id, error: String(e) }));
    run.files = stored;
  }
  return out;
}

/** The current status of each of the run's payments (one read of them all), and those changed since the run's files were made. */
export async function paymentStatuses(reader: Reader, run: Pick<PayRunRecord, 'businessId' | 'items'>): Promise<{ statuses: Map<string, PaymentStatus | 'missing'>; changed: string[] }> {
  const docs = await reader.getAll(run.items.map((i) => paymentsPath(run.businessId, i.paymentId)));
  const records = docs.map((d) => (d?.data as unknown as PaymentRecord | undefined) ?? null);
  const changed = run.items.filter((it, n) => {
    const p = records[n];
    return !p || p.status === 'canceled' || (p.status !== 'paid' && !matchesSnapshot(p, it));
  });
  return { statuses: new Map(run.items.map((i, n) => [i.paymentId, (records[n]?.status ?? 'missing') as PaymentStatus | 'missing'])), changed: changed.map((i) => i.paymentId) };
}

/** A run's status from its payments: paid when every payment is paid or canceled (one at least paid), partly paid when some are. */
export function statusFrom(statuses: Iterable<string>): 'open' | 'paid' | 'partly_paid' {
  const all = [...statuses];
  const paid = all.filter((s) => s === 'paid').length;
  if (!paid) return 'open';
  return all.every((s) => s === 'paid' || s === 'canceled' || s === 'missing') ? 'paid' : 'partly_paid';
}

export async function runView(ctx: Pick<Ctx, 'files' | 'store' | 'clock' | 'logger'>, run: PayRunRecord, opts: { renew?: boolean } = {}): Promise<RunView> {
  const [{ statuses, changed }, files, proofRef] = await Promise.all([
    paymentStatuses(ctx.store, run),
    runFiles(ctx, run, opts.renew ?? true),
    run.proof ? ctx.files.ref(run.businessId, run.proof.fileId) : Promise.resolve(null),
  ]);
  return {
    id: run.id,
    status: run.status,
    payDate: run.payDate,
    note: run.note,
    serial: run.serial,
    createdBy: run.createdBy,
    createdByEmail: run.createdByEmail,
    createdAt: run.createdAt,
    paidAt: run.paidAt,
    canceledAt: run.canceledAt,
    totals: run.totals,
    items: run.items.map((i) => ({ paymentId: i.paymentId, supplierName: i.supplierName, totalAgorot: i.amountAgorot, currency: i.currency, file: i.file, payoutMasked: i.payoutMasked, paymentStatus: statuses.get(i.paymentId) ?? 'missing' })),
    files,
    warnings: [...run.warnings, ...(changed.length && run.status !== 'canceled' ? [{ reason: 'changedSinceRun' as const, fields: changed }] : [])],
    proof: proofRef ? { fileName: proofRef.fileName, url: proofRef.url } : null,
  };
}

/** The run's totals from its items: the one sum per currency every file and screen shows. */
export const itemTotals = (items: readonly RunItemRecord[]): RunTotal[] => runTotals(items);

/** Whether the payment still matches what the run's files were made with. */
export const matchesSnapshot = (p: PaymentRecord, item: RunItemRecord) =>
  paymentAmounts(p).totalAgorot === item.amountAgorot && p.currency === item.currency && payoutTarget(p.payout) === item.payoutTarget;

/** The run, or not-found naming it (another business's run is not found either). */
export async function getRun(reader: Reader, businessId: string, runId: string): Promise<PayRunRecord> {
  const ok = /^[^/]+$/.test(runId) && runId !== '.' && runId !== '..' && !/^__.*__$/.test(runId);
  const doc = ok ? await reader.get(payRunsPath(businessId, runId)) : null;
  if (!doc) throw notFound(`runId: run ${runId}`, 'run');
  return doc.data as unknown as PayRunRecord;
}

/**
 * Refuses a change to a payment that an open (or partly paid) run's stored bank file holds: the file would then pay
 * what the payment no longer says. Canceling the run releases the payment.
 */
export async function assertNotInOpenRun(reader: Reader, p: PaymentRecord, what: string): Promise<void> {
  if (!p.runId) return;
  const run = (await reader.get(payRunsPath(p.businessId, p.runId)))?.data as unknown as PayRunRecord | undefined;
  if (!run || (run.status !== 'open' && run.status !== 'partly_paid')) return;
  throw precondition(`${what}: the payment is in the open payment run ${p.runId}, whose bank file holds it as it was; cancel the run (payRunCancel) first. Nothing was changed.`, { reason: 'paymentInOpenRun', params: { runId: p.runId } });
}
