import type { HttpRequest, HttpResponse } from './types.ts';

/**
 * Browser access (CORS) for the dashboard: only the configured origins get CORS headers, on the API
 * bases and /mcp. Credentials are never allowed (the key travels in Authorization, not in cookies),
 * so a page on another origin cannot ride a user's session. Other origins get no CORS headers at all.
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Mcp-Protocol-Version, X-Business-Id';
const EXPOSE_HEADERS = 'X-Request-Id, X-Doc-Reads, X-Doc-Writes, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed';

export function corsFor(allowed: ReadonlySet<string>, bases: readonly string[]) {
  const covered = (path: string) => path === '/mcp' || bases.some((b) => path === b || path.startsWith(b + '/'));
  const originOf = (req: HttpRequest) => {
    const o = req.headers.origin?.replace(/\/+$/, '');
    return o && allowed.has(o) && covered(req.path) ? o : null;
  };
  return {
    /** A preflight for an allowed origin: 204 with what may be sent; for others 204 without CORS headers. */
    preflight(req: HttpRequest): HttpResponse | null {
      if (req.method !== 'OPTIONS' || !covered(req.path)) return null;
      const origin = originOf(req);
      const headers: Record<string, string> = { vary: 'Origin' };
      if (origin) {
        Object.assign(headers, {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': '600',
        });
      }
      return { status: 204, headers, body: '' };
    },
    /** Adds the CORS headers of an allowed origin to an answer. */
    decorate(req: HttpRequest, res: HttpResponse): void {
      const origin = originOf(req);
      if (!origin) return;
      res.headers['access-control-allow-origin'] = origin;
      res.headers['access-control-expose-headers'] = EXPOSE_HEADERS;
      res.headers.vary = res.headers.vary ? `${res.headers.vary}, Origin` : 'Origin';
    },
  };
}
