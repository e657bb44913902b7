import { invalid } from './errors.ts';

/**
 * What an uploaded PDF, DOCX or ZIP may expand to once opened (docs/decisions.md, "Uploaded documents: parser and
 * inflation caps"). Every count is of bytes or items actually produced while reading, never of sizes the file
 * declares about itself: a bomb lies about those.
 */
export const DOCUMENT_LIMITS = {
  zip: {
    /** Entries in the central directory. */
    entries: 2000,
    /** Bytes inflated from one entry. */
    entryBytes: 50 * 1024 * 1024,
    /** Bytes inflated from all entries together. */
    totalBytes: 128 * 1024 * 1024,
  },
  xml: {
    /** Bytes of one XML part that is parsed (word/document.xml and the parts edited with it). */
    partBytes: 8 * 1024 * 1024,
    /** Elements counted in one part. */
    elements: 500_000,
    /** Elements open at once (Word nests tables in tables, but not hundreds deep). */
    depth: 256,
  },
  pdf: {
    /** Bytes inflated from all the PDF's compressed streams together (nested zlib counted at every level). */
    inflatedBytes: 128 * 1024 * 1024,
    /** Compressed streams looked at. */
    streams: 100_000,
    /** Bytes of object and cross-reference streams pdf-lib decodes and keeps while loading the document. */
    objectStreamBytes: 32 * 1024 * 1024,
    /** Objects declared: indirect objects, objects in object streams and cross-reference stream rows. */
    objects: 200_000,
  },
} as const;

/** A document refused by a cap or as unreadable; `reason` is safe to show to the caller. */
export class UnreadableDocument extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = 'UnreadableDocument';
  }
}

export const isUnreadableDocument = (e: unknown): e is UnreadableDocument => e instanceof UnreadableDocument;

export const megabytes = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

/** A refused document as the caller's 400, naming the field and the file; any other error as it is. */
export const refusedAs = (e: unknown, field: string, fileName: string): unknown =>
  isUnreadableDocument(e) ? invalid(field, `${fileName}: ${e.reason}`, { reason: 'fileUnreadable' }) : e;
