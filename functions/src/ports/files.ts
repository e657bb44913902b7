import type { Readable } from 'node:stream';

/** File-store port: bytes by opaque file id. Capability links are minted by core/files.ts on top of it. */
export interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

export interface FileStore {
  put(fileId: string, bytes: Buffer, contentType: string): Promise<void>;
  get(fileId: string): Promise<StoredFile | null>;
  delete(fileId: string): Promise<void>;
  /** The bytes as a stream (large files: ZIPs); null when missing. */
  readStream(fileId: string): Promise<Readable | null>;
  /** Writes a file from a stream without holding it in memory; resolves once it is stored. */
  putStream(fileId: string, source: Readable, contentType: string): Promise<void>;
}
