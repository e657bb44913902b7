import { z } from 'zod';
import { invalid } from '../../core/errors.ts';
import { CURRENCIES } from '../money.ts';
import type { InvoiceReading } from '../../ports/invoiceReading.ts';

/**
 * Hand corrections of an AI reading (issue 35 item 4). The stored `reading` holds the values in force (the AI's,
 * with the corrections over them), so every reader — reports, ZIP names, the duplicate queries — sees them
 * without knowing about corrections; `corrections` remembers who changed which field, when, and what the AI read,
 * so `null` can give the AI's value back and a new AI reading never overwrites a corrected field.
 */
export const CORRECTABLE = ['issuerName', 'issuerId', 'number', 'date', 'totalAgorot', 'vatAgorot', 'currency'] as const;
export type Correctable = (typeof CORRECTABLE)[number];
type Value = string | number | null;

export interface Correction {
  /** The caller's email. */
  by: string;
  at: string;
  /** What the AI read for this field (null: nothing, or no reading yet). */
  ai: Value;
}
export type ReadingCorrections = Partial<Record<Correctable, Correction>>;

const correctionSchema = z.object({ by: z.string(), at: z.string(), ai: z.union([z.string(), z.int()]).nullable() });
export const correctionsSchema = z
  .partialRecord(z.enum(CORRECTABLE), correctionSchema)
  .describe('Hand-corrected reading fields: by (email), at, ai (the AI value).');

/** updateInvoiceDoc's `reading`: a value corrects the field, null gives back the AI's value. */
export const readingInput = z
  .strictObject({
    // Each first sentence only repeats the field's name, so the MCP list leaves it out (toolSchemas.ts); the OpenAPI keeps the rest.
    issuerName: z.string().trim().min(1).max(300).nullable().optional().describe('Issuer name. As printed on the invoice; null restores what the AI read.'),
    issuerId: z.string().trim().max(40).nullable().optional().describe("Issuer id. The issuer's Israeli business number, 8 or 9 digits; null restores what the AI read."),
    number: z.string().trim().min(1).max(100).nullable().optional().describe('Number. The invoice number as printed; null restores what the AI read.'),
    date: z.string().max(10).nullable().optional().describe('Date. The invoice date, YYYY-MM-DD; null restores what the AI read.'),
    totalAgorot: z.int().min(0).max(1e12).nullable().optional().describe('Total agorot. The total with VAT in agorot (cents for USD and EUR); null restores what the AI read.'),
    vatAgorot: z.int().min(0).max(1e12).nullable().optional().describe('VAT agorot. The VAT in agorot, at most the total; null restores what the AI read.'),
    currency: z.enum(CURRENCIES).nullable().optional().describe('Currency. ILS, USD or EUR; null restores what the AI read.'),
  })
  .describe('Fixes to the AI reading (agorot). A null field restores the AI value; corrected fields survive re-reads.');
export type ReadingInput = z.output<typeof readingInput>;

export const EMPTY_READING: InvoiceReading = {
  issuer: { name: null, vatId: null, email: null, phone: null },
  docType: null,
  number: null,
  date: null,
  totalMinor: null,
  currency: null,
  vatMinor: null,
  payMethod: null,
  cardEnding: null,
  lineItems: [],
  bank: null,
  allocationNumber: null,
};

export function fieldOf(r: InvoiceReading | null, f: Correctable): Value {
  if (!r) return null;
  switch (f) {
    case 'issuerName':
      return r.issuer.name;
    case 'issuerId':
      return r.issuer.vatId;
    case 'totalAgorot':
      return r.totalMinor;
    case 'vatAgorot':
      return r.vatMinor;
    default:
      return r[f];
  }
}

function withField(r: InvoiceReading, f: Correctable, v: Value): InvoiceReading {
  const s = v as string | null;
  const n = v as number | null;
  switch (f) {
    case 'issuerName':
      return { ...r, issuer: { ...r.issuer, name: s } };
    case 'issuerId':
      return { ...r, issuer: { ...r.issuer, vatId: s } };
    case 'totalAgorot':
      return { ...r, totalMinor: n };
    case 'vatAgorot':
      return { ...r, vatMinor: n };
    case 'currency':
      return { ...r, currency: s as InvoiceReading['currency'] };
    default:
      return { ...r, [f]: s };
  }
}

/** What a corrected field holds: the stored reading's value (the correction is written into it). */
const correctedValue = (stored: InvoiceReading | null, f: Correctable) => fieldOf(stored, f);

/**
 * A new AI reading with the document's corrections kept over it; each correction's `ai` becomes what this
 * reading found. `stored` is the reading in force before (it holds the corrected values).
 */
export function keepCorrections(ai: InvoiceReading, stored: InvoiceReading | null, corrections: ReadingCorrections | undefined): { reading: InvoiceReading; corrections: ReadingCorrections } {
  let reading = ai;
  const next: ReadingCorrections = {};
  for (const f of CORRECTABLE) {
    const c = corrections?.[f];
    if (!c) continue;
    next[f] = { ...c, ai: fieldOf(ai, f) };
    reading = withField(reading, f, correctedValue(stored, f));
  }
  return { reading, corrections: next };
}

/**
 * Applies `input` to a document's reading: validates each value (invalid-argument names `reading.<field>`),
 * records who corrected it, and for null restores the AI's value. A document not read yet gets an empty reading.
 * The caller checks `date` is a real day and normalizes `issuerId` (invoiceDocs and ita import this module's users).
 */
export function correctReading(
  stored: InvoiceReading | null,
  corrections: ReadingCorrections | undefined,
  input: ReadingInput,
  who: { by: string; at: string },
): { reading: InvoiceReading; corrections: ReadingCorrections } {
  let reading = stored ?? EMPTY_READING;
  const next: ReadingCorrections = { ...corrections };
  for (const f of CORRECTABLE) {
    const v = input[f];
    if (v === undefined) continue;
    const prior = next[f];
    if (v === null) {
      if (prior) reading = withField(reading, f, prior.ai);
      delete next[f];
      continue;
    }
    reading = withField(reading, f, v);
    next[f] = { by: who.by, at: who.at, ai: prior ? prior.ai : fieldOf(stored, f) };
  }
  // Checked when either figure is sent: a misread pair does not block correcting another field.
  const figures = input.totalAgorot !== undefined || input.vatAgorot !== undefined;
  if (figures && reading.totalMinor !== null && reading.vatMinor !== null && reading.vatMinor > reading.totalMinor) {
    throw invalid(input.vatAgorot != null ? 'reading.vatAgorot' : 'reading.totalAgorot', `VAT ${reading.vatMinor} is more than the total ${reading.totalMinor} (agorot)`, { reason: 'vatOverTotal' });
  }
  return { reading, corrections: next };
}

/** VAT equal to the whole total (and not zero): almost always a misread, which reports flag. */
export const vatIsTotal = (r: Pick<InvoiceReading, 'totalMinor' | 'vatMinor'> | null | undefined): boolean =>
  !!r && r.totalMinor !== null && r.totalMinor !== 0 && r.vatMinor !== null && Math.abs(r.vatMinor) === Math.abs(r.totalMinor);

/** Whether the owner corrected any of the figures a file name or report states. */
export const figuresCorrected = (c: ReadingCorrections | undefined) => !!c && (c.totalAgorot !== undefined || c.vatAgorot !== undefined || c.currency !== undefined);
