import { constants, createInflate, inflateSync } from 'node:zlib';
import { DOCUMENT_LIMITS, UnreadableDocument, isUnreadableDocument, megabytes } from './documentLimits.ts';

/**
 * How far a PDF expands, measured before anything parses it: every `stream` keyword whose data starts a zlib
 * stream is inflated (node:zlib, streaming, output counted and thrown away), whatever its dictionary says, so
 * a lying /Length, /Filter or /Type changes nothing. Output that is itself a zlib stream (a FlateDecode chain)
 * is inflated again and counted too. Inflation stops the moment the budget is spent; memory stays flat.
 */

export interface PdfLimits { inflatedBytes: number; streams: number; objects: number }
export interface PdfInflation { inflatedBytes: number; streams: number; objects: number }

// Input read 64 KB at a time; output taken 256 KB at a time (fewer async hops through a bomb's output).
const IN_CHUNK = 64 * 1024;
const OUT_CHUNK = 256 * 1024;
const MAX_NESTING = 4;
// A stream whose data ends within AT_ONCE_INPUT and inflates (every level) to at most AT_ONCE_OUTPUT is measured in one
// synchronous call: an invoice's streams are a few kilobytes, and the streaming path costs 200 µs of CPU where this
// costs 20 (issue 23). Anything larger, damaged or odd goes the streaming path, which decides exactly as before.
const AT_ONCE_INPUT = 256 * 1024;
const AT_ONCE_OUTPUT = 1024 * 1024;
// Synchronous work holds the event loop (the streaming path's zlib runs on the thread pool): a PDF gets at most this
// much input and output handled at once, in all, so a crafted one costs the loop a few milliseconds, not its whole budget.
const AT_ONCE_TOTAL = 8 * 1024 * 1024;
const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);

/** RFC 1950 header: deflate, header checksum, no preset dictionary. The window size is not checked (pdf.js ignores it). */
const zlibHeaderAt = (b: Uint8Array, k: number) => k + 1 < b.length && (b[k] & 0x0f) === 8 && ((b[k] << 8) | b[k + 1]) % 31 === 0 && (b[k + 1] & 0x20) === 0;
// node:zlib refuses window sizes over 32 KB, which deflate never needs: count such a stream under a standard header.
const STANDARD_HEADER = Buffer.from([0x78, 0x9c]);
const withStandardHeader = (c: Buffer) => Buffer.concat([STANDARD_HEADER, c.subarray(2)]);

class OverBudget extends Error {}

/** Throws UnreadableDocument when the PDF would expand beyond the limits; otherwise says how far it expands. */
export async function measurePdfInflation(bytes: Buffer, limits: PdfLimits = DOCUMENT_LIMITS.pdf): Promise<PdfInflation> {
  const objects = countObjects(bytes);
  if (objects > limits.objects) throw new UnreadableDocument(`the PDF declares more than ${limits.objects} objects`);
  const budget = { left: limits.inflatedBytes };
  // Input zlib consumed: candidates hidden in another stream's data are read again, so crafted data could make
  // the reading quadratic without producing output. Real streams do not overlap: their input adds up to the file.
  const consumed = { bytes: 0 };
  let streams = 0;
  let atOnceLeft = AT_ONCE_TOTAL;
  for (let i = bytes.indexOf('stream'); i >= 0; i = bytes.indexOf('stream', i + 6)) {
    if (i >= 3 && bytes.toString('latin1', i - 3, i) === 'end') continue;
    const start = dataStart(bytes, i + 6);
    if (start < 0) continue;
    if (++streams > limits.streams) throw new UnreadableDocument(`the PDF has more than ${limits.streams} compressed streams`);
    const data = bytes.subarray(start, start + AT_ONCE_INPUT);
    const quick = atOnceLeft > 0 ? inflateAtOnce(data, start + AT_ONCE_INPUT >= bytes.length, Math.min(budget.left, AT_ONCE_OUTPUT), 1) : null;
    atOnceLeft -= quick ? quick.input + quick.output : data.length + AT_ONCE_OUTPUT;
    if (quick) {
      budget.left -= quick.output;
      consumed.bytes += quick.input;
    } else {
      try {
        await drain(inflate(slices(bytes, start), consumed), budget, 1);
      } catch (e) {
        if (!(e instanceof OverBudget)) throw e;
      }
    }
    // (A nested level's pump may catch the overrun itself; the budget tells either way.)
    if (budget.left < 0) throw new UnreadableDocument(`the PDF expands to more than ${megabytes(limits.inflatedBytes)} when decompressed`);
    if (consumed.bytes > limits.inflatedBytes) throw new UnreadableDocument(`reading the PDF's compressed streams takes more than ${megabytes(limits.inflatedBytes)} of input (they overlap)`);
  }
  return { inflatedBytes: limits.inflatedBytes - budget.left, streams, objects };
}

