import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { measurePdfInflation, pdfRefusal } from '../../functions/src/core/pdfInflation.ts';
import { UnreadableDocument } from '../../functions/src/core/documentLimits.ts';
import { hebrewFormPdf } from '../operations/signupDocs/forms.ts';
import { objectStreamBombPdf, pdfWith, rssGrowth, streamObject, zerosZlib } from './bombs.ts';

const MB = 1024 * 1024;
// The variants run against a smaller budget (same code, less to inflate); the audit's bomb meets the real one.
const SMALL = { inflatedBytes: 8 * MB, streams: 1000, objects: 10_000 };
const refused = (pattern: RegExp) => (e: unknown) => e instanceof UnreadableDocument && pattern.test(e.reason);

test('a real form is measured: its compressed streams and what they inflate to', async () => {
  const m = await measurePdfInflation(await hebrewFormPdf());
  assert.ok(m.streams >= 3, `${m.streams} streams`);
  // The embedded DejaVu subset and the page contents inflate to more than the file's size, far below any cap.
  assert.ok(m.inflatedBytes > 5000 && m.inflatedBytes < 1 * MB, `${m.inflatedBytes} bytes`);
  assert.equal(await pdfRefusal(await hebrewFormPdf()), null);
});

test("the audit's object-stream bomb (700 MB from a ~700 KB PDF) is refused as it inflates, memory flat", async () => {
  const pdf = await objectStreamBombPdf(700);
  assert.ok(pdf.length < 1 * MB, `${pdf.length} bytes on disk`);
  const { growthMb, result } = await rssGrowth(() => measurePdfInflation(pdf));
  assert.equal(result.status, 'rejected');
  assert.ok(refused(/expands to more than 128 MB/)((result as PromiseRejectedResult).reason));
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
});

test('what the dictionary says changes nothing: no /Filter, a wrong /Length, a stream hidden in another FlateDecode, a window size zlib refuses', async () => {
  const cases: [string, Buffer][] = [
    ['no filter declared', streamObject(90, '', zerosZlib(20))],
    ['a short /Length', Buffer.concat([Buffer.from('90 0 obj << /Length 10 >> stream\n'), zerosZlib(20), Buffer.from('\nendstream endobj\n')])],
    // FlateDecode twice: 20 MB inside a stream that is itself only ~20 KB once inflated.
    ['nested FlateDecode', streamObject(90, '/Filter [/FlateDecode /FlateDecode]', zlib.deflateSync(zerosZlib(20)))],
    // CINFO 15 (a window zlib never uses): pdf.js decodes it anyway, so it is counted like any other.
    ['an odd header', (() => { const z = zerosZlib(20); z[0] = 0xf8; z[1] = 31 - ((0xf8 * 256) % 31); return streamObject(90, '/Filter /FlateDecode', z); })()],
  ];
  for (const [what, obj] of cases) {
    const pdf = await pdfWith(obj);
    await assert.rejects(measurePdfInflation(pdf, SMALL), refused(/expands to more than 8 MB/), what);
  }
  const nested = await pdfWith(streamObject(90, '/Filter [/FlateDecode /FlateDecode]', zlib.deflateSync(zerosZlib(700))));
  assert.ok(nested.length < 10_000, `${nested.length} bytes`);
});

test('streams add up: many small ones past the budget are refused; a damaged one counts what it gave', async () => {
  const many = Buffer.concat(Array.from({ length: 9 }, (_, i) => streamObject(100 + i, '/Filter /FlateDecode', zerosZlib(1))));
  await assert.rejects(measurePdfInflation(await pdfWith(many), SMALL), refused(/expands to more than 8 MB/));
  const under = Buffer.concat(Array.from({ length: 7 }, (_, i) => streamObject(100 + i, '/Filter /FlateDecode', zerosZlib(1))));
  const m = await measurePdfInflation(await pdfWith(under), SMALL);
  assert.ok(m.inflatedBytes >= 7 * MB && m.inflatedBytes < 8 * MB, `${m.inflatedBytes}`);
  const streams = Buffer.concat(Array.from({ length: 1001 }, (_, i) => streamObject(100 + i, '/Filter /FlateDecode', zlib.deflateSync('x'))));
  await assert.rejects(measurePdfInflation(await pdfWith(streams), SMALL), refused(/more than 1000 compressed streams/));
  // Cut in the middle and followed by garbage: zlib stops at the break, having produced part of it.
  const z = zerosZlib(10);
  const cut = Buffer.concat([z.subarray(0, z.length / 2), Buffer.from('garbage garbage garbage')]);
  const broken = await measurePdfInflation(await pdfWith(streamObject(90, '/Filter /FlateDecode', cut)));
  assert.ok(broken.inflatedBytes >= 4 * MB && broken.inflatedBytes < 6 * MB, `${broken.inflatedBytes}`);
});

test('a PDF declaring more objects than allowed is refused before anything inflates', async () => {
  const objects = Array.from({ length: 200_001 }, (_, i) => `${i + 10} 0 obj null endobj\n`).join('');
  await assert.rejects(measurePdfInflation(await pdfWith(objects)), refused(/more than 200000 objects/));
});

test('the input read is bounded too: data that inflates to nothing but runs on (overlapping streams read again) is refused', async () => {
  // 400,000 empty stored blocks: 2 MB of deflate input producing no output at all.
  const empty = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);
  const data = Buffer.concat([Buffer.from([0x78, 0x9c]), Buffer.concat(Array.from({ length: 400_000 }, () => empty)), Buffer.from([0x03, 0x00])]);
  const pdf = await pdfWith(streamObject(90, '/Filter /FlateDecode', data));
  await assert.rejects(measurePdfInflation(pdf, { ...SMALL, inflatedBytes: 1 * MB }), refused(/takes more than 1 MB of input/));
  assert.equal((await measurePdfInflation(pdf, { ...SMALL, inflatedBytes: 3 * MB })).inflatedBytes, 0);
});

test('every stream is counted to the byte, whether it is small enough to inflate at once or takes the streaming path', async () => {
  const base = (await measurePdfInflation(await pdfWith(''), SMALL)).inflatedBytes;
  const text = Buffer.from('BT /F1 12 Tf 72 712 Td (Invoice 1234) Tj ET\n'.repeat(200));
  const noise = (n: number) => randomBytes(n);
  const level1 = zlib.deflateSync(text);
  const cases: [string, Buffer, number][] = [
    ['a page of text', zlib.deflateSync(text), text.length],
    // Past what is inflated at once: the streaming path, same count.
    ['3 MB of zeros', zerosZlib(3), 3 * MB],
    // 600 KB of compressed data: more input than is read at once.
    ['600 KB that hardly compress', zlib.deflateSync(noise(600 * 1024)), 600 * 1024],
    ['text inside FlateDecode twice', zlib.deflateSync(level1), level1.length + text.length],
  ];
  for (const [what, data, expected] of cases) {
    const m = await measurePdfInflation(await pdfWith(streamObject(90, '/Filter /FlateDecode', data)), SMALL);
    assert.equal(m.inflatedBytes - base, expected, what);
  }
  // Cut off by the end of the file: what it gave until there.
  const cut = zlib.deflateSync(noise(20_000)).subarray(0, 5000);
  const atEnd = Buffer.concat([await pdfWith(''), Buffer.from('99 0 obj << /Filter /FlateDecode >>\nstream\n'), cut]);
  const counted = (await measurePdfInflation(atEnd, SMALL)).inflatedBytes - base;
  const given = zlib.inflateSync(cut, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).length;
  assert.ok(given > 0 && given < 20_000);
  assert.equal(counted, given);
});
