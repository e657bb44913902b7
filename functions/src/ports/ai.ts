import type { InvoiceReading } from './invoiceReading.ts';

/** The AI port (Gemini behind it). Every reply is validated; a bad reply is a failed result, never an exception. */
export type AiResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface AiFile {
  bytes: Buffer;
  contentType: string;
  fileName: string;
}

export interface Ai {
  /** False without an API key: AI-backed operations then answer failed-precondition "AI is not configured". */
  readonly configured: boolean;
  readInvoice(file: AiFile): Promise<AiResult<InvoiceReading>>;
  /** Picks a category id (from `categories`) for each item, or null when unsure. */
  classifyCategories(
    items: { id: string; issuer: string; lineItems: string[] }[],
    categories: { id: string; label: string }[],
  ): Promise<AiResult<Record<string, string | null>>>;
  /** Software (a card-paid tool or service) or an ordinary supplier, per issuer key. */
  classifySoftware(issuers: { key: string; name: string; lineItems: string[] }[]): Promise<AiResult<Record<string, 'software' | 'supplier'>>>;
  /**
   * The blanks of a form (a PDF, or a DOCX's text as text/plain) with values suggested from `facts`.
   * Fields as spec §2 defines them; the caller clamps pages and boxes.
   */
  findFormFields(file: AiFile, facts: { label: string; value: string }[], pageCount: number): Promise<AiResult<FormFieldGuess[]>>;
}

export interface FormFieldGuess {
  label: string;
  value: string;
  kind: 'text' | 'date' | 'signature' | 'stamp' | 'checkbox';
  page: number;
  /** [ymin, xmin, ymax, xmax], 0–1000. */
  box: number[];
}
