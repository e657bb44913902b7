import type { Doc, Reader } from '../../ports/store.ts';
import { invoicesPath, type InvoiceDoc, type InvoiceReading } from './invoices.ts';

/**
 * Duplicate invoices (spec §4 uploadInvoiceDoc): the same bytes, the same issuer and number, or
 * the same issuer, date and total. The bytes rule is race-free through a marker document per
 * content hash, created in the same transaction as the invoice document: a second `create` fails.
 */
export const invoiceHashPath = (businessId: string, sha256: string) => `businesses/${businessId}/invoiceHashes/${sha256}`;

export interface HashMarker {
  sha256: string;
  docId: string;
  createdAt: string;
}

export type DuplicateReason = 'sha256' | 'number' | 'date_total';

export interface DupFields {
  sha256: string;
  vendorKey: string | null;
  reading: Pick<InvoiceReading, 'number' | 'date' | 'totalMinor'> | null;
}

/** As read (queries compare stored values exactly); a blank number does not count. */
const numberOf = (d: DupFields) => (d.reading?.number?.trim() ? d.reading.number : null);

/** Pure: why `b` duplicates `a`, or null. Issuer rules need a vendorKey on both. */
export function duplicateReason(a: DupFields, b: DupFields): DuplicateReason | null {
  if (a.sha256 && a.sha256 === b.sha256) return 'sha256';
  if (!a.vendorKey || a.vendorKey !== b.vendorKey) return null;
  const n = numberOf(a);
  if (n && n === numberOf(b)) return 'number';
  const [ra, rb] = [a.reading, b.reading];
  if (ra?.date && ra.date === rb?.date && ra.totalMinor != null && ra.totalMinor === rb?.totalMinor) return 'date_total';
  return null;
}

export interface DuplicateFound {
  duplicateOf: string | null;
  reason: DuplicateReason | null;
  /** The hash marker: absent, pointing at a live document (or at `exceptDocId`), or stale (its document is gone). */
  marker: 'absent' | 'live' | 'self' | 'stale';
}

/** A kept copy of `docId` (duplicateOf it) is no reason to call `docId` a duplicate. */
const copyOf = (d: Doc, docId: string) => docId !== '' && (d.data as unknown as InvoiceDoc).duplicateOf === docId;

/**
 * The first earlier document `doc` duplicates, checking the cheapest rule first. `exceptDocId`
 * is the document itself when it is re-read. Equality-only queries: served by merged
 * single-field indexes, no composite index needed.
 */
export async function findDuplicate(reader: Reader, businessId: string, doc: DupFields, exceptDocId = ''): Promise<DuplicateFound> {
  const markerDoc = await reader.get(invoiceHashPath(businessId, doc.sha256));
  let marker: DuplicateFound['marker'] = 'absent';
  if (markerDoc) {
    const target = String((markerDoc.data as unknown as HashMarker).docId);
    if (target === exceptDocId) marker = 'self';
    else {
      const live = await reader.get(invoicesPath(businessId, target));
      if (live && copyOf(live, exceptDocId)) marker = 'live';
      else if (live) return { duplicateOf: live.id, reason: 'sha256', marker: 'live' };
      else marker = 'stale';
    }
  }
  const first = async (where: [string, '==', unknown][]) => {
    const docs = await reader.query({ collection: invoicesPath(businessId), where, limit: 3 });
    const others = docs.filter((d) => d.id !== exceptDocId && !copyOf(d, exceptDocId));
    // An original rather than a kept copy, when both are at hand.
    return others.find((d) => !(d.data as unknown as InvoiceDoc).duplicateOf) ?? others[0] ?? null;
  };
  // Documents written without a marker (imports, a copy kept with skipDuplicates=false whose original was deleted).
  const sameBytes = await first([['sha256', '==', doc.sha256]]);
  if (sameBytes) return { duplicateOf: sameBytes.id, reason: 'sha256', marker };
  if (!doc.vendorKey || !doc.reading) return { duplicateOf: null, reason: null, marker };
  const n = numberOf(doc);
  if (n) {
    const same = await first([['vendorKey', '==', doc.vendorKey], ['reading.number', '==', n]]);
    if (same) return { duplicateOf: same.id, reason: 'number', marker };
  }
  const { date, totalMinor } = doc.reading;
  if (date && totalMinor != null) {
    const same = await first([['vendorKey', '==', doc.vendorKey], ['reading.date', '==', date], ['reading.totalMinor', '==', totalMinor]]);
    if (same) return { duplicateOf: same.id, reason: 'date_total', marker };
  }
  return { duplicateOf: null, reason: null, marker };
}
