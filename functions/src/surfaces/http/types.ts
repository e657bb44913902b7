import type { Readable } from 'node:stream';

/** The largest legal request is a 10 MB signup form in base64 (~13.4 MiB) plus fields; every surface uses this bound. */
export const MAX_BODY_BYTES = 14 * 1024 * 1024;
/** The supplier pages take phone photos (often 8-20 MB); they are shrunk before they are stored. */
export const MAX_PAGE_BODY_BYTES = 24 * 1024 * 1024;

/** Paths whose callers bring a key (the API and MCP): a large body there waits until the key is checked. */
export const isKeyedPath = (path: string): boolean =>
  path.startsWith('/v1/') || path.startsWith('/api/v1/') || path === '/mcp' || path.startsWith('/mcp/');

/** The framework-free HTTP shapes: node:http and the Cloud Function both adapt to these. */
export interface HttpRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/whoami`. */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** Undefined when the request carried no body at all (no Content-Length, no chunked encoding), or it is still unread (readBody). */
  body: Buffer | undefined;
  /**
   * Set when the body is left unread until the caller is known (a large or chunked body on the API or MCP): reads it,
   * up to MAX_BODY_BYTES ('too-large' beyond). A wrong key is refused without a byte of it read.
   */
  readBody?: () => Promise<Buffer | 'too-large'>;
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
