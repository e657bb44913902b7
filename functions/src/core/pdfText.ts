import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import bidiFactory from 'bidi-js';
import { PDFDocument, PDFFont, PDFPage, rgb, type Color } from 'pdf-lib';

/**
 * Mixed Hebrew/Latin text in PDFs made with pdf-lib. The text is drawn in visual order (Unicode bidi,
 * `bidi-js`) with DejaVu Sans, which covers Hebrew. Extraction (`pdftotext`) applies its own bidi to the
 * glyphs and returns the words as written. No `/ActualText` span: poppler (22.x) runs its bidi over an
 * ActualText string too, so a logical ActualText came back reversed (measured; see docs/decisions.md).
 */

const require = createRequire(import.meta.url);
// bidi-js is CommonJS whose types declare an ES default export; at runtime the import is the factory itself.
type Factory = () => import('bidi-js').Bidi;
const factory = bidiFactory as unknown as Factory | { default: Factory };
const bidi = (typeof factory === 'function' ? factory : factory.default)();

export type FontStyle = 'regular' | 'bold';
const FONT_FILES: Record<FontStyle, string> = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' };
const fontBytes = new Map<FontStyle, Uint8Array>();
interface FontkitFont { hasGlyphForCodePoint(cp: number): boolean; layout(text: string): { direction?: string } }
const coverage = new Map<FontStyle, FontkitFont>();

function loadFontBytes(style: FontStyle): Uint8Array {
  let bytes = fontBytes.get(style);
  if (!bytes) {
    const dir = require.resolve('dejavu-fonts-ttf/package.json').replace(/package\.json$/, '');
    bytes = new Uint8Array(readFileSync(`${dir}ttf/${FONT_FILES[style]}`));
    fontBytes.set(style, bytes);
    coverage.set(style, fontkit.create(bytes) as unknown as FontkitFont);
  }
  return bytes;
}

/** A font embedded in `doc` that draws Hebrew and Latin (subset: only used glyphs are stored). */
export interface TextFont { font: PDFFont; style: FontStyle }

export async function embedTextFont(doc: PDFDocument, style: FontStyle = 'regular'): Promise<TextFont> {
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(loadFontBytes(style), { subset: true });
  return { font, style };
}

/** Control characters become spaces and characters the font lacks become '?', so nothing draws as a blank box. */
export function cleanText(text: string, f: TextFont): string {
  const cov = coverage.get(f.style)!;
  let out = '';
  for (const ch of text.replace(/[\u202A-\u202E\u2066-\u2069]/g, '')) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += ' ';
    else if (cp === 0x200e || cp === 0x200f) continue; // direction marks steer bidi, have no glyph
    else out += cov.hasGlyphForCodePoint(cp) ? ch : '?';
  }
  return out;
}

/** True when the text's first strong character is right-to-left (Hebrew, Arabic). */
export function isRtl(text: string): boolean {
  return bidi.getEmbeddingLevels(text, 'auto').paragraphs[0]?.level === 1;
}

/** One line in display (visual) order, right-to-left runs reversed and their brackets mirrored. */
export function visualOrder(text: string, direction: 'auto' | 'ltr' | 'rtl' = 'auto'): string {
  if (!text) return text;
  const levels = bidi.getEmbeddingLevels(text, direction);
  const units = bidi.getReorderedString(text, levels);
  // Reversal swaps surrogate pairs and puts combining marks (niqqud) before their base: put them back.
  let out = units.replace(/([\uDC00-\uDFFF])([\uD800-\uDBFF])/g, '$2$1');
  out = out.replace(/([\u0591-\u05C7]+)([\u05D0-\u05EA\uFB1D-\uFB4F])/g, '$2$1');
  return out;
}

export function textWidth(text: string, font: TextFont | PDFFont, size: number): number {
  const f = font instanceof PDFFont ? font : font.font;
  return f.widthOfTextAtSize(text, size);
}

export interface DrawTextOptions {
  x: number;
  /** Baseline. */
  y: number;
  size: number;
  font: TextFont;
  color?: Color;
  /** Width of the line's box starting at x; needed for right/center alignment. */
  maxWidth?: number;
  /** 'auto' = right for right-to-left text, left otherwise. */
  align?: 'left' | 'right' | 'center' | 'auto';
  direction?: 'auto' | 'ltr' | 'rtl';
}

/**
 * Draws one line (no wrapping; see `wrapLines`) in visual order. Returns the drawn width.
 */
