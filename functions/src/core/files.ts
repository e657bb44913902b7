import { newSecret, sha256, type IdSource } from './ids.ts';
import { sanitizeFileName } from './text.ts';
import { Transform, type Readable } from 'node:stream';
import { DELETE_FIELD, type DocStore, type Writer } from '../ports/store.ts';
import type { FileStore } from '../ports/files.ts';

/** A stored file as records and results carry it. */
export interface FileRef {
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  url: string;
  /** Set on files with a lifetime (generated ZIPs): after it the link answers 410 and the file is deleted. */
  expiresAt?: string;
}

/** How long a generated ZIP's link works (docs/decisions.md); then the file is deleted and the link answers 410. */
export const ZIP_LIFETIME_MS = 7 * 86_400_000;
/**
 * Stored bytes with no record younger than this may be a write in flight (bytes go first, the record commits after,
 * within seconds): the orphan sweep leaves them alone.
 */
export const ORPHAN_MIN_AGE_MS = 3_600_000;
/** How long an expired link still says "expired" (410) rather than "not found" (404). */
const EXPIRED_LINK_KEPT_MS = 90 * 86_400_000;

interface FileRecord {
  fileId: string;
  fileName: string;
  contentType: string;
  size: number;
  /** The capability secret of the download link; only its hash keys the global link record. */
  token: string;
  createdAt: string;
  validUntilMs?: number;
}

/**
 * The global record of a download link, keyed by the hash of its token. A link with a lifetime carries `validUntilMs`
 * (kept after the file is gone, so the link can say it expired), `purgeAtMs` until the file is deleted (the sweep's
 * query), and `expireAtMs` when TTL removes the record itself.
 */
interface LinkRecord {
  businessId: string;
  fileId: string;
  fileName?: string;
  validUntilMs?: number;
  purgeAtMs?: number;
  expireAt?: string;
  expireAtMs?: number;
}

const filePath = (businessId: string, fileId: string) => `businesses/${businessId}/files/${fileId}`;
const linkPath = (token: string) => `fileLinks/${sha256(token)}`;

/** A file whose bytes are stored and whose records wait for the caller's transaction (Files.stage). */
export interface StagedFile {
  ref: FileRef;
  /** Writes the file's records in the caller's transaction or batch: the file exists once that commits. */
  record(w: Writer): void;
  /** Deletes the bytes when the caller did not commit the records (a duplicate, a failure). */
  discard(): Promise<void>;
}

export interface Files {
  /** Stores a file; `lifetimeMs` makes its link expire (generated files: ZIPs, exports). */
  save(businessId: string, file: { fileName: string; contentType: string; bytes: Buffer; lifetimeMs?: number }): Promise<FileRef>;
  /**
   * Stores the bytes; the records are written by the caller in the transaction that makes the document pointing at
   * the file (one commit instead of two: issue 23). Until then the file has no record and no working link.
   */
  stage(businessId: string, file: { fileName: string; contentType: string; bytes: Buffer }): Promise<StagedFile>;
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
  /** Stores a file written as a stream (a ZIP), counting its size on the way; `lifetimeMs` makes its link expire. */
  saveStream(businessId: string, file: { fileName: string; contentType: string; lifetimeMs?: number }, source: Readable): Promise<FileRef>;
  /** A link whose lifetime has passed: what it was, and since when it is expired; null for any other token. */
  expiredLink(token: string): Promise<{ fileName: string; expiredAt: string } | null>;
  /** Deletes the files whose lifetime has passed (bytes and record), keeping their links as "expired"; returns how many. */
  purgeExpired(): Promise<number>;
  /**
   * Deletes bytes no file record claims (a crash between the bytes and their record, a ZIP cut off mid-stream) last
   * written more than `minAgeMs` ago (wall clock, as the bytes' own times); where the store can list them.
   */
  sweepOrphans(minAgeMs?: number): Promise<{ files: number; bytes: number }>;
}

