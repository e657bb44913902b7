import { newSecret, sha256, type IdSource } from './ids.ts';
import { sanitizeFileName } from './text.ts';
import { Transform, type Readable } from 'node:stream';
import type { DocStore } from '../ports/store.ts';
import type { FileStore } from '../ports/files.ts';

/** A stored file as records and results carry it. */
export interface FileRef {
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  url: string;
}

interface FileRecord {
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  /** The capability secret of the download link; only its hash keys the global link record. */
  token: string;
  createdAt: string;
}

const filePath = (businessId: string, fileId: string) => `businesses/${businessId}/files/${fileId}`;
const linkPath = (token: string) => `fileLinks/${sha256(token)}`;

export interface Files {
  save(businessId: string, file: { fileName: string; contentType: string; bytes: Buffer }): Promise<FileRef>;
  ref(businessId: string, fileId: string): Promise<FileRef | null>;
  remove(businessId: string, fileId: string): Promise<void>;
  /** The bytes of a business's file; null when it is gone. */
  read(businessId: string, fileId: string): Promise<Buffer | null>;
  /** Resolves a download link's token; null once the file is deleted. */
  open(token: string): Promise<{ fileName: string; contentType: string; bytes: Buffer } | null>;
  /** A business's file as a stream; null when it is gone. */
  readStream(businessId: string, fileId: string): Promise<Readable | null>;
  /** As open, streamed (large files are never held in memory). */
  openStream(token: string): Promise<{ fileName: string; contentType: string; size: number; stream: Readable } | null>;
  /** Stores a file written as a stream (a ZIP), counting its size on the way. */
  saveStream(businessId: string, file: { fileName: string; contentType: string }, source: Readable): Promise<FileRef>;
}

export function createFiles(store: DocStore, blobs: FileStore, filesUrl: string, ids: IdSource, now: () => number): Files {
  const url = (r: FileRecord) => `${filesUrl}/${r.token}/${encodeURIComponent(r.fileName)}`;
  const toRef = (r: FileRecord): FileRef => ({ fileId: r.fileId, fileName: r.fileName, contentType: r.contentType, size: r.size, url: url(r) });
  return {
    async save(businessId, file) {
      const record: FileRecord = {
        fileId: ids(),
        // Every upload path goes through here: the stored name is always a safe one.
        fileName: sanitizeFileName(file.fileName),
        contentType: file.contentType,
        size: file.bytes.length,
        token: newSecret(),
        createdAt: new Date(now()).toISOString(),
      };
      // Bytes first: a record never points at missing bytes.
      await blobs.put(`${businessId}/${record.fileId}`, file.bytes, file.contentType);
      const batch = store.batch();
      batch.set(filePath(businessId, record.fileId), { ...record });
      batch.set(linkPath(record.token), { businessId, fileId: record.fileId });
      await batch.commit();
      return toRef(record);
    },
    async ref(businessId, fileId) {
      const doc = await store.get(filePath(businessId, fileId));
      return doc ? toRef(doc.data as unknown as FileRecord) : null;
    },
    async remove(businessId, fileId) {
      const doc = await store.get(filePath(businessId, fileId));
      if (!doc) return;
      const record = doc.data as unknown as FileRecord;
      const batch = store.batch();
      batch.delete(linkPath(record.token));
      batch.delete(doc.path);
      await batch.commit();
      await blobs.delete(`${businessId}/${fileId}`);
    },
    async read(businessId, fileId) {
      return (await blobs.get(`${businessId}/${fileId}`))?.bytes ?? null;
    },
    readStream(businessId, fileId) {
      return blobs.readStream(`${businessId}/${fileId}`);
    },
    async saveStream(businessId, file, source) {
      const fileId = ids();
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          cb(null, chunk);
        },
      });
      source.on('error', (e) => counter.destroy(e));
      await blobs.putStream(`${businessId}/${fileId}`, source.pipe(counter), file.contentType);
      const record: FileRecord = { fileId, fileName: sanitizeFileName(file.fileName), contentType: file.contentType, size, token: newSecret(), createdAt: new Date(now()).toISOString() };
      const batch = store.batch();
      batch.set(filePath(businessId, fileId), { ...record });
      batch.set(linkPath(record.token), { businessId, fileId });
      await batch.commit();
      return toRef(record);
    },
    async openStream(token) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const link = await store.get(linkPath(token));
      if (!link) return null;
      const { businessId, fileId } = link.data as { businessId: string; fileId: string };
      const doc = await store.get(filePath(businessId, fileId));
      if (!doc) return null;
      const stream = await blobs.readStream(`${businessId}/${fileId}`);
      if (!stream) return null;
      const r = doc.data as unknown as FileRecord;
      return { fileName: r.fileName, contentType: r.contentType, size: r.size, stream };
    },
    async open(token) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const link = await store.get(linkPath(token));
      if (!link) return null;
      const { businessId, fileId } = link.data as { businessId: string; fileId: string };
      const doc = await store.get(filePath(businessId, fileId));
      const blob = await blobs.get(`${businessId}/${fileId}`);
      if (!doc || !blob) return null;
      const record = doc.data as unknown as FileRecord;
      return { fileName: record.fileName, contentType: record.contentType, bytes: blob.bytes };
    },
  };
}
