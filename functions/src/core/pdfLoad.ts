import { constants, inflateSync } from 'node:zlib';
import { PDFArray, PDFDocument, PDFName, PDFNumber, PDFObjectStreamParser, PDFRawStream, PDFXRefStreamParser, type PDFContext, type PDFDict } from 'pdf-lib';
import { DOCUMENT_LIMITS, UnreadableDocument, megabytes } from './documentLimits.ts';
import { measurePdfInflation } from './pdfInflation.ts';

/**
 * The one way the service opens a PDF with pdf-lib. Before parsing, `measurePdfInflation` bounds what the file
 * expands to. While parsing, pdf-lib decodes object streams and cross-reference streams into memory (with its
 * own inflater, which reads on through data node:zlib calls damaged); those go through `decodeWithinBudget`
 * instead: node:zlib with a hard output cap, FlateDecode only, the declared object count and row count checked
 * against the bytes, a budget per document. pdf-lib then parses the already-decoded bytes. pdf-lib has no
 * option for this, so its two stream-parser factories are wrapped once, here.
 */

interface Budget { bytes: number; objects: number; refused: string | null }
const budgets = new WeakMap<PDFContext, Budget>();
const budgetOf = (context: PDFContext) => {
  let b = budgets.get(context);
  if (!b) budgets.set(context, (b = { bytes: DOCUMENT_LIMITS.pdf.objectStreamBytes, objects: DOCUMENT_LIMITS.pdf.objects, refused: null }));
  return b;
};

const FLATE = PDFName.of('FlateDecode');
const num = (dict: PDFDict, key: string) => {
  const v = dict.lookup(PDFName.of(key));
  return v instanceof PDFNumber ? v.asNumber() : null;
};

function filtersOf(dict: PDFDict): PDFName[] | null {
  const f = dict.lookup(PDFName.of('Filter'));
  if (f === undefined) return [];
  if (f instanceof PDFName) return [f];
  if (!(f instanceof PDFArray)) return null;
  const names = f.asArray().map((_, i) => f.lookup(i));
  return names.every((x) => x instanceof PDFName) ? (names as PDFName[]) : null;
}

function decode(raw: PDFRawStream, budget: Budget): Uint8Array {
  const filters = filtersOf(raw.dict);
  if (!filters || filters.length > 1 || (filters.length === 1 && filters[0] !== FLATE)) throw new UnreadableDocument('an object stream of the PDF is not FlateDecode-compressed');
  if (!filters.length) return raw.contents;
  const c = raw.contents;
  if (c.length < 2 || (c[0] & 0x0f) !== 8 || ((c[0] << 8) | c[1]) % 31 !== 0) throw new UnreadableDocument('an object stream of the PDF is damaged');
  try {
    // A standard header: node:zlib refuses window sizes deflate never needs. A truncated stream gives what it holds.
    return inflateSync(Buffer.concat([Buffer.from([0x78, 0x9c]), c.subarray(2)]), { maxOutputLength: Math.max(1, budget.bytes), finishFlush: constants.Z_SYNC_FLUSH });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new UnreadableDocument(`the PDF's object streams expand to more than ${megabytes(DOCUMENT_LIMITS.pdf.objectStreamBytes)}`);
    throw new UnreadableDocument('an object stream of the PDF is damaged');
  }
}

/** Offsets of an object stream's objects (its header: N pairs "number offset"), or null when they do not parse. */
function objectOffsets(bytes: Uint8Array, first: number, n: number): number[] | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(first, bytes.length)).toString('latin1');
  const ints = head.replace(/%[^\r\n]*/g, ' ').trim().split(/\s+/).filter(Boolean);
  if (ints.length < 2 * n || ints.slice(0, 2 * n).some((s) => !/^\d{1,10}$/.test(s))) return null;
  return Array.from({ length: n }, (_, i) => Number(ints[2 * i + 1]));
}

function decodeWithinBudget(raw: PDFRawStream, kind: 'ObjStm' | 'XRef'): PDFRawStream {
  const context = raw.dict.context;
  const budget = budgetOf(context);
  const empty = () =>
    PDFRawStream.of(kind === 'ObjStm' ? context.obj({ Type: 'ObjStm', N: 0, First: 0 }) : context.obj({ Type: 'XRef', Size: 0, W: [1, 1, 1] }), new Uint8Array());
  if (budget.refused) return empty();
  try {
    const decoded = decode(raw, budget);
    budget.bytes -= decoded.length;
    if (budget.bytes < 0) throw new UnreadableDocument(`the PDF's object streams expand to more than ${megabytes(DOCUMENT_LIMITS.pdf.objectStreamBytes)}`);
    if (kind === 'ObjStm') {
      // pdf-lib parses one object per declared offset: repeated or backward offsets would parse the same bytes over and over.
      const n = num(raw.dict, 'N') ?? 0;
      const first = num(raw.dict, 'First') ?? 0;
      budget.objects -= n;
      if (budget.objects < 0) throw new UnreadableDocument(`the PDF declares more than ${DOCUMENT_LIMITS.pdf.objects} objects`);
      const offsets = objectOffsets(decoded, first, n);
      if (!offsets || offsets.some((o, i) => (i > 0 && o <= offsets[i - 1]) || first + o >= decoded.length)) throw new UnreadableDocument('an object stream of the PDF is damaged');
    } else {
      // Each row is read from the bytes; rows the bytes cannot hold would still become entries.
      const w = raw.dict.lookup(PDFName.of('W'));
      const index = raw.dict.lookup(PDFName.of('Index'));
      const widths = w instanceof PDFArray ? w.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : 0)) : [];
      const counts = index instanceof PDFArray ? index.asArray().filter((_, i) => i % 2 === 1).map((x) => (x instanceof PDFNumber ? x.asNumber() : 0)) : [num(raw.dict, 'Size') ?? 0];
      const rows = counts.reduce((a, b) => a + Math.max(0, b), 0);
      const rowBytes = widths.reduce((a, b) => a + Math.max(0, b), 0);
      budget.objects -= rows;
      if (budget.objects < 0) throw new UnreadableDocument(`the PDF declares more than ${DOCUMENT_LIMITS.pdf.objects} objects`);
      if (rows > 0 && (rowBytes < 1 || rows * rowBytes > decoded.length)) throw new UnreadableDocument('a cross-reference stream of the PDF is damaged');
    }
    const dict = raw.dict.clone();
    dict.delete(PDFName.of('Filter'));
    dict.delete(PDFName.of('DecodeParms'));
    return PDFRawStream.of(dict, decoded);
  } catch (e) {
    if (!(e instanceof UnreadableDocument)) throw e;
    // pdf-lib would swallow a throw here (it keeps the object as invalid and reads on): remember, refuse after.
    budget.refused = e.reason;
    return empty();
  }
}

const objectStreamParser = PDFObjectStreamParser.forStream;
PDFObjectStreamParser.forStream = (raw, tick) => objectStreamParser(decodeWithinBudget(raw, 'ObjStm'), tick);
const xrefStreamParser = PDFXRefStreamParser.forStream;
PDFXRefStreamParser.forStream = (raw) => xrefStreamParser(decodeWithinBudget(raw, 'XRef'));

/** pdf-lib's document for these bytes; UnreadableDocument when a cap is passed, pdf-lib's own errors otherwise. */
export async function loadPdf(bytes: Buffer): Promise<PDFDocument> {
  await measurePdfInflation(bytes);
  const doc = await PDFDocument.load(bytes);
  const refused = budgets.get(doc.context)?.refused;
  if (refused) throw new UnreadableDocument(refused);
  return doc;
}
