import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import sharp from 'sharp';
import { visualOrder } from '../../core/pdfText.ts';

/**
 * Stand-in signature and stamp images for forms, when the business stored none: the signature is the
 * owner's name in a handwriting-style font (Amatic SC, which ships Hebrew and Latin subsets), the stamp
 * the usual round business stamp. Text becomes glyph outlines (fontkit), so rendering (sharp) needs no
 * system fonts. Both are PNG, so PDF and DOCX place them the same way as an uploaded image.
 */

const require = createRequire(import.meta.url);

interface Glyph { advanceWidth: number; path: { scale(x: number, y: number): { translate(x: number, y: number): { toSVG(): string } } } }
interface FkFont { unitsPerEm: number; hasGlyphForCodePoint(cp: number): boolean; layout(t: string): { direction?: string; glyphs: Glyph[]; positions: { xAdvance: number }[] } }

const cache = new Map<string, FkFont>();
function font(file: string): FkFont {
  let f = cache.get(file);
  if (!f) {
    f = fontkit.create(readFileSync(require.resolve(file))) as unknown as FkFont;
    cache.set(file, f);
  }
  return f;
}
// DejaVu last: a character neither handwriting subset has (e.g. an accented or Cyrillic letter) still draws.
const HAND = () => [
  font('@fontsource/amatic-sc/files/amatic-sc-hebrew-700-normal.woff'),
  font('@fontsource/amatic-sc/files/amatic-sc-latin-700-normal.woff'),
  font('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
];
const SANS = () => [font('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')];

/** SVG path data of one line in visual order, each character in the first font that has it; and its width. */
function textPath(text: string, fonts: FkFont[], size: number, x0: number, baseline: number): { d: string; width: number } {
  const visual = visualOrder(text);
  // Runs of characters sharing a font, in visual order.
  const runs: { f: FkFont; s: string }[] = [];
  for (const ch of visual) {
    const cp = ch.codePointAt(0)!;
    const f = fonts.find((x) => x.hasGlyphForCodePoint(cp)) ?? fonts[0];
    const last = runs.at(-1);
    if (last && last.f === f) last.s += ch;
    else runs.push({ f, s: ch });
  }
  let x = x0;
  let d = '';
  for (const { f, s } of runs) {
    const k = size / f.unitsPerEm;
    // fontkit reverses a right-to-left run; hand it reversed so glyphs stay in the visual order.
    const rtl = f.layout(s).direction === 'rtl';
    const run = f.layout(rtl ? Array.from(s).reverse().join('') : s);
    run.glyphs.forEach((g, i) => {
      d += g.path.scale(k, -k).translate(x, baseline).toSVG();
      x += run.positions[i].xAdvance * k;
    });
  }
  return { d, width: x - x0 };
}

const svgPng = (svg: string) => sharp(Buffer.from(svg)).png().toBuffer();

/** The name as a handwritten signature, dark blue on transparent. */
export async function signaturePng(name: string): Promise<Buffer> {
  const size = 120;
  const probe = textPath(name, HAND(), size, 0, 0);
  const width = Math.max(40, Math.ceil(probe.width + 40));
  const { d } = textPath(name, HAND(), size, 20, 120);
  return svgPng(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="160"><path d="${d}" fill="#1b2a7a"/></svg>`);
}

/** A round stamp: two rings, the business name and "ח.פ. <companyId>" across the middle, in stamp blue. */
export async function stampPng(businessName: string, companyId: string): Promise<Buffer> {
  const S = 400;
  const c = S / 2;
  const lines = [businessName.trim(), companyId.trim() ? `ח.פ. ${companyId.trim()}` : ''].filter(Boolean);
  let paths = '';
  lines.forEach((line, i) => {
    const maxW = 280;
    const natural = textPath(line, SANS(), 100, 0, 0).width || 1;
    const size = Math.min(i === 0 ? 48 : 36, (100 * maxW) / natural);
    const w = (natural * size) / 100;
    const baseline = lines.length === 1 ? c + size / 3 : i === 0 ? c - 8 : c + size + 8;
    paths += `<path d="${textPath(line, SANS(), size, c - w / 2, baseline).d}" fill="#1f3fa6"/>`;
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}">` +
    `<circle cx="${c}" cy="${c}" r="${c - 8}" fill="none" stroke="#1f3fa6" stroke-width="10"/>` +
    `<circle cx="${c}" cy="${c}" r="${c - 34}" fill="none" stroke="#1f3fa6" stroke-width="4"/>` +
    `${paths}</svg>`;
  return svgPng(svg);
}

/** "דנה כהן" → "ד.כ.", "Dana Cohen" → "D.C." */
export function initialsOf(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean).slice(0, 3);
  return parts.map((p) => Array.from(p)[0].toUpperCase() + '.').join('');
}
