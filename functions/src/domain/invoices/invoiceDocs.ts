import { isRealDay } from '../months.ts';
import { createHash } from 'node:crypto';
import { sniffFileType } from '../../core/fileTypes.ts';
import { pdfRefusal } from '../../core/pdfInflation.ts';
import { z } from 'zod';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { invalid, notFound } from '../../core/errors.ts';
import { jerusalemDay } from '../../core/clock.ts';
import type { Files } from '../../core/files.ts';
import type { DocStore, Reader, Transaction, Writer } from '../../ports/store.ts';
import type { Ai, AiFile, AiResult } from '../../ports/ai.ts';
import { isDocId } from '../payments/paymentView.ts';
import { PAY_MARKS, readingSchema, invoicesPath, type InvoiceDoc, type InvoiceReading, type InvoiceSource } from './invoices.ts';
import { searchTokensOf } from '../search.ts';
import { suppliersPath, type SupplierRecord } from '../payments/suppliers.ts';
import { supplierDocOf } from '../payments/supplierAliases.ts';
import { vendorKeyOf } from './vendorKeys.ts';
import { issuerId, recordSuggestion, softwarePath, suggestionsPath, type SoftwareRecord, type SuggestionRecord } from './issuers.ts';
import { effectivePayMark } from './payMarks.ts';
import { categoryRuleQueries, RULE_BUDGET, sweep, vendorRulesPath, type Propagation, type VendorRuleRecord } from './vendorRules.ts';
import { findDuplicate, invoiceHashPath, type DuplicateFound, type HashMarker } from './duplicates.ts';
import { fileDocument, loadRules, type Placement } from './folderRules.ts';
import { foldersPath, missingBuiltInFolders, type FolderRecord } from './folders.ts';
import { paymentsOfDocs, readingMismatch, readingMismatchSchema } from './readingMismatch.ts';
import type { PaymentRecord } from '../payments/payments.ts';
import { correctionsSchema, keepCorrections, vatIsTotal } from './corrections.ts';

/**
 * Invoice documents as the invoice operations create, derive, read and show them. Transport-free:
 * readers and transactions come from the store port.
 */

// ---------------------------------------------------------------------------------------------
// Uploaded files

export const UPLOAD_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/** Declared type accepted, bytes of that very type, 1 byte to 5 MB, a PDF within the inflation caps (core/pdfInflation.ts). */
export async function checkUpload(file: { fileName: string; mimeType: string; dataBase64: string }): Promise<{ fileName: string; contentType: UploadType; bytes: Buffer }> {
  const declared = file.mimeType.trim().toLowerCase();
  if (!(UPLOAD_TYPES as readonly string[]).includes(declared)) throw invalid('mimeType', `"${file.mimeType}" is not accepted; send ${UPLOAD_TYPES.join(', ')}`, { reason: 'fileTypeNotAccepted', params: { types: [...UPLOAD_TYPES] } });
  const bytes = Buffer.from(file.dataBase64, 'base64');
  if (bytes.length === 0) throw invalid('dataBase64', 'the file is empty', { reason: 'fileEmpty' });
  if (bytes.length > UPLOAD_MAX_BYTES) throw invalid('dataBase64', `the file is ${bytes.length} bytes; at most 5 MB (${UPLOAD_MAX_BYTES} bytes)`, { reason: 'fileTooLarge', params: { maxMb: 5 } });
  const actual = sniffFileType(bytes);
  if (actual !== declared) throw invalid('dataBase64', actual ? `the bytes are ${actual}, not ${declared}` : `the bytes are not a PDF, JPEG or PNG (${declared} declared)`, { reason: 'fileContentMismatch' });
  const refused = actual === 'application/pdf' ? await pdfRefusal(bytes) : null;
  if (refused) throw invalid('dataBase64', `${file.fileName.trim()}: ${refused}`, { reason: 'fileUnreadable' });
  return { fileName: file.fileName.trim(), contentType: declared as UploadType, bytes };
}

export const sha256Bytes = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');


// ---------------------------------------------------------------------------------------------
// Records

export { supplierDocId } from './invoices.ts';


/** The reading's date when it is a real day, else the upload day in Israel. */
export { isRealDay };

export const documentDate = (reading: InvoiceReading | null, createdAtMs: number) => (isRealDay(reading?.date) ? reading!.date! : jerusalemDay(createdAtMs));