/** Why a PDF is refused by the caps, or null when it is within them (for PDFs stored but never parsed: invoices, proofs, mail). */
export async function pdfRefusal(bytes: Buffer): Promise<string | null> {
  try {
    await measurePdfInflation(bytes);
    return null;
  } catch (e) {
    if (isUnreadableDocument(e)) return e.reason;
    throw e;
  }
}

/**
 * One zlib stream (and the zlib streams its output starts, to MAX_NESTING) inflated in memory: the bytes out at every
 * level and the input read. Null when the streaming path must measure it: output past `cap`, data that breaks (the
 * streaming path counts what came before the break), a window size node:zlib refuses, or a stream that may run on
 * past `data` (all of it read and the file goes on).
 */
function inflateAtOnce(data: Buffer, toFileEnd: boolean, cap: number, depth: number): { output: number; input: number } | null {
  if (cap < 1 || data[0] >> 4 > 7) return null;
  let r: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    // Z_SYNC_FLUSH: a stream cut off by the end of the file gives what it has, as the streaming path counts it.
    r = inflateSync(data, { info: true, maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH }) as unknown as typeof r;
  } catch {
    return null;
  }
  const input = r.engine.bytesWritten;
  if (input >= data.length && !toFileEnd) return null;
  let output = r.buffer.length;
  if (depth < MAX_NESTING && zlibHeaderAt(r.buffer, 0)) {
    const nested = inflateAtOnce(r.buffer, true, cap - output, depth + 1);
    if (!nested) return null;
    output += nested.output;
  }
  return { output, input };
}

/** Where the stream's data begins if it is zlib data: right after the keyword's end of line (as pdf-lib reads it), else after any whitespace. */
function dataStart(b: Buffer, k: number): number {
  let j = k;
  if (b[j] === 0x20 && b[j + 1] === 0x0d && b[j + 2] === 0x0a) j += 3;
  else if (b[j] === 0x0d && b[j + 1] === 0x0a) j += 2;
  else if (b[j] === 0x0d || b[j] === 0x0a) j += 1;
  if (zlibHeaderAt(b, j)) return j;
  j = k;
  while (j < b.length && j < k + 16 && WHITESPACE.has(b[j])) j++;
  return zlibHeaderAt(b, j) ? j : -1;
}

/** `obj` keywords outside `endobj`: the indirect objects a parser would make. */
function countObjects(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf('obj'); i >= 0; i = b.indexOf('obj', i + 3)) {
    if (i >= 3 && b.toString('latin1', i - 3, i) === 'end') continue;
    if (i > 0 && WHITESPACE.has(b[i - 1])) n++;
  }
  return n;
}

function* slices(b: Buffer, start: number): Generator<Buffer> {
  yield withStandardHeader(b.subarray(start, start + IN_CHUNK));
  for (let k = start + IN_CHUNK; k < b.length; k += IN_CHUNK) yield b.subarray(k, k + IN_CHUNK);
}

/** Counts a level's output; when that output starts a zlib stream, it is inflated and counted in turn. */
async function drain(level: AsyncIterable<Buffer>, budget: { left: number }, depth: number): Promise<void> {
  const it = level[Symbol.asyncIterator]();
  const take = async () => {
    const next = await it.next();
    if (!next.done && (budget.left -= next.value.length) < 0) throw new OverBudget();
    return next;
  };
  try {
    const first = await take();
    if (first.done) return;
    if (depth < MAX_NESTING && zlibHeaderAt(first.value, 0)) {
      async function* rest() {
        yield withStandardHeader(first.value as Buffer);
        for (let n = await take(); !n.done; n = await take()) yield n.value;
      }
      await drain(inflate(rest()), budget, depth + 1);
    }
    // Whatever the level produces after (or without) a nested stream counts as well.
    for (let n = await take(); !n.done; n = await take());
  } finally {
    await it.return?.();
  }
}

/** The output of one zlib stream read from `input`: ends at the stream's end; a damaged stream ends where it breaks. */
async function* inflate(input: Iterable<Buffer> | AsyncIterable<Buffer>, consumed?: { bytes: number }): AsyncGenerator<Buffer> {
  const inf = createInflate({ chunkSize: OUT_CHUNK });
  const closed = new Promise<void>((resolve) => inf.once('close', resolve));
  const pump = (async () => {
    for await (const c of input) {
      if (inf.destroyed || inf.writableEnded || inf.readableEnded) return;
      if (!inf.write(c)) await Promise.race([new Promise((r) => inf.once('drain', r)), closed]);
    }
    if (!inf.destroyed) inf.end();
  })().catch(() => inf.destroy());
  try {
    for await (const out of inf as AsyncIterable<Buffer>) yield out;
  } catch {
    // Bad data: what it gave until then was counted.
  } finally {
    if (consumed) consumed.bytes += inf.bytesWritten;
    inf.destroy();
    await pump;
  }
}
