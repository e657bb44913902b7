import { mkdir, readFile, readdir, rename, rm, stat, writeFile, access } from 'node:fs/promises';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { FileStore } from '../../ports/files.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, privateDatabase, privateDir, privateFile, privateTree } from '../../core/privateFs.ts';

/** Files up to this size live in `<root>.sqlite`; larger ones, and every stream (ZIPs), are files in the folder. */
export const SMALL_FILE_BYTES = 512 * 1024;

/**
 * Local files: small ones as rows of one SQLite database beside the folder (`<root>.sqlite`), larger ones and
 * streams as files in the folder, `<root>/<fileId>`. A file creation cost more CPU than the rest of storing an
 * imported mail's invoice PDF here (about 0.3 ms, mostly the kernel's; issue 23), where a row costs a fraction of it;
 * writing up to 512 KB synchronously holds the event loop for well under a millisecond.
 * The content type is not kept here: it is in the file's record (core/files.ts), as is the file's existence. The
 * bytes are written before that record commits and read only through it, so a file cut short by a crash is never
 * served. Files written by earlier versions (all in the folder, some with a content-type sidecar) read as before.
 */
export function localFiles(root: string): FileStore {
  const base = resolve(root);
  // A folder an earlier version made (0755, its files 0644) is made private once, when first opened.
  if (existsSync(base) && !privateDir(base)) privateTree(base);
  for (const f of ['', '-wal', '-shm']) privateFile(`${base}.sqlite${f}`);
  const pathOf = (fileId: string) => {
    const p = resolve(join(base, fileId));
    if (!p.startsWith(base + '/')) throw new Error(`bad file id ${fileId}`);
    return p;
  };
  /** Folders this store made: a write into one of them skips the mkdir walk (made again if removed meanwhile). */
  const made = new Set<string>();
  const intoFolder = async (p: string, write: () => Promise<void>) => {
    const dir = dirname(p);
    if (!made.has(dir)) await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    try {
      await write();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      await write();
    }
    made.add(dir);
  };
  // Opened on first use: most processes (the admin CLI, a server that stores no file) never need it.
  let db: DatabaseSync | null = null;
  const statements = new Map<string, StatementSync>();
  const sql = (text: string): StatementSync => {
    let s = statements.get(text);
    if (!s) statements.set(text, (s = rows().prepare(text)));
    return s;
  };
  const rows = () => {
    if (db) return db;
    mkdirSync(dirname(base), { recursive: true, mode: PRIVATE_DIR_MODE });
    privateDatabase(`${base}.sqlite`);
    // node:sqlite is loaded with the first file, not with this module (issue 23: cold start).
    const { DatabaseSync: Db } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');
    db = new Db(`${base}.sqlite`);
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // As in the document store: a deleted file's bytes are zeroed, not left in free pages.
    db.exec('PRAGMA secure_delete = ON');
    db.exec('CREATE TABLE IF NOT EXISTS files (id TEXT PRIMARY KEY, bytes BLOB NOT NULL, at INTEGER)');
    // When a row was written, for the orphan sweep's safe age (rows of earlier versions have none: old enough).
    if (!(db.prepare('PRAGMA table_info(files)').all() as { name: string }[]).some((c) => c.name === 'at')) db.exec('ALTER TABLE files ADD COLUMN at INTEGER');
    return db;
  };
  const row = (fileId: string): Buffer | null => {
    pathOf(fileId);
    const r = sql('SELECT bytes FROM files WHERE id = ?').get(fileId) as { bytes: Uint8Array } | undefined;
    return r ? Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength) : null;
  };
  /** A row left by a smaller version of the file (or the file deleted): the folder's file is the one now. */
  const dropRow = (fileId: string) => sql('DELETE FROM files WHERE id = ?').run(fileId);
  return {
    async put(fileId, bytes) {
      const p = pathOf(fileId);
      if (bytes.length <= SMALL_FILE_BYTES) {
        sql('INSERT INTO files (id, bytes, at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET bytes = excluded.bytes, at = excluded.at').run(fileId, bytes, Date.now());
        return;
      }
      await intoFolder(p, () => writeFile(p, bytes, { mode: PRIVATE_FILE_MODE }));
      dropRow(fileId);
    },
    async get(fileId) {
      const small = row(fileId);
      if (small) return small;
      try {
        return await readFile(pathOf(fileId));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async delete(fileId) {
      const p = pathOf(fileId);
      dropRow(fileId);
      await rm(p, { force: true });
      await rm(p + '.type', { force: true });
    },
    async readStream(fileId) {
      const small = row(fileId);
      if (small) return Readable.from([small]);
      const p = pathOf(fileId);
      try {
        await access(p);
      } catch {
        return null;
      }
      return createReadStream(p, { highWaterMark: 128 * 1024 });
    },
    async putStream(fileId, source) {
      const p = pathOf(fileId);
      // Written beside and renamed when complete: a ZIP that failed halfway leaves no file under its id.
      await intoFolder(p, () => pipeline(source, createWriteStream(p + '.tmp', { mode: PRIVATE_FILE_MODE })));
      await rename(p + '.tmp', p);
      dropRow(fileId);
    },
    async sweepOrphans(beforeMs, isKnown) {
      let files = 0;
      let bytes = 0;
      for (const r of sql('SELECT id, length(bytes) AS size FROM files WHERE at IS NULL OR at < ?').all(beforeMs) as { id: string; size: number }[]) {
        if (await isKnown(r.id)) continue;
        dropRow(r.id);
        files++;
        bytes += r.size;
      }
      const walk = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw e;
        }
        for (const e of entries) {
          const p = join(dir, e.name);
          if (e.isDirectory()) {
            await walk(p);
            continue;
          }
          // A content-type sidecar goes with its file.
          if (!e.isFile() || p.endsWith('.type')) continue;
          const st = await stat(p).catch(() => null);
          // mtime moves while a write runs: a file touched within the safe age may still be in flight.
          if (!st || st.mtimeMs >= beforeMs) continue;
          const partial = p.endsWith('.tmp');
          const key = relative(base, partial ? p.slice(0, -4) : p).split(sep).join('/');
          if (!partial && (await isKnown(key))) continue;
          await rm(p, { force: true });
          if (!partial) await rm(p + '.type', { force: true });
          files++;
          bytes += st.size;
        }
      };
      await walk(base);
      return { files, bytes };
    },
    close() {
      statements.clear();
      db?.close();
      db = null;
    },
  };
}
