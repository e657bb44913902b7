import { timingSafeEqual } from 'node:crypto';
import { ApiError, invalid, notFound } from './errors.ts';
import { iso } from './clock.ts';
import { newSecret, sha256 } from './ids.ts';
import { sniffFileType } from './fileTypes.ts';
import type { Ctx, Services } from './context.ts';
import { DELETE_FIELD, type Transaction } from '../ports/store.ts';
import type { StagedFile } from './files.ts';

/**
 * Uploads by URL (issue 18 C9): a tool call cannot carry a 3 MB scan well (4 million characters of
 * base64), so createUploadUrl hands out a short-lived, single-use capability URL to PUT the bytes to.
 * The PUT checks the size and the type against what the upload was made for and stores the file; the
 * operation that takes `fileId` instead of `dataBase64` then reads it, and the upload is used up.
 */

/** How long the URL takes a PUT. */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;
/** How long a stored upload waits for the operation that uses it. */
export const UPLOAD_KEEP_MS = 24 * 3_600_000;
/**
 * How long a PUT holds the URL while it stores the bytes (already read: a save and a commit). A `receiving` record
 * older than this was left by a process that died mid-PUT, and the URL takes a PUT again.
 */
export const RECEIVE_LEASE_MS = 60_000;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export interface UploadRecord {
  uploadId: string;
  businessId: string;
  userId: string;
  /** What the file is for: the operation field that may take it. */
  purpose: string;
  fileName: string;
  maxBytes: number;
  types: string[];
  tokenHash: string;
  /** `used`: an operation took the file; the record stays until it expires, so a reuse is told so. */
  state: 'waiting' | 'receiving' | 'stored' | 'used';
  /** While receiving: until then the PUT holds the URL (absent in records made before: taken as lapsed). */
  receivingUntilMs?: number;
  /** The stored file, once the PUT arrived. */
  fileId: string | null;
  contentType: string | null;
  size: number | null;
  createdAt: string;
  /** Until then the URL takes a PUT (waiting), or the stored file can be used (stored). */
  usableUntilMs: number;
}

const uploadPath = (uploadId: string) => `uploads/${uploadId}`;
const UPLOAD_ID = /^upl_[A-Za-z0-9_-]{1,64}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new upload URL for this caller's business; also forgets the business's expired uploads. */
export async function createUpload(
  ctx: Ctx,
  spec: { purpose: string; fileName: string; maxBytes: number; types: readonly string[] },
): Promise<{ fileId: string; uploadUrl: string; expiresAt: string }> {
  const { businessId, userId } = ctx.caller;
  const now = ctx.clock.now();
  await forgetExpired(ctx, businessId, now);
  const uploadId = `upl_${ctx.ids()}`;
  const token = newSecret();
  const record: UploadRecord = {
    uploadId,
    businessId,
    userId,
    purpose: spec.purpose,
    fileName: spec.fileName,
    maxBytes: spec.maxBytes,
    types: [...spec.types],
    tokenHash: sha256(token),
    state: 'waiting',
    fileId: null,
    contentType: null,
    size: null,
    createdAt: iso(now),
    usableUntilMs: now + UPLOAD_URL_TTL_MS,
  };
  await ctx.store.set(uploadPath(uploadId), { ...record });
  return { fileId: uploadId, uploadUrl: `${ctx.config.uploadsUrl}/${uploadId}/${token}`, expiresAt: iso(record.usableUntilMs) };
}

/** Expired uploads of one business: their stored files and records go (bounded per call). */
async function forgetExpired(ctx: Ctx, businessId: string, now: number): Promise<void> {
  const expired = await ctx.store.query({ collection: 'uploads', where: [['businessId', '==', businessId], ['usableUntilMs', '<=', now]], orderBy: [['usableUntilMs', 'asc']], limit: 20 });
  for (const d of expired) {
    const r = d.data as unknown as UploadRecord;
    if (r.fileId) await ctx.files.remove(businessId, r.fileId).catch(() => {});
    await ctx.store.delete(d.path);
  }
}