/**
 * q covers file name, issuer, invoice number, note and mail subject (spec §4 invoicesList): word
 * beginnings of the issuer and the number, whole words of the rest (docs/performance.md).
 */
export const invoiceSearchTokens = (d: Pick<InvoiceDoc, 'fileName' | 'reading' | 'note' | 'mailbox'>) =>
  searchTokensOf([d.reading?.issuer.name, d.reading?.number], [d.fileName, d.note, d.mailbox?.subject]);

export interface NewDocFields {
  docId: string;
  businessId: string;
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  sha256: string;
  source: InvoiceSource;
  createdAtMs: number;
}

/** A document with every field present (queries on `== null` and `in` need the fields to exist). */
export function newInvoiceDoc(f: NewDocFields, over: Partial<InvoiceDoc> = {}): InvoiceDoc {
  const at = new Date(f.createdAtMs).toISOString();
  const doc: InvoiceDoc = {
    ...f,
    paymentId: null,
    reading: null,
    readingStatus: 'unread',
    readingError: null,
    readAt: null,
    vendorKey: null,
    duplicateOf: null,
    mailbox: null,
    folderId: '',
    folderBy: 'default',
    folderRuleId: null,
    category: '',
    categoryBy: null,
    categoryNeedsAi: false,
    note: '',
    payMark: '',
    payRule: '',
    effectivePayMark: 'unpaid',
    supplierKey: null,
    supplierName: '',
    supplierBy: null,
    suggestionId: null,
    softwareId: null,
    date: jerusalemDay(f.createdAtMs),
    search: [],
    createdAt: at,
    updatedAt: at,
    ...over,
  };
  return doc;
}

/** One commit holds the documents, one rule per issuer and any built-in folder re-filing needs: ≤ 3 × 150 writes. */
export const BULK_MAX = 150;

/** The issuers of `docs` with the name their rule shows: vendorKey → issuer name. */
export function issuersOf(docs: InvoiceDoc[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of docs) if (d.vendorKey && !out.has(d.vendorKey)) out.set(d.vendorKey, d.reading?.issuer.name ?? '');
  return out;
}

/** Reads every document; the first unknown id (also another business's) is not-found and nothing changes. */
export async function readAll(tx: Reader, businessId: string, docIds: string[]): Promise<InvoiceDoc[]> {
  const malformed = docIds.find((id) => !isDocId(id));
  if (malformed !== undefined) throw notFound(`docIds: invoice document ${malformed}`, 'invoice');
  const found = await tx.getAll(docIds.map((id) => invoicesPath(businessId, id)));
  const missing = docIds.find((_, i) => !found[i]);
  if (missing) throw notFound(`docIds: invoice document ${missing}`, 'invoice');
  return found.map((d) => d!.data as unknown as InvoiceDoc);
}

export async function getInvoice(reader: Reader, businessId: string, docId: string, field = 'docId'): Promise<InvoiceDoc> {
  const doc = isDocId(docId) ? await reader.get(invoicesPath(businessId, docId)) : null;
  if (!doc) throw notFound(`${field}: invoice document ${docId}`, 'invoice');
  return doc.data as unknown as InvoiceDoc;
}

// ---------------------------------------------------------------------------------------------
// Supplier matching

export interface SupplierMatch {
  key: string;
  name: string;
  by: 'vat' | 'email' | 'phone' | 'name';
}

/**
 * The existing supplier the reading's issuer is, trying VAT id (the card's companyId), email,
 * phone, then the exact name. Plain reads outside any transaction: a late-created supplier
 * only means a suggestion instead of an assignment.
 */
