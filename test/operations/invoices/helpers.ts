import { createHash } from 'node:crypto';
import { createHarness, type Harness, type TestUser } from '../../harness.ts';
import { invoicePdf, b64 } from '../../fakes/pdfs.ts';
import type { Ai, AiFile, AiResult } from '../../../functions/src/ports/ai.ts';
import type { InvoiceReading } from '../../../functions/src/domain/invoices/invoices.ts';
import { invoicesPath, type InvoiceDoc } from '../../../functions/src/domain/invoices/invoices.ts';

/**
 * Shared set-up for the invoice operation tests: a harness whose AI port is a scripted fake.
 * Readings are scripted per file (by content hash); category answers by a function.
 */
export interface FakeAi extends Ai {
  configured: boolean;
  /** What readInvoice answers for these bytes. */
  script(bytes: Buffer, result: AiResult<InvoiceReading> | InvoiceReading): void;
  /** Answer for files with no script (default: a failed reading). */
  fallback: AiResult<InvoiceReading>;
  reads: AiFile[];
  classify: (items: { id: string; issuer: string; lineItems: string[] }[]) => AiResult<Record<string, string | null>>;
  classifyCalls: { id: string; issuer: string; lineItems: string[] }[][];
  /** Makes readInvoice wait until `release()` is called (for races). */
  hold(): () => void;
}

const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export function fakeAi(configured = true): FakeAi {
  const scripted = new Map<string, AiResult<InvoiceReading>>();
  let gate: Promise<void> | null = null;
  const ai: FakeAi = {
    configured,
    fallback: { ok: false, reason: 'the document is not legible' },
    reads: [],
    classifyCalls: [],
    script(bytes, result) {
      scripted.set(hash(bytes), 'ok' in result ? result : { ok: true, value: result });
    },
    async readInvoice(file) {
      ai.reads.push(file);
      if (gate) await gate;
      return scripted.get(hash(file.bytes)) ?? ai.fallback;
    },
    classify: (items) => ({ ok: true, value: Object.fromEntries(items.map((i) => [i.id, null])) }),
    async classifyCategories(items) {
      ai.classifyCalls.push(items);
      return ai.classify(items);
    },
    // Forms are tested against the fake Gemini (test/operations/signupDocs); not used here.
    findFormFields: async () => ({ ok: false, reason: 'not scripted' }),
    async classifySoftware(issuers) {
      return { ok: true, value: Object.fromEntries(issuers.map((i) => [i.key, 'supplier' as const])) };
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
  };
  return ai;
}

export interface InvoicesEnv {
  h: Harness;
  ai: FakeAi;
  close(): Promise<void>;
}

export async function invoicesEnv(opts: { configured?: boolean; env?: Record<string, string>; now?: () => number } = {}): Promise<InvoicesEnv> {
  const ai = fakeAi(opts.configured ?? true);
  const h = await createHarness({ env: opts.env, overrides: { ai, ...(opts.now ? { clock: { now: opts.now } } : {}) } });
  return { h, ai, close: () => h.close() };
}

let readingSeq = 0;
/**
 * A reading with every field; `over` replaces fields, `issuer` fields merge. Number and total
 * differ per call, so two default readings are never duplicates of each other.
 */
export function reading(over: Partial<Omit<InvoiceReading, 'issuer'>> & { issuer?: Partial<InvoiceReading['issuer']> } = {}): InvoiceReading {
  const { issuer, ...rest } = over;
  const n = ++readingSeq;
  return {
    issuer: { name: 'Acme Ltd', vatId: '515123456', email: null, phone: null, ...issuer },
    docType: 'tax_invoice',
    number: `INV-${n}`,
    date: '2025-03-14',
    totalMinor: 11_700 + n,
    currency: 'ILS',
    vatMinor: 1_700,
    payMethod: null,
    cardEnding: null,
    lineItems: [{ description: 'Consulting', quantity: 1, totalMinor: 10_000 }],
    bank: null,
    allocationNumber: null,
    ...rest,
  };
}

let seq = 0;
/** A distinct invoice PDF (distinct bytes each call). */
export const pdf = (over: Parameters<typeof invoicePdf>[0] = {}) => invoicePdf({ number: `seq-${++seq}`, ...over });

export const uploadBody = (bytes: Buffer, over: Record<string, unknown> = {}) => ({ fileName: 'invoice.pdf', mimeType: 'application/pdf', dataBase64: b64(bytes), ...over });

/** Uploads a fresh PDF that the fake AI reads as `r` (null: no script, so the reading fails). */
export async function upload(env: InvoicesEnv, r: InvoiceReading | null = reading(), over: Record<string, unknown> = {}, user?: TestUser) {
  const bytes = await pdf();
  if (r) env.ai.script(bytes, r);
  return env.h.call('uploadInvoiceDoc', uploadBody(bytes, over), user);
}

export async function storedDoc(h: Harness, docId: string, businessId = h.owner.businessId): Promise<InvoiceDoc> {
  const d = await h.app.services.store.get(invoicesPath(businessId, docId));
  if (!d) throw new Error(`no invoice ${docId}`);
  return d.data as unknown as InvoiceDoc;
}

export const docExists = async (h: Harness, docId: string, businessId = h.owner.businessId) => (await h.app.services.store.get(invoicesPath(businessId, docId))) !== null;

export const countDocs = async (h: Harness, collection: string) => (await h.app.services.store.query({ collection })).length;
