import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { localFiles } from '../../../functions/src/adapters/local-files/localFiles.ts';

const roots: string[] = [];
const fresh = () => {
  const root = mkdtempSync(join(tmpdir(), 'bfo-files-'));
  roots.push(root);
  return root;
};
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

test('files come back as written, one file each on disk; delete removes a file and an earlier version\'s sidecar', async () => {
  const root = fresh();
  const files = localFiles(root);
  const small = Buffer.from('%PDF-1.4 small');
  const large = Buffer.alloc(600 * 1024, 7);
  await files.put('b1/f/small', small, 'application/pdf');
  await files.put('b1/f/large', large, 'image/png');
  assert.deepEqual(await files.get('b1/f/small'), small);
  assert.deepEqual(await files.get('b1/f/large'), large);
  assert.deepEqual(readdirSync(join(root, 'b1/f')).sort(), ['large', 'small']);
  writeFileSync(join(root, 'b1/f/small.type'), 'application/pdf');
  await files.delete('b1/f/small');
  assert.equal(await files.get('b1/f/small'), null);
  assert.deepEqual(readdirSync(join(root, 'b1/f')), ['large']);
});

test('a folder removed behind the store is made again on the next put', async () => {
  const root = fresh();
  const files = localFiles(root);
  await files.put('b2/x/one', Buffer.from('one'), 'text/plain');
  rmSync(join(root, 'b2'), { recursive: true });
  await files.put('b2/x/two', Buffer.from('two'), 'text/plain');
  assert.equal((await files.get('b2/x/two'))?.toString(), 'two');
});

test('a file id that leaves the folder is refused, streams round-trip', async () => {
  const root = fresh();
  const files = localFiles(root);
  await assert.rejects(files.put('../outside', Buffer.from('x'), 'text/plain'), /bad file id/);
  await files.putStream('b3/zip', Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 'application/zip');
  const s = await files.readStream('b3/zip');
  const chunks: Buffer[] = [];
  for await (const c of s!) chunks.push(c as Buffer);
  assert.equal(Buffer.concat(chunks).toString(), 'abcd');
  assert.deepEqual(readdirSync(join(root, 'b3')), ['zip']);
  assert.equal(await files.readStream('b3/missing'), null);
});
