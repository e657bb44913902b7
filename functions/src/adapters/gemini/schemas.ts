import { z } from 'zod';
import { AI_PAY_METHODS, DOC_TYPES, readingSchema, type InvoiceReading } from '../../domain/invoices/invoices.ts';

/**
 * What Gemini is asked to return. It differs from readingSchema on purpose: amounts come in major units
 * (models read "1,234.50" more reliably than they multiply), and every object is strict so a reply carrying
 * anything beyond the schema fails instead of being silently trimmed. readingSchema stays the final gate.
 */
const text = (description: string) => z.string().nullable().describe(description);
const amount = (description: string) => z.number().nullable().describe(description);

export const readingReplySchema = z.strictObject({
  issuer: z
    .strictObject({
      name: text('Name of the business that issued the document (the seller, not the customer).'),
      vatId: text('Issuer VAT number or company id as printed (Israel: עוסק מורשה / ח.פ, usually 9 digits).'),
      email: text('Issuer email address.'),
      phone: text('Issuer phone number as printed.'),
    })
    .describe('The issuer of the document.'),
  docType: z
    .enum(DOC_TYPES)
    .nullable()
    .describe(
      'tax_invoice = חשבונית מס; tax_invoice_receipt = חשבונית מס קבלה; receipt = קבלה; proforma = proforma or חשבון עסקה; credit_note = חשבונית זיכוי; other = anything else.',
    ),
  number: text('Document number as printed.'),
  date: text('Issue date as YYYY-MM-DD.'),
  total: amount('Grand total including VAT, in major units with decimals (e.g. 1234.50), as printed.'),
  currency: z.enum(['ILS', 'USD', 'EUR']).nullable().describe('ILS for ₪, ש"ח or NIS; USD; EUR; null for any other currency.'),
  vat: amount('VAT amount (מע"מ), in major units with decimals.'),
  payMethod: z.enum(AI_PAY_METHODS).nullable().describe('How the document says it was paid, or null if it does not say.'),
  cardEnding: text('Last 4 digits of the payment card, exactly 4 digits, if printed.'),
  lineItems: z
    .array(
      z.strictObject({
        description: text('Line description.'),
        quantity: z.number().nullable().describe('Quantity, if printed.'),
        total: amount('Line total in major units with decimals.'),
      }),
    )
    .max(200)
    .describe('The document lines, at most 200.'),
  bank: z
    .strictObject({
      bankCode: text('Bank code (Israel: 2 digits, e.g. 12).'),
      branch: text('Branch number.'),
      account: text('Account number.'),
      beneficiary: text('Account holder name.'),
    })
    .nullable()
    .describe('Bank details printed for paying the issuer, or null.'),
  allocationNumber: text('Israeli Tax Authority allocation number (מספר הקצאה), digits as printed.'),
});
export type ReadingReply = z.output<typeof readingReplySchema>;

/** Form blanks (analyzeSignupDoc): spec §2 fields; ranges are clamped by the caller, not refused. */
export const formFieldsReplySchema = z.strictObject({
  fields: z
    .array(
      z.strictObject({
        label: z.string().describe('The label printed next to the blank, as written on the form (same language).'),
        value: z.string().describe('Suggested value from the business facts, or "" when none fits. "" for signature and stamp.'),
        kind: z.enum(['text', 'date', 'signature', 'stamp', 'checkbox']).describe('What the blank takes.'),
        page: z.int().describe('0-based page of the blank (0 for a text document).'),
        box: z.array(z.number()).min(4).max(4).describe('Where the value goes: [ymin, xmin, ymax, xmax] on a 0-1000 scale of the page; [0,0,0,0] for a text document.'),
      }),
    )
    .max(200)
    .describe('Every blank to fill, in reading order, at most 200.'),
});

/** The keywords Gemini's responseJsonSchema understands; the rest are dropped (zod still enforces them). */
const KEPT = new Set([
  'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems', 'minItems', 'maxItems',
  'minimum', 'maximum', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'required', 'propertyOrdering',
]);

function prune(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(prune);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (!KEPT.has(k)) continue;
    // `properties` maps field names to schemas; its keys are names, not keywords.
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([n, s]) => [n, prune(s)])) : prune(v);
  }
  return out;
}

export const toGeminiJsonSchema = (schema: z.ZodType): Record<string, unknown> =>
  prune(z.toJSONSchema(schema, { io: 'output', reused: 'inline', unrepresentable: 'any' })) as Record<string, unknown>;

