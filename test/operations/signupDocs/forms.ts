import JSZip from 'jszip';
import { PDFDocument, rgb } from 'pdf-lib';
import { drawText, embedTextFont } from '../../../functions/src/core/pdfText.ts';

/**
 * Real-looking onboarding forms made in the tests: a two-page Hebrew PDF with boxes drawn where values go,
 * and a DOCX with underscore blanks (one split across runs, as Word often saves them). Each comes with the
 * fields the fake Gemini answers for it (boxes on the 0–1000 scale, [ymin, xmin, ymax, xmax]).
 */

export const PAGE = { width: 595, height: 842 };

interface Spec { label: string; kind: 'text' | 'date' | 'signature' | 'stamp' | 'checkbox'; page: number; box: [number, number, number, number] }

export const PDF_FIELDS: Spec[] = [
  { label: 'שם העסק', kind: 'text', page: 0, box: [150, 300, 180, 700] },
  { label: 'ח.פ.', kind: 'text', page: 0, box: [200, 300, 230, 700] },
  { label: 'כתובת', kind: 'text', page: 0, box: [250, 300, 280, 700] },
  { label: 'תאריך', kind: 'date', page: 0, box: [300, 300, 330, 500] },
  { label: 'אני מאשר/ת את תנאי ההתקשרות', kind: 'checkbox', page: 0, box: [350, 660, 370, 690] },
  { label: 'חתימה', kind: 'signature', page: 0, box: [500, 100, 600, 400] },
  { label: 'חותמת', kind: 'stamp', page: 0, box: [480, 550, 660, 850] },
  { label: 'מספר חשבון', kind: 'text', page: 1, box: [150, 300, 180, 700] },
];

/** PDF points of a 0–1000 box on the A4 page (bottom-left origin). */
export const rectOf = (box: number[]) => ({
  x: (box[1] / 1000) * PAGE.width,
  y: PAGE.height - (box[2] / 1000) * PAGE.height,
  width: ((box[3] - box[1]) / 1000) * PAGE.width,
  height: ((box[2] - box[0]) / 1000) * PAGE.height,
});

export async function hebrewFormPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(new Date('2025-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2025-01-01T00:00:00Z'));
  const font = await embedTextFont(doc);
  const pages = [doc.addPage([PAGE.width, PAGE.height]), doc.addPage([PAGE.width, PAGE.height])];
  drawText(pages[0], 'טופס הקמת ספק', { x: 0, y: 780, size: 20, font, maxWidth: PAGE.width, align: 'center' });
  drawText(pages[1], 'פרטי בנק', { x: 0, y: 780, size: 20, font, maxWidth: PAGE.width, align: 'center' });
  for (const f of PDF_FIELDS) {
    const r = rectOf(f.box);
    const page = pages[f.page];
    page.drawRectangle({ ...r, borderColor: rgb(0.5, 0.5, 0.5), borderWidth: 0.75 });
    // Label to the right of its box, as Hebrew forms place it.
    drawText(page, f.label + ':', { x: r.x + r.width + 6, y: r.y + r.height / 2 - 4, size: 11, font });
  }
  return Buffer.from(await doc.save());
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const para = (...runs: string[]) => `<w:p>${runs.map((t) => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`).join('')}</w:p>`;

export async function underscoreFormDocx(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file('word/_rels/document.xml.rels', '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>` +
      para('Supplier registration form') +
      para('Company name: ', '____________________') +
      // Word splits blanks across runs; the value must still land in one place.
      para('Company ID: ______', '______', ' (9 digits)') +
      para('Address: ______________________________') +
      para('Date: __________') +
      para('I accept the terms &amp; conditions: ____') +
      para('Signature: ____________________') +
      para('Stamp: ____________________') +
      '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>',
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

export const DOCX_FIELDS: Spec[] = [
  { label: 'Company name', kind: 'text', page: 0, box: [0, 0, 0, 0] },
  { label: 'Company ID', kind: 'text', page: 0, box: [0, 0, 0, 0] },
  { label: 'Address', kind: 'text', page: 0, box: [0, 0, 0, 0] },
  { label: 'Date', kind: 'date', page: 0, box: [0, 0, 0, 0] },
  { label: 'I accept the terms & conditions', kind: 'checkbox', page: 0, box: [0, 0, 0, 0] },
  { label: 'Signature', kind: 'signature', page: 0, box: [0, 0, 0, 0] },
  { label: 'Stamp', kind: 'stamp', page: 0, box: [0, 0, 0, 0] },
];

/** The document's text, paragraph per line, as a reader of the file would see it. */
export async function docxParagraphs(bytes: Buffer): Promise<string[]> {
  const zip = await JSZip.loadAsync(bytes);
  const xml = await zip.file('word/document.xml')!.async('string');
  const un = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return [...xml.matchAll(/<w:p\b[^>]*>([\s\S]*?)<\/w:p>/g)].map((p) => [...p[1].matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((t) => un(t[1])).join(''));
}
