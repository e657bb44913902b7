import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * DATA_DIR holds the whole business's data (documents, files, the credentials key): only its owner may read it.
 * Folders are 0700 and files 0600, whatever the umask says; places made by earlier versions (0755/0644) are
 * tightened when they are opened.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const ignoreMissing = (e: unknown) => {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
};

/** Makes `dir` (and any missing parents) 0700, or tightens it when it exists; whether it was already private. */
export function privateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if ((statSync(dir).mode & 0o777) === PRIVATE_DIR_MODE) return true;
  chmodSync(dir, PRIVATE_DIR_MODE);
  return false;
}

/** Tightens a file to 0600 if it exists. */
export function privateFile(file: string): void {
  try {
    if ((statSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(file, PRIVATE_FILE_MODE);
  } catch (e) {
    ignoreMissing(e);
  }
}

/**
 * A SQLite database file, made 0600 before SQLite opens it: SQLite creates its -wal and -shm files with the
 * database file's mode, so they follow. Existing ones are tightened too.
 */
export function privateDatabase(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) privateFile(f);
}

/** Every folder and file under `dir` made private (a folder written by an earlier version). */
export function privateTree(dir: string): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return ignoreMissing(e);
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      chmodSync(p, PRIVATE_DIR_MODE);
      privateTree(p);
    } else if (e.isFile()) privateFile(p);
  }
}