export function drawText(page: PDFPage, text: string, o: DrawTextOptions): number {
  const logical = cleanText(text, o.font);
  if (!logical.trim()) return 0;
  const visual = visualOrder(logical, o.direction ?? 'auto');
  const width = textWidth(visual, o.font, o.size);
  const box = o.maxWidth ?? width;
  const align = o.align ?? 'auto';
  const rtl = o.direction === 'rtl' || (o.direction !== 'ltr' && isRtl(logical));
  const side = align === 'auto' ? (rtl ? 'right' : 'left') : align;
  const x = side === 'right' ? o.x + box - width : side === 'center' ? o.x + (box - width) / 2 : o.x;
  // fontkit (inside pdf-lib) reverses a whole run whose first script is right-to-left; hand it the
  // reversed string then, so the glyphs land in the visual order computed above.
  const forFontkit = coverage.get(o.font.style)!.layout(visual).direction === 'rtl' ? Array.from(visual).reverse().join('') : visual;
  page.drawText(forFontkit, { x, y: o.y, size: o.size, font: o.font.font, color: o.color ?? rgb(0, 0, 0) });
  return width;
}

/**
 * Splits logical text into lines no wider than maxWidth: on line breaks, then between words; a word wider
 * than the line is cut between characters. Lines stay in logical order (draw each with `drawText`).
 */
export function wrapLines(text: string, font: TextFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  const fits = (s: string) => textWidth(cleanText(s, font), font, size) <= maxWidth;
  for (const para of text.replace(/\r\n?/g, '\n').split('\n')) {
    let line = '';
    for (const word of para.split(/[ \t]+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (fits(candidate)) { line = candidate; continue; }
      if (line) lines.push(line);
      line = '';
      let rest = word;
      while (!fits(rest)) {
        const cps = Array.from(rest);
        let n = 1;
        while (n < cps.length && fits(cps.slice(0, n + 1).join(''))) n++;
        lines.push(cps.slice(0, n).join(''));
        rest = cps.slice(n).join('');
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

export interface FitTextOptions {
  /** Box in PDF points: left, bottom, width, height. */
  x: number;
  y: number;
  width: number;
  height: number;
  font: TextFont;
  maxSize?: number;
  minSize?: number;
  color?: Color;
  align?: 'left' | 'right' | 'center' | 'auto';
}

/**
 * One line shrunk to fit a box (from maxSize down to minSize, default 12 → 4), centred vertically. Text
 * still too wide at minSize is cut with an ellipsis. Returns the size used.
 */
export function fitText(page: PDFPage, text: string, o: FitTextOptions): number {
  const pad = Math.min(2, o.width / 20);
  const innerW = Math.max(1, o.width - 2 * pad);
  let logical = cleanText(text, o.font).replace(/\s+/g, ' ').trim();
  const minSize = o.minSize ?? 4;
  let size = Math.min(o.maxSize ?? 12, o.height * 0.8);
  const w1 = textWidth(logical, o.font, 1);
  if (w1 > 0) size = Math.min(size, innerW / w1);
  if (size < minSize) {
    size = minSize;
    const cps = Array.from(logical);
    while (cps.length > 1 && textWidth(cps.join('') + '…', o.font, size) > innerW) cps.pop();
    logical = cps.join('') + '…';
  }
  const ascent = o.font.font.heightAtSize(size, { descender: false });
  const y = o.y + (o.height - ascent) / 2;
  drawText(page, logical, { x: o.x + pad, y, size, font: o.font, maxWidth: innerW, align: o.align, color: o.color });
  return size;
}

/**
 * Text fitted into a box on as many lines as the box holds, at the largest size (maxSize → minSize) where the
 * wrapped lines fit its width and height; lines keep the whole text's direction. Falls back to `fitText` (one
 * line, cut with an ellipsis) when even minSize does not fit. Returns the size and the number of lines.
 */
export function fitTextBlock(page: PDFPage, text: string, o: FitTextOptions): { size: number; lines: number } {
  const pad = Math.min(2, o.width / 20);
  const innerW = Math.max(1, o.width - 2 * pad);
  const logical = cleanText(text.replace(/\r\n?/g, '\n'), o.font).replace(/[ \t]+/g, ' ').trim();
  const minSize = o.minSize ?? 4;
  const leading = 1.2;
  const direction = isRtl(logical) ? 'rtl' : 'ltr';
  for (let size = Math.min(o.maxSize ?? 12, o.height * 0.8); size >= minSize; size -= 0.5) {
    const lines = wrapLines(logical, o.font, size, innerW);
    const blockH = lines.length * size * leading;
    if (blockH > o.height) continue;
    const ascent = o.font.font.heightAtSize(size, { descender: false });
    // Centred vertically; the first baseline one ascent below the block's top.
    let y = o.y + (o.height + blockH) / 2 - ascent - (size * leading - size) / 2;
    for (const line of lines) {
      drawText(page, line, { x: o.x + pad, y, size, font: o.font, maxWidth: innerW, align: o.align, color: o.color, direction });
      y -= size * leading;
    }
    return { size, lines: lines.length };
  }
  return { size: fitText(page, logical.replace(/\n/g, ' '), o), lines: 1 };
}
