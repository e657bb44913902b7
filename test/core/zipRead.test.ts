import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { readZip } from '../../functions/src/core/zipRead.ts';
import { DOCUMENT_LIMITS, UnreadableDocument } from '../../functions/src/core/documentLimits.ts';
import { rssGrowth, zerosDeflateRaw, zipOf } from './bombs.ts';

const refused = (pattern: RegExp) => (e: unknown) => e instanceof UnreadableDocument && pattern.test(e.reason);

test('keeps the entries asked for, inflated, and reads past the others; a non-ZIP is null', async () => {
  const zip = zipOf([
    { name: 'a.xml', data: zlib.deflateRawSync(Buffer.from('<a>hello</a>')) },
    { name: 'b.bin', data: Buffer.from('stored bytes'), method: 0 },
    { name: 'c.xml', data: zlib.deflateRawSync(Buffer.from('<c/>')) },
  ]);
  const parts = await readZip(zip, (n) => n.endsWith('.xml'));
  assert.deepEqual([...parts!.keys()], ['a.xml', 'c.xml']);
  assert.equal(parts!.get('a.xml')!.toString(), '<a>hello</a>');
  assert.equal(await readZip(Buffer.from('PK\x03\x04 not really a zip'), () => true), null);
});

test('an entry whose directory says 1,000 bytes but which inflates to 700 MB is stopped as it inflates, memory flat', async () => {
  const zip = zipOf([{ name: 'word/document.xml', data: zerosDeflateRaw(700), declaredSize: 1000, crc: 1 }]);
  assert.ok(zip.length < 1024 * 1024, `${zip.length} bytes on disk`);
  const { growthMb, result } = await rssGrowth(() => readZip(zip, () => true));
  assert.equal(result.status, 'rejected');
  assert.ok(refused(/word\/document\.xml unpacks to more than the 1000 bytes it declares/)((result as PromiseRejectedResult).reason));
  assert.ok(growthMb < 200, `RSS grew ${growthMb.toFixed(0)} MB`);
});

test('bytes actually produced are counted against the caps, whatever the directory declares', async () => {
  // Declared honestly, but too large for one entry.
  const big = zipOf([{ name: 'big.bin', data: zerosDeflateRaw(60), declaredSize: 60 * 1024 * 1024, crc: 0 }]);
  await assert.rejects(readZip(big, () => false), refused(/big\.bin unpacks to more than 50 MB/));
  // Three entries, each under the entry cap, together over the total.
  const many = zipOf([
    ...Array.from({ length: 2 }, (_, i) => ({ name: `part${i}.bin`, data: zerosDeflateRaw(45), declaredSize: 45 * 1024 * 1024, crc: 0 })),
    { name: 'liar.bin', data: zerosDeflateRaw(45), declaredSize: 45 * 1024 * 1024, crc: 0 },
  ]);
  await assert.rejects(readZip(many, () => false), refused(/the ZIP unpacks to more than 128 MB/));
  // The same caps, smaller, on a tiny ZIP: nothing relies on the directory's numbers.
  const small = zipOf([{ name: 'x.txt', data: zlib.deflateRawSync(Buffer.alloc(5000, 0x41)) }]);
  await assert.rejects(readZip(small, () => true, { entries: 10, entryBytes: 4096, totalBytes: 1e6 }), refused(/x\.txt unpacks to more than/));
  await assert.rejects(readZip(small, () => true, { entries: 10, entryBytes: 1e6, totalBytes: 4096 }), refused(/the ZIP unpacks to more than/));
  assert.equal((await readZip(small, () => true, { entries: 10, entryBytes: 5000, totalBytes: 5000 }))!.get('x.txt')!.length, 5000);
});

test('more entries than allowed, a part twice, or a damaged entry are refused', async () => {
  const entries = Array.from({ length: DOCUMENT_LIMITS.zip.entries + 1 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from('x'), method: 0 as const }));
  await assert.rejects(readZip(zipOf(entries), () => false), refused(/2001 entries; at most 2000/));
  const twice = zipOf([
    { name: 'word/document.xml', data: zlib.deflateRawSync(Buffer.from('<a/>')) },
    { name: 'word/document.xml', data: zlib.deflateRawSync(Buffer.from('<b/>')) },
  ]);
  await assert.rejects(readZip(twice, (n) => n === 'word/document.xml'), refused(/in the ZIP twice/));
  const damaged = zipOf([{ name: 'a.txt', data: Buffer.from([0xff, 0xff, 0xff, 0xff]), declaredSize: 10, crc: 0 }]);
  await assert.rejects(readZip(damaged, () => true), refused(/the ZIP is damaged/));
});