export async function matchSupplier(reader: Reader, businessId: string, reading: InvoiceReading | null): Promise<SupplierMatch | null> {
  if (!reading) return null;
  const { vatId, email, phone, name } = reading.issuer;
  const collection = suppliersPath(businessId);
  const found = (r: SupplierRecord, by: SupplierMatch['by']): SupplierMatch => ({ key: r.key, name: r.name ?? '', by });
  const one = async (where: [string, '==' | 'in', unknown]) => {
    const [d] = await reader.query({ collection, where: [where], limit: 1 });
    return d ? (d.data as unknown as SupplierRecord) : null;
  };
  const vatDigits = vatId?.replace(/\D/g, '') ?? '';
  if (vatDigits.length >= 5) {
    const r = await one(['card.companyId', 'in', [...new Set([vatDigits, vatId!.trim()])]]);
    if (r) return found(r, 'vat');
  }
  const mail = email?.trim().toLowerCase();
  if (mail && mail.includes('@')) {
    const byKey = await supplierDocOf(reader, businessId, mail);
    const r = byKey ? (byKey.data as unknown as SupplierRecord) : await one(['email', '==', mail]);
    if (r) return found(r, 'email');
  }
  const parsed = phone ? parsePhoneNumberFromString(phone, 'IL') : undefined;
  if (parsed?.isValid()) {
    const byKey = await supplierDocOf(reader, businessId, parsed.number);
    const r = byKey ? (byKey.data as unknown as SupplierRecord) : await one(['phone', '==', parsed.number]);
    if (r) return found(r, 'phone');
  }
  const n = name?.trim();
  if (n) {
    const r = await one(['name', '==', n]);
    if (r) return found(r, 'name');
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Deriving a document's fields from its reading, inside a transaction

export interface SettleInput {
  businessId: string;
  at: string;
  /** The document with its own fields set; the derived ones are computed here. */
  doc: InvoiceDoc;
  /** The stored version when re-reading; null for a new document. */
  previous: InvoiceDoc | null;
  /**
   * The automatic supplier assignment: a match, null for none (then software or a suggestion),
   * or undefined to keep the document's assignment (given by hand, or a payment's supplier).
   */
  matched: SupplierMatch | null | undefined;
  /** Place by folder rules; false keeps doc.folderId (given by hand). */
  refile: boolean;
}

export interface Settled {
  doc: InvoiceDoc;
  duplicate: DuplicateFound;
  /** Writes the document and everything that goes with it; call after deciding not to skip. */
  commit(): void;
}

/**
 * Every read a document's derived fields need (duplicates, the issuer's rules, software and
 * suggestion records, folder rules), then a commit closure, so callers keep reads before writes.
 */
export async function settleDocument(tx: Transaction, input: SettleInput): Promise<Settled> {
  const { businessId, at, previous, matched, refile } = input;
  const doc: InvoiceDoc = { ...input.doc, updatedAt: at };
  doc.vendorKey = vendorKeyOf(doc.reading);
  doc.search = invoiceSearchTokens(doc);
  doc.date = documentDate(doc.reading, doc.createdAtMs);

  const duplicate = await findDuplicate(tx, businessId, doc, doc.docId);
  doc.duplicateOf = duplicate.duplicateOf;

  const ruleDoc = doc.vendorKey ? await tx.get(vendorRulesPath(businessId, doc.vendorKey)) : null;
  const rule = (ruleDoc?.data as unknown as VendorRuleRecord | undefined) ?? null;
  doc.payRule = rule?.payRule ?? '';
  doc.effectivePayMark = effectivePayMark({ payMark: doc.payMark, paymentMark: doc.paymentMark, payRule: doc.payRule, aiPayMethod: doc.reading?.payMethod });

  if (doc.categoryBy !== 'hand') {
    const sameIssuer = previous !== null && previous.vendorKey === doc.vendorKey;
    if (rule?.category) [doc.category, doc.categoryBy] = [rule.category, 'rule'];
    else if (sameIssuer && previous.categoryBy === 'ai') [doc.category, doc.categoryBy] = [previous.category, 'ai'];
    else [doc.category, doc.categoryBy] = ['', null];
    doc.categoryNeedsAi = false;
  }

  // Supplier, else software, else a suggestion.
  let software: SoftwareRecord | null = null;
  let suggestion: SuggestionRecord | null = null;
  let suggest = false;
  if (matched !== undefined) {
    doc.softwareId = null;
    doc.suggestionId = null;
    if (matched) [doc.supplierKey, doc.supplierName, doc.supplierBy] = [matched.key, matched.name, 'auto'];
    else {
      [doc.supplierKey, doc.supplierName, doc.supplierBy] = [null, '', null];
      if (doc.vendorKey && doc.reading) {
        const id = issuerId(doc.vendorKey);
        const sw = await tx.get(softwarePath(businessId, id));
        if (sw) {
          software = sw.data as unknown as SoftwareRecord;
          doc.softwareId = id;
        } else {
          const sg = await tx.get(suggestionsPath(businessId, id));
          suggestion = (sg?.data as unknown as SuggestionRecord | undefined) ?? null;
          suggest = true;
          doc.suggestionId = id;
        }
      }
    }
  }
  // The records the document leaves drop it (a re-read can change the issuer).
  const leftSuggestion = previous?.suggestionId && previous.suggestionId !== doc.suggestionId ? await tx.get(suggestionsPath(businessId, previous.suggestionId)) : null;
  const leftSoftware = previous?.softwareId && previous.softwareId !== doc.softwareId ? await tx.get(softwarePath(businessId, previous.softwareId)) : null;

  if (refile) {
    const placement = fileDocument(await loadRules(tx, businessId), doc);
    [doc.folderId, doc.folderBy, doc.folderRuleId] = [placement.folderId, placement.folderBy, placement.folderRuleId];
  }
  const builtIns = await missingBuiltInFolders(tx, businessId, [doc.folderId], at);

  return {
    doc,
    duplicate,
    commit() {
      if (previous) tx.set(invoicesPath(businessId, doc.docId), { ...doc });
      else tx.create(invoicesPath(businessId, doc.docId), { ...doc });
      if (duplicate.marker === 'absent' || duplicate.marker === 'stale') {
        const owner = duplicate.reason === 'sha256' && duplicate.duplicateOf ? duplicate.duplicateOf : doc.docId;
        const marker: HashMarker = { sha256: doc.sha256, docId: owner, createdAt: at };
        // `create` is what makes two parallel uploads of one file store exactly one.
        if (duplicate.marker === 'absent') tx.create(invoiceHashPath(businessId, doc.sha256), { ...marker });
        else tx.set(invoiceHashPath(businessId, doc.sha256), { ...marker });
      }
      const swDocs = software?.docIds ?? [];
      if (software && !swDocs.includes(doc.docId)) tx.update(softwarePath(businessId, doc.softwareId!), { docIds: [...swDocs, doc.docId].slice(-500), updatedAt: at });
      if (suggest) recordSuggestion(tx, doc, suggestion, at);
      if (leftSuggestion) tx.update(leftSuggestion.path, { docIds: ((leftSuggestion.data.docIds as string[]) ?? []).filter((id) => id !== doc.docId), updatedAt: at });
      if (leftSoftware) tx.update(leftSoftware.path, { docIds: ((leftSoftware.data.docIds as string[]) ?? []).filter((id) => id !== doc.docId), updatedAt: at });
      for (const f of builtIns) tx.set(foldersPath(businessId, f.id), { ...f });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// AI reading, re-filing and category rules

/** The port promises never to throw and to validate; this holds it to that, so a bad reply only fails the reading. */
export async function readInvoiceSafely(ai: Ai, file: AiFile): Promise<AiResult<InvoiceReading>> {
  try {
    const r = await ai.readInvoice(file);
    if (!r.ok) return { ok: false, reason: String(r.reason || 'the AI could not read the document').slice(0, 500) };
    const checked = readingSchema.safeParse(r.value);
    return checked.success ? { ok: true, value: checked.data } : { ok: false, reason: 'the AI reply did not match the reading schema' };
  } catch (e) {
    return { ok: false, reason: `the AI request failed: ${String((e as Error)?.message ?? e).slice(0, 300)}` };
  }
}

/**
 * Writes an AI reading (or its failure) onto a document in one transaction, creating it from `fresh`
 * when it is not stored yet, and derives every field again. A failed re-read keeps what an earlier
 * reading found; `onlyUnread` leaves a document someone read meanwhile as it is (a background read).
 * Null when `fresh` is null and the document is gone, or when `onlyUnread` found it read.
 */
export async function storeReading(
  store: DocStore,
  input: { businessId: string; docId: string; fresh: InvoiceDoc | null; r: AiResult<InvoiceReading>; matched: SupplierMatch | null | undefined; at: string; onlyUnread?: boolean },
): Promise<InvoiceDoc | null> {
  const { businessId, docId, fresh, r, matched, at } = input;
  return store.runTransaction(async (tx) => {
    const stored = await tx.get(invoicesPath(businessId, docId));
    if (!stored && !fresh) return null;
    const previous = (stored?.data as unknown as InvoiceDoc | undefined) ?? null;
    if (input.onlyUnread && previous && previous.readingStatus !== 'unread') return null;
    if (!r.ok && previous) {
      // Only the status says it failed.
      const changes = { readingStatus: 'failed' as const, readingError: r.reason, readAt: at, updatedAt: at };
      tx.update(stored!.path, changes);
      return { ...previous, ...changes };
    }
    const base: InvoiceDoc = { ...(previous ?? fresh!) };
    // A field corrected by hand keeps its correction; the AI fills the others.
    if (r.ok) Object.assign(base, { ...keepCorrections(r.value, previous?.reading ?? null, previous?.corrections), readingStatus: 'read', readingError: null, readAt: at });
    else Object.assign(base, { readingStatus: 'failed', readingError: r.reason, readAt: at });
    // The supplier match was made for the document as read before the transaction; a hand change since then wins.
    const m = previous?.supplierBy === 'hand' ? undefined : matched;
    const settled = await settleDocument(tx, { businessId, at, doc: base, previous, matched: m, refile: base.folderBy !== 'hand' });
    settled.commit();
    return settled.doc;
  });
}

export interface RefilePlan {
  /** New placements of documents whose folder changes. */
  placements: Map<string, Placement>;
  builtIns: FolderRecord[];
}

/**
 * Folder rules look at the category and the supplier, so a change of either files the document
 * again, unless it was filed by hand. Reads only; `writeBuiltIns` and `placementOf` do the writing side.
 */
export async function planRefile(reader: Reader, businessId: string, docs: InvoiceDoc[], at: string): Promise<RefilePlan> {
  const placements = new Map<string, Placement>();
  const movable = docs.filter((d) => d.folderBy !== 'hand');
  if (!movable.length) return { placements, builtIns: [] };
  const rules = await loadRules(reader, businessId);
  for (const d of movable) {
    const p = fileDocument(rules, d);
    if (p.folderId !== d.folderId || p.folderBy !== d.folderBy || p.folderRuleId !== (d.folderRuleId ?? null)) placements.set(d.docId, p);
  }
  const builtIns = await missingBuiltInFolders(reader, businessId, [...placements.values()].map((p) => p.folderId), at);
  return { placements, builtIns };
}

export const placementOf = (plan: RefilePlan, docId: string): Partial<Placement> => ({ ...plan.placements.get(docId) });

export function writeBuiltIns(tx: Writer, businessId: string, plan: RefilePlan): void {
  for (const f of plan.builtIns) tx.set(foldersPath(businessId, f.id), { ...f });
}

/** Brings the issuer's documents in line with its category rule (see categoryRuleQueries), re-filing them as needed. */
export function applyCategoryRule(store: DocStore, businessId: string, key: string, category: string, at: string, budget = RULE_BUDGET): Promise<Propagation> {
  const fields = category ? { category, categoryBy: 'rule' as const, categoryNeedsAi: false } : { category: '', categoryBy: null, categoryNeedsAi: false };
  return sweep(
    store,
    categoryRuleQueries(businessId, key, category),
    async (tx, docs) => {
      const plan = await planRefile(tx, businessId, docs.map(({ doc }) => ({ ...doc, ...fields })), at);
      writeBuiltIns(tx, businessId, plan);
      for (const { path, doc } of docs) tx.update(path, { ...fields, ...placementOf(plan, doc.docId), updatedAt: at });
    },
    budget,
  );
}

// ---------------------------------------------------------------------------------------------
// Views

const mailboxSchema = z.object({ accountId: z.string(), from: z.string(), subject: z.string(), receivedAt: z.string(), messageId: z.string(), body: z.boolean() });

const rowShape = {
  docId: z.string(),
  fileName: z.string(),
  contentType: z.string(),
  size: z.int(),
  source: z.enum(['upload', 'mailbox', 'supplier']),
  paymentId: z.string().nullable(),
  readingStatus: z.enum(['unread', 'read', 'failed']),
  issuerName: z.string().nullable(),
  number: z.string().nullable(),
  /** The invoice date (reading, else the upload day), YYYY-MM-DD. */
  date: z.string(),
  totalMinor: z.int().nullable(),
  currency: z.string().nullable(),
  docType: z.string().nullable(),
  payMethod: z.string().nullable(),
  vendorKey: z.string().nullable(),
  duplicateOf: z.string().nullable(),
  mailSubject: z.string().nullable(),
  folderId: z.string(),
  folderBy: z.enum(['rule', 'hand', 'default']),
  category: z.string(),
  categoryBy: z.enum(['rule', 'ai', 'hand']).nullable(),
  note: z.string(),
  payMark: z.enum(['', ...PAY_MARKS]),
  effectivePayMark: z.enum(PAY_MARKS),
  supplierKey: z.string().nullable(),
  supplierName: z.string(),
  supplierBy: z.enum(['hand', 'auto']).nullable(),
  /** The reading disagrees with the payment this invoice is attached to (paymentId): its total or currency. */
  readingMismatch: readingMismatchSchema,
  corrections: correctionsSchema,
  vatIsTotal: z.boolean().describe('VAT equals the total: likely misread.'),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const invoiceRowSchema = z.object(rowShape);
export type InvoiceRow = z.output<typeof invoiceRowSchema>;

export const invoiceViewSchema = z.object({
  ...rowShape,
  fileId: z.string(),
  sha256: z.string(),
  reading: readingSchema.nullable(),
  /** Why the document is unread, or why its reading failed. */
  readingError: z.string().nullable(),
  readAt: z.string().nullable(),
  mailbox: mailboxSchema.nullable(),
  folderRuleId: z.string().nullable(),
  payRule: z.enum(['', 'card', 'not_card']),
  categoryNeedsAi: z.boolean(),
  suggestionId: z.string().nullable(),
  softwareId: z.string().nullable(),
  /** Capability link to the file; null once the file is gone. */
  url: z.string().nullable(),
});
export type InvoiceView = z.output<typeof invoiceViewSchema>;

/** Tolerant of documents written by other code paths: a missing field shows as its default. `payment`: the one paymentId names. */
export function invoiceRow(d: InvoiceDoc, payment: PaymentRecord | null = null): InvoiceRow {
  const r = d.reading;
  return {
    docId: d.docId,
    fileName: d.fileName ?? '',
    contentType: d.contentType ?? '',
    size: d.size ?? 0,
    source: d.source,
    paymentId: d.paymentId ?? null,
    readingStatus: d.readingStatus ?? 'unread',
    issuerName: r?.issuer.name ?? null,
    number: r?.number ?? null,
    date: d.date ?? '',
    totalMinor: r?.totalMinor ?? null,
    currency: r?.currency ?? null,
    docType: r?.docType ?? null,
    payMethod: r?.payMethod ?? null,
    vendorKey: d.vendorKey ?? null,
    duplicateOf: d.duplicateOf ?? null,
    mailSubject: d.mailbox?.subject ?? null,
    folderId: d.folderId ?? '',
    folderBy: d.folderBy ?? 'default',
    category: d.category ?? '',
    categoryBy: d.categoryBy ?? null,
    note: d.note ?? '',
    payMark: d.payMark ?? '',
    effectivePayMark: d.effectivePayMark ?? 'unpaid',
    supplierKey: d.supplierKey ?? null,
    supplierName: d.supplierName ?? '',
    supplierBy: d.supplierBy ?? null,
    readingMismatch: readingMismatch(d.reading, payment),
    corrections: d.corrections ?? {},
    vatIsTotal: vatIsTotal(d.reading),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt ?? d.createdAt,
  };
}

export function invoiceView(d: InvoiceDoc, url: string | null, payment: PaymentRecord | null = null): InvoiceView {
  return {
    ...invoiceRow(d, payment),
    fileId: d.fileId,
    sha256: d.sha256 ?? '',
    reading: d.reading ?? null,
    readingError: d.readingError ?? null,
    readAt: d.readAt ?? null,
    mailbox: d.mailbox ?? null,
    folderRuleId: d.folderRuleId ?? null,
    payRule: d.payRule ?? '',
    categoryNeedsAi: d.categoryNeedsAi === true,
    suggestionId: d.suggestionId ?? null,
    softwareId: d.softwareId ?? null,
    url,
  };
}

/** The payment a document is attached to, or null. */
export const paymentOfDoc = async (reader: Reader, d: InvoiceDoc): Promise<PaymentRecord | null> => (await paymentsOfDocs(reader, d.businessId, [d])).get(d.paymentId ?? '') ?? null;

export async function viewWithUrl(files: Files, reader: Reader, d: InvoiceDoc): Promise<InvoiceView> {
  const [ref, payment] = await Promise.all([files.ref(d.businessId, d.fileId), paymentOfDoc(reader, d)]);
  return invoiceView(d, ref?.url ?? null, payment);
}
