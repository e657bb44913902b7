import { firebaseAppOptions } from '../../core/firebaseApp.ts';
import type { Storage } from 'firebase-admin/storage';
import type { FileStore } from '../../ports/files.ts';
import { pipeline } from 'node:stream/promises';

/** Objects live under this prefix, so the service can share a bucket (e.g. the project's default one). */
const PREFIX = 'files/';

type Bucket = ReturnType<Storage['bucket']>;

const notFound = (e: unknown) => (e as { code?: unknown })?.code === 404;

/**
 * Files in Cloud Storage through firebase-admin (loaded on first use).
 * An empty bucket name means the project's default bucket (FIREBASE_CONFIG.storageBucket).
 */
export function cloudStorageFiles(bucketName: string): FileStore {
  let bucket: Promise<Bucket> | undefined;
  const getBucket = () => {
    bucket ??= (async () => {
      const [{ getApps, initializeApp }, { getStorage }] = await Promise.all([import('firebase-admin/app'), import('firebase-admin/storage')]);
      if (!getApps().length) initializeApp(firebaseAppOptions());
      return bucketName ? getStorage().bucket(bucketName) : getStorage().bucket();
    })();
    bucket.catch(() => (bucket = undefined));
    return bucket;
  };
  const object = async (fileId: string) => {
    if (!fileId) throw new Error(`bad file id ${fileId}`);
    return (await getBucket()).file(PREFIX + fileId);
  };
  return {
    async put(fileId, bytes, contentType) {
      const file = await object(fileId);
      // Files are at most a few MB: one request beats a resumable session. Links are capabilities, so no caching.
      await file.save(bytes, { resumable: false, contentType, metadata: { cacheControl: 'private, no-store' } });
    },
    async get(fileId) {
      const file = await object(fileId);
      try {
        // One request: the content type is in the file's record, not read back from the object.
        const [bytes] = await file.download();
        return bytes;
      } catch (e) {
        if (notFound(e)) return null;
        throw e;
      }
    },
    async delete(fileId) {
      const file = await object(fileId);
      await file.delete({ ignoreNotFound: true });
    },
    async readStream(fileId) {
      const file = await object(fileId);
      const [exists] = await file.exists();
      return exists ? file.createReadStream() : null;
    },
    async putStream(fileId, source, contentType) {
      const file = await object(fileId);
      // Streamed in one request (the SDK sends the body as it comes): large ZIPs are never whole in memory.
      await pipeline(source, file.createWriteStream({ resumable: false, contentType, metadata: { cacheControl: 'private, no-store' } }));
    },
  };
}
