import type { Readable } from 'node:stream';

/**
 * File-store port: bytes by opaque file id. Capability links are minted by core/files.ts on top of it, and a file's
 * name and content type live in its record there; the content type given to `put` is for stores that keep it beside
 * the bytes (Cloud Storage's object metadata, seen in the console).
 */
export interface FileStore {
  put(fileId: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes; null when missing. */
  get(fileId: string): Promise<Buffer | null>;
  delete(fileId: string): Promise<void>;
  /** The bytes as a stream (large files: ZIPs); null when missing. */
  readStream(fileId: string): Promise<Readable | null>;
  /** Writes a file from a stream without holding it in memory; resolves once it is stored. */
  putStream(fileId: string, source: Readable, contentType: string): Promise<void>;
  /**
   * Deletes what was last written before `beforeMs` and that `isKnown` (given the key) does not claim, and every
   * partial write (a stream cut off) that old: debris of a crash between the bytes and their record. Optional.
   */
  sweepOrphans?(beforeMs: number, isKnown: (key: string) => Promise<boolean>): Promise<{ files: number; bytes: number }>;
  /** Releases what the store holds open (a local database), when it holds anything. */
  close?(): void;
}
