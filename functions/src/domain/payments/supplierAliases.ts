import type { Doc, Reader } from '../../ports/store.ts';
import { keyId } from '../contacts.ts';
import { suppliersPath } from './suppliers.ts';

/**
 * A merged supplier's key (supplierMerge): its contact keeps pointing at the supplier it became, so a later payment
 * to that phone or email lands there. `moving` while its payments and invoices are being moved.
 */
export interface SupplierAlias {
  from: string;
  into: string;
  state: 'moving' | 'done';
  at: string;
}

export const supplierAliasesPath = (businessId: string, key = '') => `businesses/${businessId}/supplierAliases${key ? '/' + keyId(key) : ''}`;

/** The key a supplier is filed under now: a merged supplier's key gives the one it was merged into. */
export async function currentSupplierKey(reader: Pick<Reader, 'get'>, businessId: string, key: string): Promise<string> {
  const alias = await reader.get(supplierAliasesPath(businessId, key));
  return alias ? String(alias.data.into) : key;
}

/** The supplier record filed under `key`, or the one a merged `key` became (one more read only on a miss). */
export async function supplierDocOf(reader: Pick<Reader, 'get'>, businessId: string, key: string): Promise<Doc | null> {
  const doc = await reader.get(suppliersPath(businessId, key));
  if (doc) return doc;
  const current = await currentSupplierKey(reader, businessId, key);
  return current === key ? null : reader.get(suppliersPath(businessId, current));
}