/** What the bytes are, among the types an upload may take (PDF, images by signature; DOCX as a ZIP). */
function typeOf(bytes: Buffer, allowed: readonly string[]): string | null {
  const sniffed = sniffFileType(bytes);
  if (sniffed) return sniffed;
  if (allowed.includes(DOCX) && bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return DOCX;
  return null;
}

/**
 * The PUT of an upload URL: the one request that may fill it. Refused (nothing stored) when the URL is
 * unknown, used or expired, or when the bytes are empty, too large or of a type the upload does not take.
 */
export async function receiveUpload(services: Services, uploadId: string, token: string, bytes: Buffer, declaredType: string | undefined) {
  if (!UPLOAD_ID.test(uploadId) || !TOKEN.test(token)) throw notFound('upload URL', 'upload');
  const path = uploadPath(uploadId);
  const now = services.clock.now();
  // Claimed in a transaction first: two PUTs racing on one URL store one file.
  const record = await services.store.runTransaction(async (tx) => {
    const doc = await tx.get(path);
    const r = doc?.data as unknown as UploadRecord | undefined;
    if (!r || !timingSafeEqual(Buffer.from(r.tokenHash), Buffer.from(sha256(token)))) throw notFound('upload URL', 'upload');
    if (r.state === 'stored' || r.state === 'used') throw new ApiError('failed-precondition', 'this upload URL was already used; create another with createUploadUrl', { reason: 'uploadUsed' });
    if (r.usableUntilMs <= now) throw new ApiError('failed-precondition', 'this upload URL expired; create another with createUploadUrl', { reason: 'uploadExpired' });
    // A PUT in progress holds the URL; one whose process died lets it go when its lease lapses.
    if (r.state === 'receiving' && (r.receivingUntilMs ?? 0) > now) {
      throw new ApiError('aborted', `another PUT to this upload URL is being stored; if it fails, retry after ${iso(r.receivingUntilMs!)}`, { reason: 'conflictRetry' });
    }
    tx.update(path, { state: 'receiving', receivingUntilMs: now + RECEIVE_LEASE_MS });
    return r;
  });
  let staged: StagedFile | null = null;
  try {
    if (!bytes.length) throw invalid('body', 'the file is empty', { reason: 'fileEmpty' });
    if (bytes.length > record.maxBytes) throw invalid('body', `the file is ${bytes.length} bytes; this upload takes at most ${record.maxBytes}`, { reason: 'fileTooLarge', params: { maxMb: Math.ceil(record.maxBytes / (1024 * 1024)) } });
    const actual = typeOf(bytes, record.types);
    if (!actual || !record.types.includes(actual)) throw invalid('body', `the bytes are ${actual ?? 'of an unknown type'}; this upload takes ${record.types.join(', ')}`, { reason: 'fileTypeNotAccepted', params: { types: [...record.types] } });
    const declared = declaredType?.split(';')[0].trim().toLowerCase();
    if (declared && declared !== 'application/octet-stream' && declared !== actual) throw invalid('content-type', `${declared} declared, but the bytes are ${actual}`, { reason: 'fileContentMismatch' });
    // The file's records and the upload's new state commit together: a crash leaves either no file record
    // (bytes alone, which the orphan sweep removes) or a stored upload, never a file no upload points at.
    const file = (staged = await services.files.stage(record.businessId, { fileName: record.fileName, contentType: actual, bytes }));
    await services.store.runTransaction(async (tx) => {
      const cur = (await tx.get(path))?.data as unknown as UploadRecord | undefined;
      if (cur?.state !== 'receiving') throw new ApiError('failed-precondition', 'this upload URL was already used; create another with createUploadUrl', { reason: 'uploadUsed' });
      file.record(tx);
      tx.update(path, { state: 'stored', receivingUntilMs: DELETE_FIELD, fileId: file.ref.fileId, contentType: actual, size: bytes.length, usableUntilMs: now + UPLOAD_KEEP_MS });
    });
    return { fileId: uploadId, fileName: record.fileName, contentType: actual, size: bytes.length, expiresAt: iso(now + UPLOAD_KEEP_MS) };
  } catch (e) {
    if (staged) await staged.discard().catch(() => {});
    // A refused PUT leaves the URL usable for a corrected one.
    await services.store
      .runTransaction(async (tx) => {
        const cur = (await tx.get(path))?.data as unknown as UploadRecord | undefined;
        if (cur?.state === 'receiving') tx.update(path, { state: 'waiting', receivingUntilMs: DELETE_FIELD });
      })
      .catch(() => {});
    throw e;
  }
}

/**
 * The file of an upload, for the operation field that takes `fileId` instead of `dataBase64`: in the
 * shape the operations already check (their own rules apply on top of the PUT's).
 */
export async function takeUpload(ctx: Ctx, fileId: string, field: string, purpose: string): Promise<{ fileName: string; mimeType: string; dataBase64: string }> {
  const doc = UPLOAD_ID.test(fileId) ? await ctx.store.get(uploadPath(fileId)) : null;
  const r = doc?.data as unknown as UploadRecord | undefined;
  if (!r || r.businessId !== ctx.caller.businessId) throw notFound(`${field}: upload ${fileId}`, 'upload');
  if (r.purpose !== purpose) throw invalid(field, `upload ${fileId} was made for ${r.purpose}, not ${purpose}`, { reason: 'uploadWrongPurpose' });
  if (r.state === 'used') throw usedUp(field, fileId);
  // A PUT whose lease lapsed died: nothing was stored, as the next check says.
  if (r.state === 'receiving' && (r.receivingUntilMs ?? 0) > ctx.clock.now()) throw new ApiError('failed-precondition', `${field}: the PUT to the upload URL of ${fileId} is still being stored; retry in a moment`, { reason: 'uploadNotDone' });
  if (r.state !== 'stored' || !r.fileId) throw new ApiError('failed-precondition', `${field}: nothing was PUT to the upload URL of ${fileId} yet`, { reason: 'uploadNotDone' });
  if (r.usableUntilMs <= ctx.clock.now()) throw new ApiError('failed-precondition', `${field}: upload ${fileId} expired; upload again`, { reason: 'uploadExpired' });
  const bytes = await ctx.files.read(r.businessId, r.fileId);
  if (!bytes) throw new ApiError('failed-precondition', `${field}: the file of upload ${fileId} is no longer stored`, { reason: 'fileNoLongerStored' });
  return { fileName: r.fileName, mimeType: r.contentType ?? '', dataBase64: bytes.toString('base64') };
}

const usedUp = (field: string, fileId: string) => new ApiError('failed-precondition', `${field}: upload ${fileId} was already used; create another with createUploadUrl`, { reason: 'uploadUsed' });

/** A claim on a stored upload, taken in the transaction that keeps the operation's copy of it. */
export interface UploadClaim {
  /** Writes the claim (the upload's record goes); call after the transaction's reads. */
  take(): void;
  /** After the commit: removes the upload's own file (the operation kept a copy). */
  dropFile(): Promise<void>;
}

/**
 * Reads the upload in `tx` for the operation that uses it up: of two calls racing on one upload, exactly one commits
 * (the other's transaction sees it gone and is refused with `failed-precondition`).
 */
export async function claimUpload(tx: Transaction, ctx: Ctx, fileId: string, field: string): Promise<UploadClaim> {
  const path = uploadPath(fileId);
  const r = (await tx.get(path))?.data as unknown as UploadRecord | undefined;
  if (!r || r.businessId !== ctx.caller.businessId || r.state !== 'stored' || !r.fileId) throw usedUp(field, fileId);
  const stored = r.fileId;
  return {
    take: () => tx.update(path, { state: 'used', fileId: null }),
    dropFile: () =>
      ctx.files.remove(r.businessId, stored).catch((e) => ctx.logger.warn('could not remove a used upload', { fileId, error: String(e) })),
  };
}

/** After the operation kept its own copy: the upload is used up (its file goes; its record says so until it expires). */
export async function finishUpload(ctx: Ctx, fileId: string): Promise<void> {
  const doc = await ctx.store.get(uploadPath(fileId));
  const r = doc?.data as unknown as UploadRecord | undefined;
  if (!r || r.businessId !== ctx.caller.businessId) return;
  try {
    if (r.fileId) await ctx.files.remove(r.businessId, r.fileId);
    await ctx.store.update(uploadPath(fileId), { state: 'used', fileId: null });
  } catch (e) {
    ctx.logger.warn('could not remove a used upload', { fileId, error: String(e) });
  }
}

/**
 * A file field that takes either the file inline (fileName, mimeType, dataBase64) or `fileId` from createUploadUrl,
 * resolved to the inline shape. `prefix` names the fields in refusals (`proof.` for markPaid's proof).
 */
export async function inlineOrUploaded(
  ctx: Ctx,
  given: { fileName?: string; mimeType?: string; dataBase64?: string; fileId?: string },
  purpose: string,
  prefix = '',
): Promise<{ fileName: string; mimeType: string; dataBase64: string }> {
  if (given.fileId) {
    if (given.dataBase64 !== undefined) throw invalid(`${prefix}fileId`, 'send fileId or dataBase64, not both', { reason: 'notBoth', params: { other: 'dataBase64' } });
    const up = await takeUpload(ctx, given.fileId, `${prefix}fileId`, purpose);
    return { ...up, fileName: given.fileName ?? up.fileName };
  }
  if (given.dataBase64 === undefined) throw invalid(`${prefix}dataBase64`, 'is required (or fileId from createUploadUrl)', { reason: 'required' });
  if (given.fileName === undefined) throw invalid(`${prefix}fileName`, 'is required with dataBase64', { reason: 'requiredWith', params: { other: 'dataBase64' } });
  if (given.mimeType === undefined) throw invalid(`${prefix}mimeType`, 'is required with dataBase64', { reason: 'requiredWith', params: { other: 'dataBase64' } });
  return { fileName: given.fileName, mimeType: given.mimeType, dataBase64: given.dataBase64 };
}
