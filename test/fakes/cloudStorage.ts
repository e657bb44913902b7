import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

/**
 * A fake of the Cloud Storage JSON API (objects only, one bucket, in memory), for @google-cloud/storage
 * pointed at it with STORAGE_EMULATOR_HOST=`fake.host` (scheme included; read when the Storage client is built).
 * With that variable the SDK drops the /storage/v1 prefix from metadata calls, as for the Firebase emulator,
 * so both forms are served:
 *   POST   /upload/storage/v1/b/{bucket}/o?uploadType=multipart&name=…   multipart/related: JSON metadata, then media
 *   GET    [/storage/v1|/download/storage/v1]/b/{bucket}/o/{object}?alt=media
 *   GET    [/storage/v1]/b/{bucket}/o/{object}                              object resource
 *   DELETE [/storage/v1]/b/{bucket}/o/{object}                              204
 * Errors use the API's JSON body {error: {code, message, errors: [{message, domain, reason}]}}.
 */
export interface FakeGcsObject {
  name: string;
  bytes: Buffer;
  /** The object resource as the API returns it. */
  resource: Record<string, unknown>;
}

export interface FakeGcsRequest {
  method: string;
  /** Path as sent (object names still percent-encoded). */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  op: 'insert' | 'media' | 'get' | 'delete' | 'unknown';
  bucket?: string;
  object?: string;
  status: number;
  /** For inserts: the parts of the multipart body. */
  parts?: { contentType: string; body: Buffer }[];
}

export interface FakeCloudStorage {
  /** e.g. http://127.0.0.1:1234: the value for STORAGE_EMULATOR_HOST. */
  host: string;
  bucket: string;
  /** By object name. */
  objects: Map<string, FakeGcsObject>;
  requests: FakeGcsRequest[];
  close(): Promise<void>;
}

const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32C, base64 of the big-endian 4 bytes, as the API's crc32c field and x-goog-hash carry it. */
export function crc32cBase64(buf: Buffer): string {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC32C_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out.toString('base64');
}

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** Splits a multipart/related body; null when malformed. */
function parseMultipart(body: Buffer, boundary: string): { contentType: string; body: Buffer }[] | null {
  const delim = Buffer.from(`--${boundary}`);
  if (body.indexOf(delim) !== 0) return null;
  const parts: { contentType: string; body: Buffer }[] = [];
  let at = delim.length;
  for (;;) {
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    if (body.subarray(at, at + 2).toString() !== '\r\n') return null;
    const headEnd = body.indexOf('\r\n\r\n', at + 2);
    if (headEnd < 0) return null;
    const headers = body.subarray(at + 2, headEnd).toString('latin1');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headEnd + 4);
    if (next < 0) return null;
    const contentType = /^content-type:\s*(.+)$/im.exec(headers)?.[1].trim() ?? '';
    parts.push({ contentType, body: body.subarray(headEnd + 4, next) });
    at = next + 2 + delim.length;
  }
}

