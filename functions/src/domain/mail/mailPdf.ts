import { PDFDocument, rgb, type PDFPage } from 'pdf-lib';
import { cleanText, drawText, embedTextFont, isRtl, textWidth, wrapLines, type TextFont } from '../../core/pdfText.ts';
import { mailBlocks, textBlocks, type MailBlock, type MailCell } from './mailLayout.ts';

/**
 * A mail body "printed" to PDF with pdf-lib and the Hebrew-capable text drawing of core/pdfText.ts:
 * sender, subject and date (Israel time) on top, then the body: paragraphs wrapped to A4 pages, and HTML
 * tables drawn as tables, with columns and borders (right to left when the table is Hebrew). Pure
 * JavaScript, so it runs on Cloud Functions as it does locally: no browser (docs/decisions.md).
 */
/** The MIME part id a printed body stands in for (Gmail's part ids are numeric, so it never collides). */
export const BODY_PART = 'body';
/** The printed body's file name: the subject, without path separators or control characters. */
export const bodyPdfName = (subject: string) => `${(subject || 'mail').replace(/[\\/\u0000-\u001f]/g, '_').slice(0, 80)}.pdf`;

const [W, H] = [595.28, 841.89];
const MARGIN = 50;
const SIZE = 11;
const LINE = 15;
const CELL_PAD = 4;
const MIN_COL = 36;
const BORDER = rgb(0.55, 0.55, 0.55);
const HEADER_FILL = rgb(0.92, 0.92, 0.92);

/** The mail's moment as an Israeli reader reads it: day.month.year, 24-hour clock, Israel time. */
export function israelTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jerusalem', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(d);
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '';
  return `${p('day')}.${p('month')}.${p('year')} ${p('hour')}:${p('minute')} (Israel)`;
}