export function createFiles(store: DocStore, blobs: FileStore, filesUrl: string, ids: IdSource, now: () => number): Files {
  const url = (r: FileRecord) => `${filesUrl}/${r.token}/${encodeURIComponent(r.fileName)}`;
  const toRef = (r: FileRecord): FileRef => ({
    fileId: r.fileId,
    fileName: r.fileName,
    contentType: r.contentType,
    size: r.size,
    url: url(r),
    ...(r.validUntilMs !== undefined ? { expiresAt: new Date(r.validUntilMs).toISOString() } : {}),
  });
  const expired = (l: LinkRecord) => l.validUntilMs !== undefined && l.validUntilMs <= now();
  /** The file of an expired link goes (bytes, then record); the link stays, saying what it was, until TTL removes it. */
  const purge = async (linkDocPath: string, l: LinkRecord) => {
    const doc = await store.get(filePath(l.businessId, l.fileId));
    await blobs.delete(`${l.businessId}/${l.fileId}`);
    const batch = store.batch();
    if (doc) batch.delete(doc.path);
    batch.update(linkDocPath, { purgeAtMs: DELETE_FIELD, ...(doc ? { fileName: String(doc.data.fileName) } : {}) });
    await batch.commit();
  };
  /** A generated file's lifetime, on its record and its link: valid until, then purged, then the link itself goes. */
  const withLifetime = (record: FileRecord, link: LinkRecord, at: number, lifetimeMs: number | undefined) => {
    if (lifetimeMs === undefined) return;
    record.validUntilMs = link.validUntilMs = link.purgeAtMs = at + lifetimeMs;
    link.expireAtMs = at + lifetimeMs + EXPIRED_LINK_KEPT_MS;
    link.expireAt = new Date(link.expireAtMs).toISOString();
  };
  const stage = async (businessId: string, file: { fileName: string; contentType: string; bytes: Buffer; lifetimeMs?: number }): Promise<StagedFile> => {
    const at = now();
    const record: FileRecord = {
      fileId: ids(),
      // Every upload path goes through here: the stored name is always a safe one.
      fileName: sanitizeFileName(file.fileName),
      contentType: file.contentType,
      size: file.bytes.length,
      token: newSecret(),
      createdAt: new Date(at).toISOString(),
    };
    const link: LinkRecord = { businessId, fileId: record.fileId };
    withLifetime(record, link, at, file.lifetimeMs);
    // Bytes first: a record never points at missing bytes.
    await blobs.put(`${businessId}/${record.fileId}`, file.bytes, file.contentType);
    return {
      ref: toRef(record),
      record(w) {
        w.set(filePath(businessId, record.fileId), { ...record });
        w.set(linkPath(record.token), { ...link });
      },
      discard: () => blobs.delete(`${businessId}/${record.fileId}`),
    };
  };
  return {
    stage,
    async save(businessId, file) {
      const staged = await stage(businessId, file);
      const batch = store.batch();
      staged.record(batch);
      await batch.commit();
      return staged.ref;
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
      return blobs.get(`${businessId}/${fileId}`);
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
      const at = now();
      const record: FileRecord = { fileId, fileName: sanitizeFileName(file.fileName), contentType: file.contentType, size, token: newSecret(), createdAt: new Date(at).toISOString() };
      const link: LinkRecord = { businessId, fileId };
      withLifetime(record, link, at, file.lifetimeMs);
      const batch = store.batch();
      batch.set(filePath(businessId, fileId), { ...record });
      batch.set(linkPath(record.token), { ...link });
      await batch.commit();
      return toRef(record);
    },
    async expiredLink(token) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const link = (await store.get(linkPath(token)))?.data as unknown as LinkRecord | undefined;
      if (!link || !expired(link)) return null;
      const name = link.fileName ?? ((await store.get(filePath(link.businessId, link.fileId)))?.data.fileName as string | undefined) ?? 'file';
      return { fileName: name, expiredAt: new Date(link.validUntilMs!).toISOString() };
    },
    async purgeExpired() {
      let n = 0;
      for (;;) {
        const due = await store.query({ collection: 'fileLinks', where: [['purgeAtMs', '<=', now()]], orderBy: [['purgeAtMs', 'asc']], limit: 100 });
        for (const d of due) await purge(d.path, d.data as unknown as LinkRecord);
        n += due.length;
        if (due.length < 100) return n;
      }
    },
    async sweepOrphans(minAgeMs = ORPHAN_MIN_AGE_MS) {
      if (!blobs.sweepOrphans) return { files: 0, bytes: 0 };
      return blobs.sweepOrphans(Date.now() - minAgeMs, async (key) => {
        const [businessId, fileId, ...rest] = key.split('/');
        // Only `<businessId>/<fileId>` is ours to judge; anything else stays.
        if (!businessId || !fileId || rest.length) return true;
        return (await store.get(filePath(businessId, fileId))) !== null;
      });
    },
    async openStream(token) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const link = await store.get(linkPath(token));
      if (!link) return null;
      const l = link.data as unknown as LinkRecord;
      if (expired(l)) {
        // Opened before the sweep came by: the file goes now.
        if (l.purgeAtMs !== undefined) await purge(link.path, l);
        return null;
      }
      const { businessId, fileId } = l;
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
      if (!link || expired(link.data as unknown as LinkRecord)) return null;
      const { businessId, fileId } = link.data as unknown as LinkRecord;
      const doc = await store.get(filePath(businessId, fileId));
      const blob = await blobs.get(`${businessId}/${fileId}`);
      if (!doc || !blob) return null;
      const record = doc.data as unknown as FileRecord;
      return { fileName: record.fileName, contentType: record.contentType, bytes: blob };
    },
  };
}
