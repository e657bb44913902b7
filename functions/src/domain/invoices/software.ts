import { z } from 'zod';
import type { DocStore, Reader, Writer } from '../../ports/store.ts';
import { notFound, precondition } from '../../core/errors.ts';
import { invoicesPath, type InvoiceDoc, type InvoiceReading } from './invoices.ts';
import { issuerId, softwarePath, suggestionsPath, type SoftwareRecord, type SuggestionRecord } from './issuers.ts';

/**
 * Moving an issuer's invoices between the supplier suggestions and the software list, and the
 * per-issuer record of what softwareSync decided. Invoices are the truth for membership
 * (`suggestionId` / `softwareId`); the records' `docIds` keep the latest ids for reference.
 */

export const CADENCES = ['auto', 'monthly', 'yearly'] as const;
export const SUGGESTION_STATUSES = ['open', 'dismissed', 'created', 'software'] as const;

/** Suggestion ids per create or dismiss call. */
export const MAX_SUGGESTION_IDS = 100;
/** Invoices updated per transaction; with the record writes it stays under Firestore's 500 writes per commit. */
export const MOVE_CHUNK = 400;
/** Same cap as recordSuggestion keeps. */
const MAX_DOC_IDS = 500;

const withDocIds = (current: unknown, add: string[]) =>
  [...new Set([...(Array.isArray(current) ? (current as string[]) : []), ...add])].slice(-MAX_DOC_IDS);

// ---------------------------------------------------------------------------------------------
// Views

export const softwareRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  vendorKey: z.string(),
  hidden: z.boolean(),
  cadence: z.enum(CADENCES),
  docCount: z.int().min(0),
});
export type SoftwareRow = z.output<typeof softwareRowSchema>;

export const softwareRow = (r: SoftwareRecord, docCount: number): SoftwareRow => ({
  id: r.id,
  name: r.name ?? '',
  vendorKey: r.vendorKey,
  hidden: r.hidden === true,
  cadence: r.cadence ?? 'auto',
  docCount,
});

export const suggestionRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  vatId: z.string().nullable(),
  vendorKey: z.string(),
  status: z.enum(SUGGESTION_STATUSES),
  docCount: z.int().min(0),
});
export type SuggestionRow = z.output<typeof suggestionRowSchema>;

export const suggestionRow = (r: SuggestionRecord, docCount: number): SuggestionRow => ({
  id: r.id,
  name: r.name ?? '',
  phone: r.phone ?? null,
  email: r.email ?? null,
  vatId: r.vatId ?? null,
  vendorKey: r.vendorKey,
  status: r.status,
  docCount,
});

/** Invoices carrying the id: counted rather than taken from `docIds`, which is capped and misses later uploads. */
export const countInvoicesOf = (store: DocStore, businessId: string, field: 'suggestionId' | 'softwareId', id: string) =>
  store.count({ collection: invoicesPath(businessId), where: [[field, '==', id]] });

// ---------------------------------------------------------------------------------------------
// Per-issuer classification (softwareSync)

export type IssuerClass = 'software' | 'supplier';

export interface IssuerClassRecord {
  vendorKey: string;
  class: IssuerClass;
  /** `hand`: the user moved the issuer; softwareSync never overrides that, even with force. */
  by: 'ai' | 'hand';
  /** The softwareSync generation an AI decision was made in (a forced run bumps it); 0 for `hand`. */
  generation: number;
  classifiedAt: string;
}

export const issuerClassesPath = (businessId: string, id = '') => `businesses/${businessId}/issuerClasses${id ? '/' + id : ''}`;
export const softwareSyncStatePath = (businessId: string) => `businesses/${businessId}/syncState/software`;

export interface SoftwareSyncState {
  generation: number;
}

export function recordIssuerClass(w: Writer, businessId: string, c: IssuerClassRecord): void {
  w.set(issuerClassesPath(businessId, issuerId(c.vendorKey)), { ...c });
}

export interface IssuerCandidate {
  vendorKey: string;
  name: string;
  lineItems: string[];
}

const nameFromKey = (vendorKey: string) => vendorKey.replace(/^\w+:/, '');

export const candidateOf = (doc: InvoiceDoc): IssuerCandidate => ({
  vendorKey: doc.vendorKey!,
  name: doc.reading?.issuer.name ?? nameFromKey(doc.vendorKey!),
  lineItems: (doc.reading?.lineItems ?? []).map((l) => l.description).filter(Boolean),
});