let readingJson: Record<string, unknown> | undefined;
/** Built on first use, so the cold start does not pay for it. */
export const readingJsonSchema = () => (readingJson ??= toGeminiJsonSchema(readingReplySchema));

/** Trims every string and turns blanks into null, so "" and "  " mean "not on the document". */
export function blanksToNull(v: unknown): unknown {
  if (typeof v === 'string') {
    const t = v.trim();
    return t === '' ? null : t;
  }
  if (Array.isArray(v)) return v.map(blanksToNull);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blanksToNull(x)]));
  return v;
}

/** Major units to integer minor units; 2-decimal floats like 19.99 * 100 are rounded, never truncated. */
export function toMinor(major: number | null): number | null {
  if (major === null) return null;
  const cents = Number((Math.abs(major) * 100).toFixed(4));
  const minor = Math.sign(major) * Math.round(cents);
  if (!Number.isSafeInteger(minor)) throw new RangeError('amount out of range');
  return minor === 0 ? 0 : minor; // no -0
}

const CURRENCY_ALIASES: Record<string, string> = { NIS: 'ILS', '₪': 'ILS', 'ש"ח': 'ILS', '$': 'USD', '€': 'EUR' };

const isCalendarDate = (d: string) => {
  const t = Date.parse(d + 'T00:00:00Z');
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
};

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.length ? issue.path.join('.') : '(root)';
  return `${path}: ${issue?.message ?? 'invalid'}`.slice(0, 200);
}

/** Reply JSON (already parsed) to a validated InvoiceReading. */
export function toReading(raw: unknown): Parsed<InvoiceReading> {
  const cleaned = blanksToNull(raw) as Record<string, unknown> | null;
  if (cleaned && typeof cleaned === 'object' && typeof cleaned.currency === 'string') {
    const c = cleaned.currency.toUpperCase();
    cleaned.currency = CURRENCY_ALIASES[c] ?? c;
  }
  const reply = readingReplySchema.safeParse(cleaned);
  if (!reply.success) return { ok: false, reason: `AI reply does not match the schema (${describeIssue(reply.error)})` };
  const r = reply.data;
  if (r.date !== null && !isCalendarDate(r.date)) return { ok: false, reason: 'AI reply does not match the schema (date: not a calendar date)' };
  let candidate: unknown;
  try {
    candidate = {
      issuer: r.issuer,
      docType: r.docType,
      number: r.number,
      date: r.date,
      totalMinor: toMinor(r.total),
      currency: r.currency,
      vatMinor: toMinor(r.vat),
      payMethod: r.payMethod,
      cardEnding: r.cardEnding,
      lineItems: r.lineItems
        .filter((l) => l.description !== null || l.total !== null)
        .map((l) => ({ description: l.description ?? '', quantity: l.quantity, totalMinor: toMinor(l.total) })),
      // A bank block with every field blank is no bank details at all.
      bank:
        r.bank && Object.values(r.bank).some((p) => p !== null)
          ? { bankCode: r.bank.bankCode ?? '', branch: r.bank.branch ?? '', account: r.bank.account ?? '', beneficiary: r.bank.beneficiary ?? '' }
          : null,
      allocationNumber: r.allocationNumber,
    };
  } catch {
    return { ok: false, reason: 'AI reply does not match the schema (an amount is out of range)' };
  }
  const reading = readingSchema.safeParse(candidate);
  if (!reading.success) return { ok: false, reason: `AI reply does not match the schema (${describeIssue(reading.error)})` };
  return { ok: true, value: reading.data };
}

/** Category reply: the enum keeps the model on the given ids; validation stays lenient so unknown ids become null. */
export const categoriesRequestSchema = (ids: string[]) =>
  z.strictObject({
    results: z.array(
      z.strictObject({
        id: z.string().describe('The item id, copied from the input.'),
        category: z.enum(ids as [string, ...string[]]).nullable().describe('The best category id, or null when unsure.'),
      }),
    ),
  });
export const categoriesReplySchema = z.strictObject({
  results: z.array(z.strictObject({ id: z.string(), category: z.string().nullable() })).max(1000),
});

export const softwareRequestSchema = z.strictObject({
  results: z.array(
    z.strictObject({
      key: z.string().describe('The issuer key, copied from the input.'),
      kind: z.enum(['software', 'supplier']).describe('software = a software tool, SaaS or online service; supplier = anything else.'),
    }),
  ),
});
export const softwareReplySchema = z.strictObject({
  results: z.array(z.strictObject({ key: z.string(), kind: z.enum(['software', 'supplier']) })).max(1000),
});
