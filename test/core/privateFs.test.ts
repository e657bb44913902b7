import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../functions/src/config.ts';
import { createApp } from '../../functions/src/app.ts';
import { silentLogger } from '../../functions/src/core/logger.ts';
import { createBusiness } from '../../functions/src/domain/business.ts';

/** C13: DATA_DIR holds every business's documents and files and the credentials key; nobody else may read them. */
const parent = mkdtempSync(join(tmpdir(), 'bfo-modes-'));
after(() => rmSync(parent, { recursive: true, force: true }));
const dataDir = join(parent, 'data');
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

/** Every path under DATA_DIR with its mode (`d700` for a folder), DATA_DIR itself included. */
function modes(): Record<string, string> {
  const out: Record<string, string> = { '.': 'd' + mode(dataDir) };
  for (const e of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    out[p.slice(dataDir.length + 1)] = (e.isDirectory() ? 'd' : '') + mode(p);
  }
  return out;
}

/** Opens the app on DATA_DIR, writes a document, a small file (a row) and a large one (a file in the folder). */
async function useDataDir() {
  const app = await createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error' }), { logger: silentLogger });
  const b = await createBusiness(app.services.store, app.services.ids, { name: 'Modes', email: `m${Date.now()}@example.com` }, Date.now());
  await app.services.files.save(b.businessId, { fileName: 'small.pdf', contentType: 'application/pdf', bytes: Buffer.alloc(1000, 1) });
  await app.services.files.save(b.businessId, { fileName: 'large.pdf', contentType: 'application/pdf', bytes: Buffer.alloc(600 * 1024, 2) });
  return app;
}

test('a new DATA_DIR is 0700 and everything written in it 0600 (store, WAL, files, credentials key), whatever the umask', async () => {
  const umask = process.umask(0o022);
  try {
    const app = await useDataDir();
    const seen = modes();
    await app.close();
    for (const f of ['store.sqlite', 'store.sqlite-wal', 'store.sqlite-shm', 'files.sqlite', 'files.sqlite-wal', 'credentials.key']) assert.ok(f in seen, `${f} exists: ${JSON.stringify(seen)}`);
    assert.ok(Object.entries(seen).some(([p, m]) => p.startsWith('files/') && !m.startsWith('d')), 'the large file is in the folder');
    for (const [p, m] of Object.entries(seen)) assert.equal(m, m.startsWith('d') ? 'd700' : '600', `${p} is ${m}`);
  } finally {
    process.umask(umask);
  }
});

test('a DATA_DIR an earlier version left readable (0755 folders, 0644 files) is made private at start', async () => {
  const app0 = await useDataDir();
  await app0.close();
  chmodSync(dataDir, 0o755);
  for (const e of readdirSync(dataDir, { recursive: true, withFileTypes: true })) chmodSync(join(e.parentPath, e.name), e.isDirectory() ? 0o755 : 0o644);
  assert.equal(mode(join(dataDir, 'store.sqlite')), '644');
  const app = await createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error' }), { logger: silentLogger });
  await app.services.store.get('businesses/none');
  const seen = modes();
  await app.close();
  assert.ok(Object.keys(seen).length >= 6, JSON.stringify(seen));
  for (const [p, m] of Object.entries(seen)) assert.equal(m, m.startsWith('d') ? 'd700' : '600', `${p} is ${m}`);
});