/** Invoices read per page of the issuer scan. */
export const SCAN_PAGE = 200;

/**
 * The distinct issuers of AI-read invoices that belong to neither a supplier nor a software record
 * (a vendorKey exists only when a reading gave one). Walks in vendorKey order and jumps past the
 * last issuer of each page, so an issuer with many invoices costs at most one page.
 */
export async function unassignedIssuers(store: Reader, businessId: string): Promise<Map<string, IssuerCandidate>> {
  const out = new Map<string, IssuerCandidate>();
  let after = '';
  for (;;) {
    const docs = await store.query({
      collection: invoicesPath(businessId),
      where: [['supplierKey', '==', null], ['softwareId', '==', null], ['vendorKey', '>', after]],
      orderBy: [['vendorKey', 'asc']],
      limit: SCAN_PAGE,
    });
    for (const d of docs) {
      const doc = d.data as unknown as InvoiceDoc;
      if (!out.has(doc.vendorKey!)) out.set(doc.vendorKey!, candidateOf(doc));
    }
    if (docs.length < SCAN_PAGE) return out;
    after = String(docs.at(-1)!.data.vendorKey);
  }
}

// ---------------------------------------------------------------------------------------------
// Moves

/**
 * Makes the issuer a software tool: the record (kept with its settings if it exists, else new:
 * visible, cadence auto), then in chunked transactions the suggestion's invoices (they lose
 * suggestionId) and the issuer's unassigned invoices get softwareId; the suggestion ends `software`.
 * Resumable: a retry after a crash carries on where it stopped.
 */
export async function moveIssuerToSoftware(
  store: DocStore,
  businessId: string,
  issuer: { vendorKey: string; name: string },
  at: string,
): Promise<{ softwareId: string; moved: number }> {
  const id = issuerId(issuer.vendorKey);
  const swPath = softwarePath(businessId, id);
  const sgPath = suggestionsPath(businessId, id);
  await store.runTransaction(async (tx) => {
    const [sw, sg] = await tx.getAll([swPath, sgPath]);
    const suggestion = sg?.data as SuggestionRecord | undefined;
    if (suggestion?.status === 'created') {
      throw precondition(`suggestion ${id} was already made supplier ${suggestion.supplierKey ?? ''}`.trim(), { reason: 'suggestionUsed' });
    }
    if (sw) return;
    const record: SoftwareRecord = {
      id,
      vendorKey: issuer.vendorKey,
      name: issuer.name || nameFromKey(issuer.vendorKey),
      hidden: false,
      cadence: 'auto',
      docIds: [],
      createdAt: at,
      updatedAt: at,
    };
    tx.set(swPath, { ...record });
  });
  let moved = 0;
  for (;;) {
    const step = await store.runTransaction(async (tx) => {
      const [sw, sg] = await tx.getAll([swPath, sgPath]);
      if (!sw) return { n: 0, done: true }; // moved back meanwhile: nothing left to do here
      let docs = await tx.query({ collection: invoicesPath(businessId), where: [['suggestionId', '==', id]], limit: MOVE_CHUNK });
      if (docs.length === 0) {
        docs = await tx.query({
          collection: invoicesPath(businessId),
          where: [['vendorKey', '==', issuer.vendorKey], ['supplierKey', '==', null], ['softwareId', '==', null]],
          limit: MOVE_CHUNK,
        });
      }
      if (docs.length === 0) {
        if (sg && sg.data.status !== 'software') tx.update(sgPath, { status: 'software', updatedAt: at });
        return { n: 0, done: true };
      }
      for (const d of docs) tx.update(d.path, { softwareId: id, suggestionId: null, updatedAt: at });
      tx.update(swPath, { docIds: withDocIds(sw.data.docIds, docs.map((d) => d.id)), updatedAt: at });
      return { n: docs.length, done: false };
    });
    moved += step.n;
    if (step.done) return { softwareId: id, moved };
  }
}

