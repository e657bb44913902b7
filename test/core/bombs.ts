import zlib from 'node:zlib';
import { PDFDocument } from 'pdf-lib';

/**
 * Decompression bombs built in the tests, small on disk: deflate data for N MB of zeros made by repeating one
 * flushed block (each 1 MB of zeros compresses to about 1 KB), a ZIP written by hand so its central directory
 * can lie about sizes, and PDFs carrying such a stream where a parser will decode it.
 */

const MB = 1024 * 1024;

/** Raw deflate (no header) that inflates to `mb` MB of zeros. */
export function zerosDeflateRaw(mb: number): Buffer {
  // A full flush ends the block on a byte boundary and forgets the history, so the same bytes repeat.
  const block = zlib.deflateRawSync(Buffer.alloc(MB), { finishFlush: zlib.constants.Z_FULL_FLUSH });
  // BFINAL=1, fixed Huffman, end-of-block: the final empty block.
  return Buffer.concat([...Array.from({ length: mb }, () => block), Buffer.from([0x03, 0x00])]);
}

/** A zlib stream (RFC 1950, valid checksum) of `mb` MB of zeros. */
export function zerosZlib(mb: number): Buffer {
  const n = mb * MB;
  // Adler-32 of n zero bytes: a stays 1, b adds 1 per byte.
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((n % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), zerosDeflateRaw(mb), adler]);
}

export interface ZipEntry { name: string; data: Buffer; method?: 0 | 8; declaredSize?: number; crc?: number }

/** A ZIP written byte by byte; `data` is stored as given (already deflated for method 8). */
export function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const method = e.method ?? 8;
    const size = e.declaredSize ?? (method === 0 ? e.data.length : zlib.inflateRawSync(e.data).length);
    const crc = e.crc ?? zlib.crc32(method === 0 ? e.data : zlib.inflateRawSync(e.data));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const deflate = (s: string) => zlib.deflateRawSync(Buffer.from(s, 'utf8'));
export const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

/** A minimal DOCX whose word/document.xml is `documentXml`. */
export const docxOf = (documentXml: string) =>
  zipOf([
    { name: '[Content_Types].xml', data: deflate(TYPES) },
    { name: 'word/document.xml', data: deflate(documentXml) },
  ]);

/** The audit's DOCX: `n` paragraphs opened and never closed (160,000 of them make a 1.6 KB file). */
export const unclosedParagraphsDocx = (n: number) => docxOf(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${'<w:p>'.repeat(n)}`);

/** A DOCX whose directory says word/document.xml is `declaredSize` bytes while it inflates to `mb` MB. */
export const docxBomb = (mb: number, declaredSize = 1000) =>
  zipOf([
    { name: '[Content_Types].xml', data: deflate(TYPES) },
    { name: 'word/document.xml', data: zerosDeflateRaw(mb), declaredSize, crc: 0x12345678 },
  ]);

/** A one-page PDF (classic xref table) with `extra` objects inserted before its first one, where pdf-lib reads them. */
export async function pdfWith(extra: string | Buffer): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
  const at = pdf.indexOf('1 0 obj');
  return Buffer.concat([pdf.subarray(0, at), Buffer.isBuffer(extra) ? extra : Buffer.from(extra, 'latin1'), pdf.subarray(at)]);
}

/** An indirect stream object `num 0 obj << dict /Length n >> stream … endstream endobj`. */
export const streamObject = (num: number, dict: string, data: Buffer) =>
  Buffer.concat([Buffer.from(`${num} 0 obj\n<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);

/** The audit's PDF: an object stream (FlateDecode) that decodes to `mb` MB (700 make a ~700 KB file). */
export const objectStreamBombPdf = (mb: number) => pdfWith(streamObject(90, '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', zerosZlib(mb)));

/** Peak growth of this process's memory while `fn` runs: the larger of the sampled RSS and the lifetime peak (maxRSS). */
export async function rssGrowth<T>(fn: () => Promise<T>): Promise<{ growthMb: number; result: PromiseSettledResult<T> }> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  let sampled = before;
  const timer = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage.rss())), 5);
  const [result] = await Promise.allSettled([fn()]);
  clearInterval(timer);
  sampled = Math.max(sampled, process.memoryUsage.rss());
  const peakGrowth = process.resourceUsage().maxRSS * 1024 - Math.max(peakBefore, before);
  return { growthMb: Math.max(sampled - before, peakGrowth) / MB, result };
}
