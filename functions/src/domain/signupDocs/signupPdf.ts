import { concatTransformationMatrix, degrees, PDFContentStream, PDFDocument, popGraphicsState, pushGraphicsState, rgb, type PDFPage } from 'pdf-lib';
import { loadPdf } from '../../core/pdfLoad.ts';
import { embedTextFont, fitText, fitTextBlock, type TextFont } from '../../core/pdfText.ts';
import { isTicked, type SignupField } from './signupFields.ts';

export { isTicked } from './signupFields.ts';

/** Box [ymin, xmin, ymax, xmax] on the 0–1000 scale → PDF points (origin bottom-left) on this page. */
export function boxToRect(page: PDFPage, box: number[]) {
  const crop = page.getCropBox();
  const [ymin, xmin, ymax, xmax] = box;
  const x = crop.x + (xmin / 1000) * crop.width;
  const y = crop.y + crop.height - (ymax / 1000) * crop.height;
  return { x, y, width: ((xmax - xmin) / 1000) * crop.width, height: ((ymax - ymin) / 1000) * crop.height };
}


export interface PdfFillOptions {
  signaturePng: Buffer | null;
  stampPng: Buffer | null;
  /** Printed in the bottom margin of every page. */
  initials: string | null;
}

/** Writes the reviewed values onto a copy of the form; the original bytes are not touched. UnreadableDocument over the caps. */
export async function fillPdf(original: Buffer, fields: SignupField[], o: PdfFillOptions): Promise<Buffer> {
  const doc = await loadPdf(original);
  const pages = doc.getPages();
  for (const page of pages) upright(doc, page);
  let font: TextFont | null = null;
  const textFont = async () => (font ??= await embedTextFont(doc));
  const images = new Map<Buffer, Awaited<ReturnType<PDFDocument['embedPng']>>>();
  const image = async (png: Buffer) => {
    let img = images.get(png);
    if (!img) images.set(png, (img = await doc.embedPng(png)));
    return img;
  };
  for (const f of fields) {
    const page = pages[f.page];
    if (!page || f.box.length !== 4) continue;
    const r = boxToRect(page, f.box);
    if (r.width <= 0 || r.height <= 0) continue;
    if (f.kind === 'text' || f.kind === 'date') {
      // Long values wrap when the box is tall enough, else shrink to one line.
      if (f.value.trim()) fitTextBlock(page, f.value, { ...r, font: await textFont(), maxSize: 12 });
    } else if (f.kind === 'checkbox') {
      if (isTicked(f.value)) drawTick(page, r);
    } else {
      const png = f.kind === 'signature' ? o.signaturePng : o.stampPng;
      if (!png) continue;
      const img = await image(png);
      // Keep the image's proportions, as large as the box allows, centred.
      const k = Math.min(r.width / img.width, r.height / img.height);
      const w = img.width * k;
      const h = img.height * k;
      page.drawImage(img, { x: r.x + (r.width - w) / 2, y: r.y + (r.height - h) / 2, width: w, height: h });
    }
  }
  if (o.initials) {
    const f = await textFont();
    for (const page of pages) {
      const crop = page.getCropBox();
      // Bottom-right margin, where initials usually go; 28 pt high, above any printer's edge.
      fitText(page, o.initials, { x: crop.x + crop.width - 110, y: crop.y + 10, width: 80, height: 18, font: f, maxSize: 11, color: rgb(0.1, 0.16, 0.48), align: 'center' });
      page.drawLine({ start: { x: crop.x + crop.width - 110, y: crop.y + 10 }, end: { x: crop.x + crop.width - 30, y: crop.y + 10 }, thickness: 0.5, color: rgb(0.4, 0.4, 0.4) });
    }
  }
  return Buffer.from(await doc.save());
}

/**
 * A page shown rotated (/Rotate 90, 180, 270) is turned into an unrotated page that looks the same: its content
 * is wrapped in the matching transform and its box swapped. The AI's boxes are on the page as shown, and what
 * is drawn afterwards is then upright in that same space. (Annotations keep their old place.)
 */
function upright(doc: PDFDocument, page: PDFPage) {
  const r = ((page.getRotation().angle % 360) + 360) % 360;
  if (r === 0 || r % 90 !== 0) return;
  const { x, y, width: W, height: H } = page.getMediaBox();
  const m: [number, number, number, number, number, number] = r === 90 ? [0, -1, 1, 0, 0, W] : r === 180 ? [-1, 0, 0, -1, W, H] : [0, 1, -1, 0, H, 0];
  page.node.normalize();
  // The later cm applies first: move the box to the origin, then turn.
  const start = PDFContentStream.of(doc.context.obj({}), [pushGraphicsState(), concatTransformationMatrix(...m), concatTransformationMatrix(1, 0, 0, 1, -x, -y)]);
  const end = PDFContentStream.of(doc.context.obj({}), [popGraphicsState()]);
  page.node.wrapContentStreams(doc.context.register(start), doc.context.register(end));
  const [w, h] = r === 180 ? [W, H] : [H, W];
  page.setMediaBox(0, 0, w, h);
  page.setCropBox(0, 0, w, h);
  page.setRotation(degrees(0));
}

function drawTick(page: PDFPage, r: { x: number; y: number; width: number; height: number }) {
  const s = Math.min(r.width, r.height) * 0.8;
  const x = r.x + (r.width - s) / 2;
  const y = r.y + (r.height - s) / 2;
  const t = Math.max(1, s / 8);
  const color = rgb(0, 0, 0);
  page.drawLine({ start: { x: x + s * 0.1, y: y + s * 0.5 }, end: { x: x + s * 0.4, y: y + s * 0.15 }, thickness: t, color });
  page.drawLine({ start: { x: x + s * 0.4, y: y + s * 0.15 }, end: { x: x + s * 0.9, y: y + s * 0.9 }, thickness: t, color });
}

/** UnreadableDocument over the caps (core/pdfLoad.ts); pdf-lib's error when damaged or encrypted. */
export async function pdfPageCount(bytes: Buffer): Promise<number> {
  return (await loadPdf(bytes)).getPageCount();
}
