/**
 * Shared fixtures for the software and supplier-suggestion tests (no tests of its own; the name keeps it
 * inside the test folders these suites own): complete InvoiceDoc documents written straight to the store,
 * as an upload leaves them, and a scripted fake of the AI port.
 */
import { randomUUID } from 'node:crypto';
import type { DocStore } from '../../../functions/src/ports/store.ts';
import type { Ai, AiResult } from '../../../functions/src/ports/ai.ts';
import { GENERAL_FOLDER, invoicesPath, type InvoiceDoc, type InvoiceReading } from '../../../functions/src/domain/invoices/invoices.ts';
import { vendorKeyOf } from '../../../functions/src/domain/invoices/vendorKeys.ts';
import { issuerId, recordSuggestion, suggestionsPath, type SuggestionRecord } from '../../../functions/src/domain/invoices/issuers.ts';

export type Issuer = Partial<InvoiceReading['issuer']>;

export function reading(issuer: Issuer, lineItems: string[] = []): InvoiceReading {
  return {
    issuer: { name: issuer.name ?? null, vatId: issuer.vatId ?? null, email: issuer.email ?? null, phone: issuer.phone ?? null },
    docType: 'tax_invoice',
    number: String(1000 + Math.floor(Math.random() * 9000)),
    date: '2025-03-14',
    totalMinor: 11800,
    currency: 'ILS',
    vatMinor: 1800,
    payMethod: 'card',
    cardEnding: '4242',
    lineItems: lineItems.map((description) => ({ description, quantity: 1, totalMinor: 10000 })),
    bank: null,
    allocationNumber: null,
  };
}

/** A complete document as uploadInvoiceDoc stores it after a successful reading. */
export function invoiceDoc(businessId: string, r: InvoiceReading | null, over: Partial<InvoiceDoc> = {}): InvoiceDoc {
  const docId = over.docId ?? randomUUID().replace(/-/g, '').slice(0, 20);
  const at = '2025-03-15T10:00:00.000Z';
  return {
    docId,
    businessId,
    fileId: `file-${docId}`,
    fileName: `${docId}.pdf`,
    contentType: 'application/pdf',
    size: 1234,
    sha256: docId.padEnd(64, '0'),
    source: 'upload',
    paymentId: null,
    reading: r,
    readingStatus: r ? 'read' : 'unread',
    readingError: null,
    readAt: r ? at : null,
    vendorKey: vendorKeyOf(r),
    duplicateOf: null,
    mailbox: null,
    folderId: GENERAL_FOLDER,
    folderBy: 'default',
    folderRuleId: null,
    category: '',
    categoryBy: null,
    note: '',
    payMark: '',
    effectivePayMark: 'paid_card',
    supplierKey: null,
    supplierName: '',
    supplierBy: null,
    suggestionId: null,
    softwareId: null,
    date: r?.date ?? '2025-03-15',
    search: [],
    createdAt: at,
    createdAtMs: Date.parse(at),
    updatedAt: at,
    ...over,
  };
}

export async function putInvoices(store: DocStore, docs: InvoiceDoc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 400) {
    const batch = store.batch();
    for (const d of docs.slice(i, i + 400)) batch.set(invoicesPath(d.businessId, d.docId), { ...d });
    await batch.commit();
  }
}

export interface Seeded {
  vendorKey: string;
  /** Suggestion id, software id and classification id alike: issuerId(vendorKey). */
  id: string;
  docIds: string[];
}

/**
 * `count` invoices of one issuer. With `suggestion` (the default) they are what an upload leaves when no
 * supplier matched: each carries suggestionId and the issuer's suggestion lists them (recordSuggestion).
 */
export async function seedIssuer(
  store: DocStore,
  businessId: string,
  issuer: Issuer,
  opts: { count?: number; lineItems?: string[]; suggestion?: boolean; over?: Partial<InvoiceDoc> } = {},
): Promise<Seeded> {
  const { count = 1, lineItems = [], suggestion = true, over = {} } = opts;
  const r = reading(issuer, lineItems);
  const vendorKey = vendorKeyOf(r)!;
  const id = issuerId(vendorKey);
  const docs = Array.from({ length: count }, () => invoiceDoc(businessId, r, { suggestionId: suggestion ? id : null, ...over }));
  await putInvoices(store, docs);
  if (suggestion) {
    const at = new Date().toISOString();
    for (const d of docs.slice(0, 3)) {
      await store.runTransaction(async (tx) => {
        const existing = await tx.get(suggestionsPath(businessId, id));
        recordSuggestion(tx, d, (existing?.data ?? null) as SuggestionRecord | null, at);
      });
    }
  }
  return { vendorKey, id, docIds: docs.map((d) => d.docId) };
}

export async function invoice(store: DocStore, businessId: string, docId: string): Promise<InvoiceDoc> {
  const doc = await store.get(invoicesPath(businessId, docId));
  if (!doc) throw new Error(`no invoice ${docId}`);
  return doc.data as unknown as InvoiceDoc;
}

export async function invoicesOf(store: DocStore, businessId: string, docIds: string[]): Promise<InvoiceDoc[]> {
  return (await store.getAll(docIds.map((d) => invoicesPath(businessId, d)))).map((d) => d!.data as unknown as InvoiceDoc);
}

type Issuers = Parameters<Ai['classifySoftware']>[0];
type Verdicts = Record<string, 'software' | 'supplier'>;

/** The AI port, scripted: classifySoftware answers by `reply` (default: issuers named in `softwareNames` are software). */
export interface ScriptedAi extends Ai {
  configured: boolean;
  calls: Issuers[];
  softwareNames: Set<string>;
  reply: (issuers: Issuers) => AiResult<Verdicts>;
}

export function scriptedAi(softwareNames: string[] = [], configured = true): ScriptedAi {
  const ai: ScriptedAi = {
    configured,
    calls: [],
    softwareNames: new Set(softwareNames),
    reply: (issuers) => ({ ok: true, value: Object.fromEntries(issuers.map((i) => [i.key, ai.softwareNames.has(i.name) ? 'software' : 'supplier'])) }),
    async readInvoice() {
      throw new Error('readInvoice is not scripted in these tests');
    },
    async classifyCategories() {
      throw new Error('classifyCategories is not scripted in these tests');
    },
    // Forms are tested against the fake Gemini (test/operations/signupDocs); not used here.
    findFormFields: async () => ({ ok: false, reason: 'not scripted' }),
    async classifySoftware(issuers) {
      if (!ai.configured) return { ok: false, reason: 'AI is not configured' };
      ai.calls.push(issuers);
      return ai.reply(issuers);
    },
  };
  return ai;
}
