import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { PDFNumber, PDFRef, PDFString } from 'pdf-lib';
import { loadPdf } from '../../functions/src/core/pdfLoad.ts';
import { UnreadableDocument } from '../../functions/src/core/documentLimits.ts';
import { hebrewFormPdf } from '../operations/signupDocs/forms.ts';
import { pdfWith, rssGrowth, streamObject, zerosZlib } from './bombs.ts';

const refused = (pattern: RegExp) => (e: unknown) => e instanceof UnreadableDocument && pattern.test(e.reason);

/** An object stream holding `objects` as numbers 50, 51, …: header "50 0 51 o1 …", then the objects. */
function objectStream(objects: string[], { dict = '/Filter /FlateDecode', offsets, n = objects.length }: { dict?: string; offsets?: number[]; n?: number } = {}) {
  const at: number[] = [];
  let body = '';
  for (const o of objects) {
    at.push(body.length);
    body += `${o} `;
  }
  const header = (offsets ?? at).map((off, i) => `${50 + i} ${off}`).join(' ') + ' ';
  const data = Buffer.from(header + body, 'latin1');
  return streamObject(90, `/Type /ObjStm /N ${n} /First ${header.length} ${dict}`, dict.includes('Flate') ? zlib.deflateSync(data) : data);
}

test('a PDF with object and cross-reference streams loads as before: its objects come from the decoded streams', async () => {
  const form = await loadPdf(await hebrewFormPdf());
  assert.equal(form.getPageCount(), 2);
  assert.equal(form.getPage(0).getWidth(), 595);
  const doc = await loadPdf(await pdfWith(objectStream(['42', '(hello)', '<< /A 1 >>'])));
  assert.equal((doc.context.lookup(PDFRef.of(50)) as PDFNumber).asNumber(), 42);
  assert.equal((doc.context.lookup(PDFRef.of(51)) as PDFString).decodeText(), 'hello');
  assert.equal(doc.getPageCount(), 1);
});

test('object streams are decoded under their own budget: 100 MB passes the inflation count but not the 32 MB pdf-lib may hold', async () => {
  const pdf = await pdfWith(streamObject(90, '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', zerosZlib(100)));
  const { growthMb, result } = await rssGrowth(() => loadPdf(pdf));
  assert.equal(result.status, 'rejected');
  assert.ok(refused(/object streams expand to more than 32 MB/)((result as PromiseRejectedResult).reason));
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
});

test('object streams pdf-lib would decode some other way, or parse over and over, are refused', async () => {
  const cases: [string, Buffer, RegExp][] = [
    ['ASCIIHexDecode', objectStream(['1'], { dict: '/Filter /ASCIIHexDecode' }), /not FlateDecode-compressed/],
    ['two filters', objectStream(['1'], { dict: '/Filter [/FlateDecode /FlateDecode]' }), /not FlateDecode-compressed/],
    // Every declared object at offset 0: pdf-lib would parse the same bytes once per object.
    ['repeated offsets', objectStream(Array.from({ length: 1000 }, () => '[1 2 3]'), { offsets: Array(1000).fill(0) }), /object stream of the PDF is damaged/],
    ['offsets past the end', objectStream(['1', '2'], { offsets: [0, 99999] }), /object stream of the PDF is damaged/],
    ['too many objects', objectStream(['1'], { n: 9_999_999 }), /more than 200000 objects/],
    // A cross-reference stream of 100,000,000 rows of zero bytes each: pdf-lib would make an entry per row.
    ['xref rows', streamObject(91, '/Type /XRef /Size 100000000 /W [0 0 0] /Filter /FlateDecode', zlib.deflateSync(Buffer.alloc(10))), /more than 200000 objects/],
    ['xref short', streamObject(91, '/Type /XRef /Size 1000 /W [1 2 1] /Filter /FlateDecode', zlib.deflateSync(Buffer.alloc(10))), /cross-reference stream of the PDF is damaged/],
  ];
  for (const [what, obj, reason] of cases) {
    const pdf = await pdfWith(obj);
    await assert.rejects(loadPdf(pdf), refused(reason), what);
  }
});
