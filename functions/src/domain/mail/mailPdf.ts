import { PDFDocument, rgb } from 'pdf-lib';
import { drawText, embedTextFont, wrapLines } from '../../core/pdfText.ts';

/**
 * A mail body "printed" to PDF with pdf-lib and the Hebrew-capable text drawing of core/pdfText.ts:
 * sender, subject and date on top, then the text wrapped to A4 pages. Pure JavaScript, so it runs on
 * Cloud Functions as it does locally (no browser, no fonts from the system).
 */
/** The MIME part id a printed body stands in for (Gmail's part ids are numeric, so it never collides). */
export const BODY_PART = 'body';
/** The printed body's file name: the subject, without path separators or control characters. */
export const bodyPdfName = (subject: string) => `${(subject || 'mail').replace(/[\\/\u0000-\u001f]/g, '_').slice(0, 80)}.pdf`;

const [W, H] = [595.28, 841.89];
const MARGIN = 50;
const SIZE = 11;
const LINE = 15;

export async function mailToPdf(m: { from: string; subject: string; date: string; text: string }): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(m.subject || 'mail');
  const regular = await embedTextFont(doc, 'regular');
  const bold = await embedTextFont(doc, 'bold');
  const width = W - 2 * MARGIN;
  let page = doc.addPage([W, H]);
  let y = H - MARGIN;
  const line = (text: string, font = regular, size = SIZE) => {
    if (y < MARGIN + LINE) {
      page = doc.addPage([W, H]);
      y = H - MARGIN;
    }
    drawText(page, text, { x: MARGIN, y, size, font, maxWidth: width });
    y -= LINE;
  };
  for (const [label, value] of [['From', m.from], ['Subject', m.subject], ['Date', m.date]] as const) {
    for (const l of wrapLines(`${label}: ${value}`, bold, SIZE, width)) line(l, bold);
  }
  page.drawLine({ start: { x: MARGIN, y: y + LINE / 2 }, end: { x: W - MARGIN, y: y + LINE / 2 }, thickness: 0.5, color: rgb(0.6, 0.6, 0.6) });
  y -= LINE / 2;
  for (const para of (m.text || '(empty body)').split('\n')) {
    const lines = para.trim() ? wrapLines(para, regular, SIZE, width) : [''];
    for (const l of lines) (l ? line(l) : (y -= LINE));
  }
  return Buffer.from(await doc.save());
}
