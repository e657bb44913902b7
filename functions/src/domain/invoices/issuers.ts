import { sha256 } from '../../core/ids.ts';
import type { Transaction } from '../../ports/store.ts';
import type { InvoiceDoc } from './invoices.ts';

/**
 * Issuers found on invoices that are not suppliers yet: supplier suggestions, or software
 * (card-paid tools). Both are keyed by the issuer's vendorKey, so an upsert is race-free.
 */
export const issuerId = (vendorKey: string) => sha256(vendorKey).slice(0, 20);

export type SuggestionStatus = 'open' | 'dismissed' | 'created' | 'software';

export interface SuggestionRecord {
  id: string;
  vendorKey: string;
  name: string;
  phone: string | null;
  email: string | null;
  vatId: string | null;
  docIds: string[];
  status: SuggestionStatus;
  /** The supplier it became (status `created`); absent on older records. */
  supplierKey?: string | null;
  createdAt: string;
  updatedAt: string;
}

export type Cadence = 'auto' | 'monthly' | 'yearly';

export interface SoftwareRecord {
  id: string;
  vendorKey: string;
  name: string;
  hidden: boolean;
  cadence: Cadence;
  docIds: string[];
  createdAt: string;
  updatedAt: string;
}

export const suggestionsPath = (businessId: string, id = '') => `businesses/${businessId}/supplierSuggestions${id ? '/' + id : ''}`;
export const softwarePath = (businessId: string, id = '') => `businesses/${businessId}/software${id ? '/' + id : ''}`;

/**
 * Inside a transaction that already read the suggestion (`existing`, or null): creates the
 * suggestion for the document's issuer or adds the document to it. A dismissed suggestion
 * stays dismissed but keeps collecting its documents.
 */
export function recordSuggestion(tx: Transaction, doc: InvoiceDoc, existing: SuggestionRecord | null, at: string): string | null {
  if (!doc.vendorKey || !doc.reading) return null;
  const id = issuerId(doc.vendorKey);
  const path = suggestionsPath(doc.businessId, id);
  if (existing) {
    if (!existing.docIds.includes(doc.docId)) tx.update(path, { docIds: [...existing.docIds, doc.docId].slice(-500), updatedAt: at });
    return id;
  }
  const { issuer } = doc.reading;
  const record: SuggestionRecord = {
    id,
    vendorKey: doc.vendorKey,
    name: issuer.name ?? doc.vendorKey.replace(/^\w+:/, ''),
    phone: issuer.phone,
    email: issuer.email?.toLowerCase() ?? null,
    vatId: issuer.vatId,
    docIds: [doc.docId],
    status: 'open',
    createdAt: at,
    updatedAt: at,
  };
  tx.set(path, { ...record });
  return id;
}
