import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
  };
}
