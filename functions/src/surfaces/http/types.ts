import type { Readable } from 'node:stream';

/** The largest legal request is a 10 MB signup form in base64 (~13.4 MiB) plus fields; every surface uses this bound. */
export const MAX_BODY_BYTES = 14 * 1024 * 1024;
/** The supplier pages take phone photos (often 8-20 MB); they are shrunk before they are stored. */
export const MAX_PAGE_BODY_BYTES = 24 * 1024 * 1024;

/** The framework-free HTTP shapes: node:http and the Cloud Function both adapt to these. */
export interface HttpRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/whoami`. */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** Undefined when the request carried no body at all (no Content-Length, no chunked encoding). */
  body: Buffer | undefined;
  /** The peer's address (the last proxy's, behind one). */
  remoteAddress?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** A stream for large downloads: its content-length header must be set by whoever makes it. */
  body: string | Buffer | Readable;
}

export type HttpHandler = (req: HttpRequest) => Promise<HttpResponse>;
