import { mkdir, readFile, rename, rm, writeFile, access } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { dirname, join, resolve } from 'node:path';
import type { FileStore } from '../../ports/files.ts';

/**
 * Files in a local folder, `<root>/<fileId>`. The content type is not kept here: it is in the file's record
 * (core/files.ts), as is the file's existence. The bytes are written before that record commits and read only through
 * it, so a file cut short by a crash is never served. A write is one new file: creating files is most of an imported
 * mail's file-system CPU (issue 23), so there is no temporary file and rename, and no content-type sidecar (files of
 * earlier versions still have one; delete removes it).
 */
export function localFiles(root: string): FileStore {
  const base = resolve(root);
  const pathOf = (fileId: string) => {
    const p = resolve(join(base, fileId));
    if (!p.startsWith(base + '/')) throw new Error(`bad file id ${fileId}`);
    return p;
  };
  /** Folders this store made: a write into one of them skips the mkdir walk (made again if removed meanwhile). */
  const made = new Set<string>();
  const intoFolder = async (p: string, write: () => Promise<void>) => {
    const dir = dirname(p);
    if (!made.has(dir)) await mkdir(dir, { recursive: true });
    try {
      await write();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await mkdir(dir, { recursive: true });
      await write();
    }
    made.add(dir);
  };
  return {
    async put(fileId, bytes) {
      const p = pathOf(fileId);
      await intoFolder(p, () => writeFile(p, bytes));
    },
    async get(fileId) {
      try {
        return await readFile(pathOf(fileId));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async delete(fileId) {
      const p = pathOf(fileId);
      await rm(p, { force: true });
      await rm(p + '.type', { force: true });
    },
    async readStream(fileId) {
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
      await intoFolder(p, () => pipeline(source, createWriteStream(p + '.tmp')));
      await rename(p + '.tmp', p);
    },
  };
}
