import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { deleteApp, initializeApp, type App } from 'firebase-admin/app';
import { cloudStorageFiles } from '../../../functions/src/adapters/cloud-storage/cloudStorageFiles.ts';
import { openSqliteStore } from '../../../functions/src/adapters/sqlite/sqliteStore.ts';
import { createFiles } from '../../../functions/src/core/files.ts';
import { randomIds } from '../../../functions/src/core/ids.ts';
import type { FileStore } from '../../../functions/src/ports/files.ts';
import { startFakeCloudStorage, type FakeCloudStorage } from '../../fakes/cloudStorage.ts';

const BUCKET = 'demo-bfo.appspot.com';

let fake: FakeCloudStorage;
let app: App;
let files: FileStore;
const dir = mkdtempSync(join(tmpdir(), 'bfo-gcs-'));

before(async () => {
  fake = await startFakeCloudStorage({ bucket: BUCKET });
  // Read by the SDK's Storage constructor, i.e. on the adapter's first call; the scheme is required.
  process.env.STORAGE_EMULATOR_HOST = fake.host;
  app = initializeApp({ projectId: 'demo-bfo', storageBucket: BUCKET });
  files = cloudStorageFiles(BUCKET);
});
after(async () => {
  await deleteApp(app);
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fake.requests.length = 0;
});

const pdf = Buffer.from('%PDF-1.4\n% test file\n\u00e9\r\n--not-a-boundary\r\n');

test('put then get returns the same bytes, in one request; the object keeps the content type', async () => {
  await files.put('b1/f1', pdf, 'application/pdf');
  fake.requests.length = 0;
  const got = await files.get('b1/f1');
  assert.deepEqual(got, pdf);
  assert.equal(fake.requests.length, 1, 'the download alone: the content type is in the file record');
  assert.equal(fake.objects.get('files/b1/f1')!.resource.contentType, 'application/pdf');
});

test('put is one multipart upload carrying the content type and no-store caching', async () => {
  await files.put('b1/f2', pdf, 'image/png');
  const inserts = fake.requests.filter((r) => r.op === 'insert');
  assert.equal(inserts.length, 1);
  assert.equal(inserts[0].query.uploadType, 'multipart');
  assert.equal(inserts[0].status, 200);
  const [meta, media] = inserts[0].parts!;
  assert.deepEqual(JSON.parse(meta.body.toString()), { cacheControl: 'private, no-store', contentType: 'image/png' });
  assert.equal(media.contentType, 'image/png');
  assert.equal(fake.requests.length, 1, 'no request besides the upload');
});

test('objects are named under the files/ prefix', async () => {
  await files.put('b9/x', pdf, 'application/pdf');
  await files.get('b9/x');
  await files.delete('b9/x');
  assert.deepEqual(fake.requests.map((r) => `${r.op} ${r.object}`), ['insert files/b9/x', 'media files/b9/x', 'delete files/b9/x']);
  assert.ok(fake.requests.every((r) => r.path.endsWith('/o') || r.path.endsWith('/o/files%2Fb9%2Fx')));
  for (const name of fake.objects.keys()) assert.match(name, /^files\//);
});

test('get of a missing id is null', async () => {
  assert.equal(await files.get('b1/missing'), null);
  assert.ok(fake.requests.some((r) => r.status === 404));
});

test('delete of a missing id is not an error', async () => {
  await files.delete('b1/missing');
  assert.deepEqual(
    fake.requests.map((r) => [r.op, r.status]),
    [['delete', 404]],
  );
});

test('delete then get is null', async () => {
  await files.put('b1/f3', pdf, 'application/pdf');
  await files.delete('b1/f3');
  assert.equal(fake.objects.has('files/b1/f3'), false);
  assert.equal(await files.get('b1/f3'), null);
});

test('a 5 MB object round-trips', async () => {
  const big = randomBytes(5 * 1024 * 1024);
  await files.put('b1/big', big, 'application/pdf');
  assert.equal(fake.objects.get('files/b1/big')?.bytes.length, big.length);
  const got = await files.get('b1/big');
  assert.ok(got);
  assert.ok(got.equals(big));
});

test('an empty bucket name means the app default bucket; an unknown bucket fails', async () => {
  const byDefault = cloudStorageFiles('');
  await byDefault.put('b2/d', pdf, 'text/plain');
  assert.equal(fake.requests[0].bucket, BUCKET);
  assert.deepEqual(await byDefault.get('b2/d'), pdf);
  await assert.rejects(cloudStorageFiles('other-bucket').put('b2/e', pdf, 'text/plain'), (e: any) => e.code === 404);
});

test('the SDK checks the hashes the fake sends: corrupted bytes fail the download', async () => {
  await files.put('b1/h', pdf, 'application/pdf');
  fake.objects.get('files/b1/h')!.bytes[0] ^= 1;
  await assert.rejects(files.get('b1/h'), (e: any) => e.code === 'CONTENT_DOWNLOAD_MISMATCH');
});

test('end to end: createFiles over SQLite and Cloud Storage saves, opens by token and removes', async () => {
  const store = openSqliteStore({ file: join(dir, 'store.db') });
  try {
    const svc = createFiles(store, files, 'https://files.example.com', randomIds, () => Date.parse('2025-01-02T03:04:05Z'));
    const ref = await svc.save('biz1', { fileName: 'invoice 7.pdf', contentType: 'application/pdf', bytes: pdf });
    assert.equal(ref.size, pdf.length);
    assert.ok(fake.objects.has(`files/biz1/${ref.fileId}`));
    const token = new URL(ref.url).pathname.split('/')[1];
    const opened = await svc.open(token);
    assert.deepEqual(opened, { fileName: 'invoice 7.pdf', contentType: 'application/pdf', bytes: pdf });
    await svc.remove('biz1', ref.fileId);
    assert.equal(fake.objects.has(`files/biz1/${ref.fileId}`), false);
    assert.equal(await svc.open(token), null);
  } finally {
    await store.close();
  }
});

test('putStream and readStream move a file through the bucket as streams', async () => {
  const { Readable } = await import('node:stream');
  const big = Buffer.alloc(3 * 1024 * 1024, 7);
  await files.putStream('b9/stream', Readable.from([big.subarray(0, 1024 * 1024), big.subarray(1024 * 1024)]), 'application/zip');
  const back = await files.readStream('b9/stream');
  assert.ok(back);
  const chunks: Buffer[] = [];
  for await (const c of back!) chunks.push(c as Buffer);
  assert.ok(Buffer.concat(chunks).equals(big));
  assert.equal(fake.objects.get('files/b9/stream')!.resource.contentType, 'application/zip');
  assert.equal(await files.readStream('b9/missing'), null);
});