/** The open suggestion a software record turns back into: the software's name wins, contacts come from an earlier suggestion, an invoice or the key. */
function reopenedSuggestion(sw: SoftwareRecord, earlier: SuggestionRecord | null, reading: InvoiceReading | null, at: string): SuggestionRecord {
  const fromKey = (prefix: string) => (sw.vendorKey.startsWith(prefix) ? sw.vendorKey.slice(prefix.length) : null);
  const issuer = reading?.issuer;
  return {
    id: issuerId(sw.vendorKey),
    vendorKey: sw.vendorKey,
    name: sw.name || earlier?.name || nameFromKey(sw.vendorKey),
    phone: earlier?.phone ?? issuer?.phone ?? fromKey('phone:'),
    email: earlier?.email ?? issuer?.email?.toLowerCase() ?? fromKey('email:'),
    vatId: earlier?.vatId ?? issuer?.vatId ?? fromKey('vat:'),
    docIds: [],
    status: 'open',
    supplierKey: null,
    createdAt: earlier?.createdAt ?? at,
    updatedAt: at,
  };
}

/**
 * Turns a software record back into an open supplier suggestion (same vendorKey, so the same id):
 * its invoices lose softwareId and get suggestionId, chunk by chunk; the software record is deleted
 * in the transaction that finds no invoice left, so an upload racing with it cannot be stranded.
 * Records the user's choice so softwareSync does not move the issuer back.
 */
export async function moveSoftwareToSuggestion(
  store: DocStore,
  businessId: string,
  softwareId: string,
  at: string,
): Promise<{ suggestionId: string; moved: number }> {
  const swPath = softwarePath(businessId, softwareId);
  const sgId = await store.runTransaction(async (tx) => {
    const sw = await tx.get(swPath);
    if (!sw) throw notFound(`software ${softwareId}`, 'software');
    const software = sw.data as unknown as SoftwareRecord;
    const sgPath = suggestionsPath(businessId, issuerId(software.vendorKey));
    const earlier = await tx.get(sgPath);
    const sample = earlier
      ? []
      : await tx.query({ collection: invoicesPath(businessId), where: [['softwareId', '==', softwareId]], limit: 1 });
    const reading = (sample[0]?.data.reading ?? null) as InvoiceReading | null;
    const suggestion = reopenedSuggestion(software, (earlier?.data ?? null) as SuggestionRecord | null, reading, at);
    tx.set(sgPath, { ...suggestion });
    recordIssuerClass(tx, businessId, { vendorKey: software.vendorKey, class: 'supplier', by: 'hand', generation: 0, classifiedAt: at });
    return suggestion.id;
  });
  const sgPath = suggestionsPath(businessId, sgId);
  let moved = 0;
  for (;;) {
    const step = await store.runTransaction(async (tx) => {
      const [sw, sg] = await tx.getAll([swPath, sgPath]);
      if (!sw) return { n: 0, done: true }; // a parallel call finished the move
      const docs = await tx.query({ collection: invoicesPath(businessId), where: [['softwareId', '==', softwareId]], limit: MOVE_CHUNK });
      if (docs.length === 0) {
        tx.delete(swPath);
        return { n: 0, done: true };
      }
      for (const d of docs) tx.update(d.path, { suggestionId: sgId, softwareId: null, updatedAt: at });
      if (sg) tx.update(sgPath, { docIds: withDocIds(sg.data.docIds, docs.map((d) => d.id)), updatedAt: at });
      return { n: docs.length, done: false };
    });
    moved += step.n;
    if (step.done) return { suggestionId: sgId, moved };
  }
}

/**
 * Assigns the suggestion's invoices that have no supplier yet (a hand assignment is kept) to the
 * supplier, chunk by chunk; they keep suggestionId. Resumable like the moves above.
 */
export async function assignSuggestionInvoices(
  store: DocStore,
  businessId: string,
  suggestionId: string,
  supplier: { key: string; name: string },
  at: string,
): Promise<number> {
  let assigned = 0;
  for (;;) {
    const n = await store.runTransaction(async (tx) => {
      const docs = await tx.query({
        collection: invoicesPath(businessId),
        where: [['suggestionId', '==', suggestionId], ['supplierKey', '==', null]],
        limit: MOVE_CHUNK,
      });
      for (const d of docs) tx.update(d.path, { supplierKey: supplier.key, supplierName: supplier.name, supplierBy: 'auto', updatedAt: at });
      return docs.length;
    });
    assigned += n;
    if (n < MOVE_CHUNK) return assigned;
  }
}

/** The current softwareSync generation (0 before the first forced run). */
export async function syncGeneration(store: Reader, businessId: string): Promise<number> {
  const doc = await store.get(softwareSyncStatePath(businessId));
  return Number((doc?.data as SoftwareSyncState | undefined)?.generation ?? 0);
}
