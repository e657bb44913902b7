import { z } from 'zod';

/** The invoice reading the AI port (ports/ai.ts) answers, in the domain's words; domain/invoices/invoices.ts re-exports it. */

export const AI_PAY_METHODS = ['card', 'paypal', 'bank_transfer', 'cash', 'check', 'other'] as const;
export type AiPayMethod = (typeof AI_PAY_METHODS)[number];
export const DOC_TYPES = ['tax_invoice', 'tax_invoice_receipt', 'receipt', 'proforma', 'credit_note', 'other'] as const;
export type DocType = (typeof DOC_TYPES)[number];

/** What the AI reads off a document. Amounts in minor units; every field may be missing. */
export const readingSchema = z.object({
  issuer: z.object({
    name: z.string().max(300).nullable(),
    vatId: z.string().max(40).nullable(),
    email: z.string().max(254).nullable(),
    phone: z.string().max(40).nullable(),
  }),
  docType: z.enum(DOC_TYPES).nullable(),
  number: z.string().max(100).nullable(),
  /** YYYY-MM-DD */
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable(),
  totalMinor: z.int().nullable(),
  currency: z.enum(['ILS', 'USD', 'EUR']).nullable(),
  vatMinor: z.int().nullable(),
  payMethod: z.enum(AI_PAY_METHODS).nullable(),
  cardEnding: z.string().regex(/^\d{4}$/).nullable(),
  lineItems: z.array(z.object({ description: z.string().max(500), quantity: z.number().nullable(), totalMinor: z.int().nullable() })).max(200),
  bank: z.object({ bankCode: z.string().max(10), branch: z.string().max(10), account: z.string().max(30), beneficiary: z.string().max(200) }).nullable(),
  allocationNumber: z.string().max(40).nullable(),
});
export type InvoiceReading = z.output<typeof readingSchema>;