export async function startFakeCloudStorage(opts: { bucket: string }): Promise<FakeCloudStorage> {
  const fake: FakeCloudStorage = { host: '', bucket: opts.bucket, objects: new Map(), requests: [], close: async () => {} };
  let generation = Date.now() * 1000;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, reason: string, message: string) =>
    json(res, status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } });

  const server = createServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(url.searchParams);
    const rec: FakeGcsRequest = { method: req.method ?? '', path: url.pathname, query, headers: req.headers, op: 'unknown', status: 0 };
    fake.requests.push(rec);
    res.on('finish', () => (rec.status = res.statusCode));

    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    const obj = /^(\/storage\/v1|\/download\/storage\/v1)?\/b\/([^/]+)\/o\/([^/]+)$/.exec(url.pathname);
    if (upload && req.method === 'POST') rec.op = 'insert';
    else if (obj && req.method === 'GET') rec.op = query.alt === 'media' ? 'media' : obj[1]?.startsWith('/download') ? 'unknown' : 'get';
    else if (obj && req.method === 'DELETE' && !obj[1]?.startsWith('/download')) rec.op = 'delete';
    if (rec.op === 'unknown') return error(res, 404, 'notFound', `Not Found: ${req.method} ${url.pathname}`);

    rec.bucket = decodeURIComponent((upload ?? obj)![upload ? 1 : 2]);
    if (rec.bucket !== fake.bucket) return error(res, 404, 'notFound', 'The specified bucket does not exist.');

    if (rec.op === 'insert') {
      if (query.uploadType !== 'multipart') return error(res, 400, 'invalid', `fake: unsupported uploadType ${query.uploadType}`);
      const boundary = /^multipart\/related;\s*boundary="?([^";]+)"?/i.exec(req.headers['content-type'] ?? '')?.[1];
      if (!boundary) return error(res, 400, 'invalid', 'Content-Type must be multipart/related with a boundary.');
      const parts = parseMultipart(body, boundary);
      rec.parts = parts ?? undefined;
      if (!parts || parts.length !== 2) return error(res, 400, 'invalid', 'Invalid multipart request: expected metadata and media parts.');
      if (!/^application\/json/i.test(parts[0].contentType)) return error(res, 400, 'invalid', 'The first part must be application/json metadata.');
      let meta: Record<string, unknown>;
      try {
        meta = JSON.parse(parts[0].body.toString('utf8'));
      } catch {
        return error(res, 400, 'parseError', 'Parse Error');
      }
      const name = query.name ?? (meta.name as string | undefined);
      if (!name) return error(res, 400, 'required', 'Required');
      rec.object = name;
      const bytes = Buffer.from(parts[1].body);
      const gen = String(++generation);
      const now = new Date().toISOString();
      const enc = encodeURIComponent(name);
      const md5Hash = createHash('md5').update(bytes).digest('base64');
      const resource: Record<string, unknown> = {
        kind: 'storage#object',
        id: `${fake.bucket}/${name}/${gen}`,
        selfLink: `${fake.host}/storage/v1/b/${fake.bucket}/o/${enc}`,
        mediaLink: `${fake.host}/download/storage/v1/b/${fake.bucket}/o/${enc}?generation=${gen}&alt=media`,
        name,
        bucket: fake.bucket,
        generation: gen,
        metageneration: '1',
        contentType: (meta.contentType as string | undefined) ?? (parts[1].contentType || 'application/octet-stream'),
        storageClass: 'STANDARD',
        size: String(bytes.length),
        md5Hash,
        crc32c: crc32cBase64(bytes),
        etag: `C${gen.slice(-8)}EAE=`,
        timeCreated: now,
        updated: now,
        timeStorageClassUpdated: now,
      };
      for (const k of ['cacheControl', 'contentDisposition', 'contentEncoding', 'contentLanguage', 'metadata']) {
        if (meta[k] !== undefined) resource[k] = meta[k];
      }
      fake.objects.set(name, { name, bytes, resource });
      return json(res, 200, resource);
    }

    rec.object = decodeURIComponent(obj![3]);
    const stored = fake.objects.get(rec.object);
    if (!stored || (query.generation !== undefined && query.generation !== stored.resource.generation)) {
      return error(res, 404, 'notFound', `No such object: ${fake.bucket}/${rec.object}`);
    }
    const r = stored.resource;
    if (rec.op === 'get') return json(res, 200, r);
    if (rec.op === 'delete') {
      fake.objects.delete(rec.object);
      res.writeHead(204).end();
      return;
    }
    const headers: Record<string, string> = {
      'content-type': r.contentType as string,
      'content-length': String(stored.bytes.length),
      'x-goog-hash': `crc32c=${r.crc32c},md5=${r.md5Hash}`,
      'x-goog-generation': r.generation as string,
      'x-goog-metageneration': r.metageneration as string,
      'x-goog-stored-content-encoding': (r.contentEncoding as string | undefined) ?? 'identity',
      'x-goog-stored-content-length': String(stored.bytes.length),
      'x-goog-storage-class': 'STANDARD',
      etag: r.etag as string,
      'last-modified': new Date(r.updated as string).toUTCString(),
    };
    if (r.cacheControl) headers['cache-control'] = r.cacheControl as string;
    res.writeHead(200, headers);
    res.end(stored.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
