import { mkdir, readFile, rename, rm, writeFile, access } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { dirname, join, resolve } from 'node:path';
import type { FileStore } from '../../ports/files.ts';

/** Files in a local folder: `<root>/<fileId>` plus a sidecar with the content type. */
export function localFiles(root: string): FileStore {
  const base = resolve(root);
  const pathOf = (fileId: string) => {
    const p = resolve(join(base, fileId));
    if (!p.startsWith(base + '/')) throw new Error(`bad file id ${fileId}`);
    return p;
  };
  return {
    async put(fileId, bytes, contentType) {
      const p = pathOf(fileId);
      await mkdir(dirname(p), { recursive: true });
      // Write then rename, so a crash never leaves a half-written file under the real name.
      await writeFile(p + '.tmp', bytes);
      await writeFile(p + '.type', contentType);
      await rename(p + '.tmp', p);
    },
    async get(fileId) {
      const p = pathOf(fileId);
      try {
        const [bytes, type] = await Promise.all([readFile(p), readFile(p + '.type', 'utf8')]);
        return { bytes, contentType: type };
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
    async putStream(fileId, source, contentType) {
      const p = pathOf(fileId);
      await mkdir(dirname(p), { recursive: true });
      // As put: written beside, renamed when complete.
      await pipeline(source, createWriteStream(p + '.tmp'));
      await writeFile(p + '.type', contentType);
      await rename(p + '.tmp', p);
    },
  };
}