class Printer {
  page: PDFPage;
  y = H - MARGIN;
  readonly width = W - 2 * MARGIN;
  readonly doc: PDFDocument;
  readonly regular: TextFont;
  readonly bold: TextFont;
  constructor(doc: PDFDocument, regular: TextFont, bold: TextFont) {
    this.doc = doc;
    this.regular = regular;
    this.bold = bold;
    this.page = doc.addPage([W, H]);
  }
  /** Room for `h` more points on this page, else a new page. */
  need(h: number) {
    if (this.y - h < MARGIN) {
      this.page = this.doc.addPage([W, H]);
      this.y = H - MARGIN;
    }
  }
  line(text: string, font = this.regular) {
    this.need(LINE);
    drawText(this.page, text, { x: MARGIN, y: this.y - SIZE, size: SIZE, font, maxWidth: this.width });
    this.y -= LINE;
  }
  paragraph(text: string) {
    for (const para of text.split('\n')) {
      if (!para.trim()) {
        this.y -= LINE / 2;
        continue;
      }
      for (const l of wrapLines(para, this.regular, SIZE, this.width)) this.line(l);
    }
    this.y -= LINE / 2;
  }
  /** A table on its grid: a cell spanning columns (a total's label) or rows is drawn across them, so the figures stay in their columns. */
  table(rows: MailCell[][], cols: number, header: boolean) {
    const texts = rows.flat().map((c) => c.text);
    const rtl = texts.filter(isRtl).length * 2 >= texts.filter((c) => /\p{L}/u.test(c)).length && texts.some(isRtl);
    const fontOf = (ri: number) => (header && ri === 0 ? this.bold : this.regular);
    const widthOf = (c: MailCell, ri: number) => textWidth(cleanText(c.text, fontOf(ri)), fontOf(ri).font, SIZE) + 2 * CELL_PAD + 1;
    // Columns as wide as their widest single cell; a spanning cell wider than its columns widens them evenly.
    const natural = Array.from({ length: cols }, () => MIN_COL);
    rows.forEach((r, ri) => r.forEach((c) => c.colspan === 1 && (natural[c.col] = Math.max(natural[c.col], widthOf(c, ri)))));
    rows.forEach((r, ri) =>
      r.forEach((c) => {
        if (c.colspan === 1) return;
        const have = natural.slice(c.col, c.col + c.colspan).reduce((a, b) => a + b, 0);
        const extra = widthOf(c, ri) - have;
        if (extra > 0) for (let k = c.col; k < c.col + c.colspan; k++) natural[k] += extra / c.colspan;
      }),
    );
    // Receipts span the page: the columns share its width in proportion to their widest cell, so narrow
    // columns still stand apart; on a page too narrow, cells wrap.
    const total = natural.reduce((a, b) => a + b, 0);
    const shares = natural.map((w) => Math.max(MIN_COL, (w / total) * this.width));
    const sum = shares.reduce((a, b) => a + b, 0);
    const colW = shares.map((w) => (w * this.width) / sum);
    const spanW = (c: MailCell) => colW.slice(c.col, c.col + c.colspan).reduce((a, b) => a + b, 0);
    // Hebrew tables start at the right edge and run leftwards, as the mail showed them.
    const left = (c: MailCell) => {
      const before = colW.slice(0, c.col).reduce((a, b) => a + b, 0);
      return rtl ? MARGIN + this.width - before - spanW(c) : MARGIN + before;
    };
    const lines = rows.map((r, ri) => r.map((c) => (c.text ? wrapLines(c.text, fontOf(ri), SIZE, spanW(c) - 2 * CELL_PAD) : [''])));
    const need = (n: number) => n * LINE + 2 * CELL_PAD;
    // Row heights from the cells within one row; a cell spanning rows that needs more lengthens its last row.
    const heights = rows.map((r, ri) => Math.max(need(1), ...r.map((c, ci) => (c.rowspan === 1 ? need(lines[ri][ci].length) : 0))));
    rows.forEach((r, ri) =>
      r.forEach((c, ci) => {
        if (c.rowspan === 1) return;
        const last = Math.min(rows.length, ri + c.rowspan) - 1;
        const have = heights.slice(ri, last + 1).reduce((a, b) => a + b, 0);
        if (need(lines[ri][ci].length) > have) heights[last] += need(lines[ri][ci].length) - have;
      }),
    );
    rows.forEach((row, ri) => {
      const font = fontOf(ri);
      this.need(heights[ri]);
      const top = this.y;
      row.forEach((c, ci) => {
        const x = left(c);
        // A cell spanning rows is drawn down through them when they fit on this page; else within its own row.
        const down = heights.slice(ri, Math.min(rows.length, ri + c.rowspan)).reduce((a, b) => a + b, 0);
        const h = top - down >= MARGIN ? down : heights[ri];
        this.page.drawRectangle({ x, y: top - h, width: spanW(c), height: h, borderColor: BORDER, borderWidth: 0.5, ...(header && ri === 0 ? { color: HEADER_FILL } : {}) });
        lines[ri][ci].forEach((l, li) => {
          if (l) drawText(this.page, l, { x: x + CELL_PAD, y: top - CELL_PAD - SIZE - li * LINE + 2, size: SIZE, font, maxWidth: spanW(c) - 2 * CELL_PAD, direction: rtl ? 'rtl' : 'auto' });
        });
      });
      this.y = top - heights[ri];
    });
    this.y -= LINE / 2;
  }
}

export async function mailToPdf(m: { from: string; subject: string; date: string; text: string; html?: string }): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(m.subject || 'mail');
  const p = new Printer(doc, await embedTextFont(doc, 'regular'), await embedTextFont(doc, 'bold'));
  for (const [label, value] of [['From', m.from], ['Subject', m.subject], ['Date', israelTime(m.date)]] as const) {
    for (const l of wrapLines(`${label}: ${value}`, p.bold, SIZE, p.width)) p.line(l, p.bold);
  }
  p.page.drawLine({ start: { x: MARGIN, y: p.y - 2 }, end: { x: W - MARGIN, y: p.y - 2 }, thickness: 0.5, color: rgb(0.6, 0.6, 0.6) });
  p.y -= LINE / 2;
  const blocks: MailBlock[] = m.html ? mailBlocks(m.html) : textBlocks(m.text);
  if (!blocks.length) p.paragraph('(empty body)');
  for (const b of blocks) (b.kind === 'table' ? p.table(b.rows, b.cols, b.header) : p.paragraph(b.text));
  return Buffer.from(await doc.save());
}
