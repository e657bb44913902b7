import type { InvoiceReading } from '../../ports/invoiceReading.ts';
import { sha256 } from '../../core/ids.ts';
import type { ReadingCorrections } from './corrections.ts';

// What the AI port answers; it lives with the port so ports/ai.ts does not import the domain.
export { AI_PAY_METHODS, DOC_TYPES, readingSchema, type AiPayMethod, type DocType, type InvoiceReading } from '../../ports/invoiceReading.ts';

/**
 * The invoice document model (spec §2 "Invoice document"). Uploads, mailbox imports and
 * supplier attachments on payments are all invoice documents at `businesses/{b}/invoices/{docId}`.
 */
export const PAY_MARKS = ['unpaid', 'paid_card', 'paid_paypal', 'paid_transfer', 'paid_other', 'not_payable'] as const;
export type PayMark = (typeof PAY_MARKS)[number];
export const INVOICE_SOURCES = ['upload', 'mailbox', 'supplier'] as const;
export type InvoiceSource = (typeof INVOICE_SOURCES)[number];

export type ReadingStatus = 'unread' | 'read' | 'failed';

export interface MailboxOrigin {
  accountId: string;
  from: string;
  subject: string;
  receivedAt: string;
  messageId: string;
  /** Whether this document is the mail body printed to PDF rather than an attachment. */
  body: boolean;
}

export interface InvoiceDoc {
  docId: string;
  businessId: string;
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  /** SHA-256 of the bytes: the first duplicate test. */
  sha256: string;
  source: InvoiceSource;
  /** Set for supplier attachments (source `supplier`). */
  paymentId: string | null;
  /** The values in force: the AI's, with `corrections` written over them. */
  reading: InvoiceReading | null;
  /** Fields corrected by hand (domain/invoices/corrections.ts); absent = none. */
  corrections?: ReadingCorrections;
  readingStatus: ReadingStatus;
  readingError: string | null;
  readAt: string | null;
  /** vat:/email:/phone:/name: key of the issuer (domain/invoices/vendorKeys). */
  vendorKey: string | null;
  /** The earlier document this one duplicates, when stored anyway. */
  duplicateOf: string | null;
  mailbox: MailboxOrigin | null;
  folderId: string;
  /** How the folder was chosen; rules re-file only `rule` placements. */
  folderBy: 'rule' | 'hand' | 'default';
  folderRuleId: string | null;
  category: string;
  categoryBy: 'rule' | 'ai' | 'hand' | null;
  /** categorySync without AI found no rule for it: only the AI can classify it (docs/decisions.md). */
  categoryNeedsAi?: boolean;
  note: string;
  /** The explicit mark; "" lets the AI reading and the pay rules decide. */
  payMark: PayMark | '';
  /** The issuer's pay rule as last applied here ("" = none), so a rule change can find the documents it has not reached. */
  payRule?: 'card' | 'not_card' | '';
  /** The mark in force (payMarks.payMarkInForce): payMark, else the paid payment's method, else the pay rule, else the AI reading. */
  effectivePayMark: PayMark;
  /** paymentPayMark of the payment paymentId names, kept by markPaid and revertPaid; absent/null = it says nothing. */
  paymentMark?: PayMark | null;
  supplierKey: string | null;
  supplierName: string;
  supplierBy: 'hand' | 'auto' | null;
  suggestionId: string | null;
  softwareId: string | null;
  /** The invoice date (reading, else the upload day), YYYY-MM-DD, for from/to filters. */
  date: string;
  search: string[];
  createdAt: string;
  createdAtMs: number;
  updatedAt: string;
}

/** The stable id of a supplier attachment's document, so analyzing it twice finds the same one. */
export const supplierDocId = (paymentId: string, fileId: string) => sha256(`supplier:${paymentId}/${fileId}`).slice(0, 20);

export const invoicesPath = (businessId: string, docId = '') => `businesses/${businessId}/invoices${docId ? '/' + docId : ''}`;

/** Built-in folder ids; card folders are `card-<ending>`. */
export const GENERAL_FOLDER = 'general';
export const PETTY_CASH_FOLDER = 'petty-cash';
export const cardFolderId = (ending: string) => `card-${ending}`;
