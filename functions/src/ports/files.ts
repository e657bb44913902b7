/** File-store port: bytes by opaque file id. Capability links are minted by core/files.ts on top of it. */
export interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

export interface FileStore {
  put(fileId: string, bytes: Buffer, contentType: string): Promise<void>;
  get(fileId: string): Promise<StoredFile | null>;
  delete(fileId: string): Promise<void>;
}
