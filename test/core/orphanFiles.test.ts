/**
 * Bytes a crash left without their record (issue 34 A4): the hourly sweep (server.ts) deletes them once they are
 * old enough that no write can still be in flight, and never touches a file a record points at.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createHarness, type Harness } from '../harness.ts';
import { post } from '../http.ts';

let h: Harness;
let origin: string;
before(async () => {
  h = await createHarness();
  origin = await h.listen();
});
after(() => h.close());

const pdf = (bytes: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(bytes, 0x20)]);
const tmpFiles = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp')).map((f) => join(dir, f)) : [];

test('bytes with no record and a ZIP cut off mid-stream are swept once old enough; files with records stay', async () => {
  const { files } = h.app.services;
  const b = h.owner.businessId;
  // A real upload, small (a database row) and large (a file in the folder), both with their records.
  const kept: string[] = [];
  for (const size of [1000, 900_000]) {
    const up = (await post(origin, '/v1/createUploadUrl', { purpose: 'invoice', fileName: `kept-${size}.pdf` }, h.owner.apiKey)).body.result;
    const res = await fetch(origin + new URL(up.uploadUrl).pathname, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf(size)) });
    assert.equal(res.status, 200);
    kept.push(up.fileId);
  }
  // A crash between the bytes and their record: staged, never recorded.
  const small = await files.stage(b, { fileName: 'lost.pdf', contentType: 'application/pdf', bytes: pdf(2000) });
  const large = await files.stage(b, { fileName: 'lost-big.pdf', contentType: 'application/pdf', bytes: pdf(2_000_000) });
  // A ZIP whose source failed halfway (a crash mid-stream leaves the same partial file).
  const source = Readable.from(
    (async function* () {
      for (let i = 0; i < 3; i++) yield Buffer.alloc(1_000_000, 1);
      await new Promise((r) => setTimeout(r, 50));
      throw new Error('the process died');
    })(),
  );
  await assert.rejects(files.saveStream(b, { fileName: 'month.zip', contentType: 'application/zip' }, source));
  const folder = join(h.config.dataDir, 'files');
  assert.equal(tmpFiles(folder).length, 1);
  const partialSize = statSync(tmpFiles(folder)[0]).size;
  assert.ok(partialSize > 0);

  // Young debris may be a write in flight: the default sweep (an hour's margin) leaves it.
  assert.deepEqual(await files.sweepOrphans(), { files: 0, bytes: 0 });
  assert.ok(await files.read(b, small.ref.fileId));
  assert.ok(await files.read(b, large.ref.fileId));

  // An hour later (no margin left): the debris goes, and only it.
  const swept = await files.sweepOrphans(0);
  assert.equal(swept.files, 3);
  assert.equal(swept.bytes, small.ref.size + large.ref.size + partialSize);
  assert.equal(await files.read(b, small.ref.fileId), null);
  assert.equal(await files.read(b, large.ref.fileId), null);
  assert.deepEqual(tmpFiles(folder), []);
  for (const fileId of kept) {
    const doc = await post(origin, '/v1/uploadInvoiceDoc', { fileId }, h.owner.apiKey);
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    const file = await fetch(origin + new URL(doc.body.result.url).pathname);
    assert.equal(file.status, 200);
    assert.equal((await file.arrayBuffer()).byteLength, doc.body.result.size);
  }
  assert.deepEqual(await files.sweepOrphans(0), { files: 0, bytes: 0 }, 'nothing with a record is ever swept');
});
