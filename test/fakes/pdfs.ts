import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * Test files with real signatures: invoice PDFs built with pdf-lib, and small PNG and JPEG byte
 * strings. A `seed` makes each file distinct (a different content hash).
 */
export interface PdfInvoice {
  issuer?: string;
  number?: string;
  date?: string;
  total?: string;
  lines?: string[];
}

export async function invoicePdf(inv: PdfInvoice = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  // Fixed dates keep the bytes a function of the content only.
  doc.setCreationDate(new Date('2025-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2025-01-01T00:00:00Z'));
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const lines = [
    `Tax invoice ${inv.number ?? '1001'}`,
    `Issuer: ${inv.issuer ?? 'Acme Ltd'}`,
    `Date: ${inv.date ?? '2025-03-14'}`,
    ...(inv.lines ?? ['Consulting 1 x 100.00']),
    `Total: ${inv.total ?? '117.00'} ILS`,
  ];
  lines.forEach((text, i) => page.drawText(text, { x: 50, y: 780 - i * 20, size: 12, font }));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A PNG signature and IHDR chunk, then `seed` bytes so each is distinct. */
export const pngBytes = (seed = '') => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.from(seed)]);

/** A JPEG start-of-image and JFIF header, `seed` bytes, end-of-image. */
export const jpegBytes = (seed = '') => Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.from(seed), Buffer.from('ffd9', 'hex')]);

export const b64 = (b: Buffer) => b.toString('base64');
