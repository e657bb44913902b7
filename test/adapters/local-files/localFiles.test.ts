import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { localFiles, SMALL_FILE_BYTES } from '../../../functions/src/adapters/local-files/localFiles.ts';

const roots: string[] = [];
const fresh = () => {
  const root = mkdtempSync(join(tmpdir(), 'bfo-files-'));
  roots.push(root);
  return root;
};
afterEach(() => {
  // The database lies beside the folder (root + '.sqlite').
  for (const r of roots.splice(0)) for (const p of [r, `${r}.sqlite`, `${r}.sqlite-wal`, `${r}.sqlite-shm`]) rmSync(p, { recursive: true, force: true });
});

test('small files are rows of the database beside the folder, larger ones files in it; both come back as written', async () => {
  const root = fresh();
  const files = localFiles(root);
  const small = Buffer.from('%PDF-1.4 small');
  const edge = Buffer.alloc(SMALL_FILE_BYTES, 1);
  const large = Buffer.alloc(SMALL_FILE_BYTES + 1, 7);
  await files.put('b1/f/small', small, 'application/pdf');
  await files.put('b1/f/edge', edge, 'application/pdf');
  await files.put('b1/f/large', large, 'image/png');
  assert.deepEqual(await files.get('b1/f/small'), small);
  assert.deepEqual(await files.get('b1/f/edge'), edge);
  assert.deepEqual(await files.get('b1/f/large'), large);
  assert.deepEqual(readdirSync(join(root, 'b1/f')), ['large'], 'only the file above the limit is a file');
  const db = new DatabaseSync(`${root}.sqlite`);
  assert.deepEqual(db.prepare('SELECT id FROM files ORDER BY id').all().map((r) => r.id), ['b1/f/edge', 'b1/f/small']);
  db.close();
  const streamed: Buffer[] = [];
  for await (const c of (await files.readStream('b1/f/small'))!) streamed.push(c as Buffer);
  assert.deepEqual(Buffer.concat(streamed), small);
  files.close?.();
});

test('a file rewritten at another size lives in one place only; delete removes it wherever it is, and an earlier version\'s sidecar', async () => {
  const root = fresh();
  const files = localFiles(root);
  await files.put('b1/f/grows', Buffer.from('small first'), 'application/pdf');
  const large = Buffer.alloc(SMALL_FILE_BYTES + 10, 3);
  await files.put('b1/f/grows', large, 'application/pdf');
  assert.deepEqual(await files.get('b1/f/grows'), large);
  await files.put('b1/f/grows', Buffer.from('small again'), 'application/pdf');
  assert.equal((await files.get('b1/f/grows'))?.toString(), 'small again');
  await files.delete('b1/f/grows');
  assert.equal(await files.get('b1/f/grows'), null);
  assert.equal(await files.readStream('b1/f/grows'), null);
  // A file an earlier version wrote into the folder, with its content-type sidecar.
  mkdirSync(join(root, 'b1/old'), { recursive: true });
  writeFileSync(join(root, 'b1/old/x'), 'from before');
  writeFileSync(join(root, 'b1/old/x.type'), 'application/pdf');
  assert.equal((await files.get('b1/old/x'))?.toString(), 'from before');
  await files.delete('b1/old/x');
  assert.equal(await files.get('b1/old/x'), null);
  assert.deepEqual(readdirSync(join(root, 'b1/old')), []);
  files.close?.();
});

test('a folder removed behind the store is made again on the next put', async () => {
  const root = fresh();
  const files = localFiles(root);
  const big = (c: number) => Buffer.alloc(SMALL_FILE_BYTES + 1, c);
  await files.put('b2/x/one', big(1), 'text/plain');
  rmSync(join(root, 'b2'), { recursive: true });
  await files.put('b2/x/two', big(2), 'text/plain');
  assert.deepEqual(await files.get('b2/x/two'), big(2));
});

test('a file id that leaves the folder is refused, streams round-trip', async () => {
  const root = fresh();
  const files = localFiles(root);
  await assert.rejects(files.put('../outside', Buffer.from('x'), 'text/plain'), /bad file id/);
  await assert.rejects(files.get('../outside'), /bad file id/);
  await files.putStream('b3/zip', Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 'application/zip');
  const s = await files.readStream('b3/zip');
  const chunks: Buffer[] = [];
  for await (const c of s!) chunks.push(c as Buffer);
  assert.equal(Buffer.concat(chunks).toString(), 'abcd');
  assert.deepEqual(readdirSync(join(root, 'b3')), ['zip']);
  assert.equal(await files.readStream('b3/missing'), null);
});

test('a put is committed when it resolves: closing the files right after keeps it', async () => {
  const root = fresh();
  const files = localFiles(root);
  const put = files.put('b1/f/late', Buffer.from('late'), 'application/pdf');
  files.close?.();
  await put;
  const again = localFiles(root);
  assert.deepEqual(await again.get('b1/f/late'), Buffer.from('late'));
  again.close?.();
});

test('a database of an earlier version (rows without a write time) opens, and its rows count as old for the orphan sweep', async () => {
  const root = fresh();
  const old = new DatabaseSync(`${root}.sqlite`);
  old.exec('CREATE TABLE files (id TEXT PRIMARY KEY, bytes BLOB NOT NULL)');
  old.prepare('INSERT INTO files (id, bytes) VALUES (?, ?)').run('b1/orphan', Buffer.from('left'));
  old.prepare('INSERT INTO files (id, bytes) VALUES (?, ?)').run('b1/kept', Buffer.from('kept'));
  old.close();
  const files = localFiles(root);
  await files.put('b1/young', Buffer.from('just written'), 'application/pdf');
  // An hour's margin: the row just written stays whatever its record; the old ones are judged by it.
  const swept = await files.sweepOrphans!(Date.now() - 3_600_000, async (key) => key === 'b1/kept');
  assert.deepEqual(swept, { files: 1, bytes: 4 });
  assert.equal(await files.get('b1/orphan'), null);
  assert.deepEqual(await files.get('b1/kept'), Buffer.from('kept'));
  assert.deepEqual(await files.get('b1/young'), Buffer.from('just written'));
  files.close?.();
});
