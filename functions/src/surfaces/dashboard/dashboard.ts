import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The owner's dashboard as `npm start` serves it (Firebase Hosting serves the same build in production):
 * the Vite build in memory, hashed assets cached for a year, every other path that is not the API's
 * answered with index.html so deep links (`/payments/<id>`) open the app.
 */
interface Asset {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** Paths the service itself answers; the dashboard never shadows them (and /__/ is Hosting's reserved space). */
// `/.well-known`: MCP clients probe OAuth metadata there after a 401, and must get JSON (a 404), not the app's HTML.
export const SERVICE_PREFIXES = ['/v1', '/api/v1', '/mcp', '/files', '/p', '/oauth', '/.well-known'];

export const isServicePath = (path: string, prefixes: string[]) => prefixes.some((p) => path === p || path.startsWith(p + '/'));

const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));

/** Reads a build folder once; a map lookup by URL path has no way out of the folder. */
export function loadAssets(distDir: string): Map<string, Asset> | null {
  if (!existsSync(join(distDir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  for (const file of walk(distDir)) {
    const rel = '/' + relative(distDir, file).split(sep).join('/');
    const ext = rel.slice(rel.lastIndexOf('.'));
    const body = readFileSync(file);
    const type = TYPES[ext] ?? 'application/octet-stream';
    const compressible = /^(text\/|application\/(json|manifest)|image\/svg)/.test(type) && body.length > 1024;
    assets.set(rel, { body, gzip: compressible ? gzipSync(body, { level: 9 }) : null, type, immutable: rel.startsWith('/assets/') });
  }
  return assets;
}

/** The newest modification time under the dashboard's sources (what a build depends on). */
export function newestSource(dashboardDir: string): number {
  const entries = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((e) => join(dashboardDir, e)).filter((p) => existsSync(p));
  let newest = 0;
  for (const e of entries) for (const f of statSync(e).isDirectory() ? walk(e) : [e]) newest = Math.max(newest, statSync(f).mtimeMs);
  return newest;
}

/** Missing or older than its sources. */
export function buildIsStale(dashboardDir: string): boolean {
  const index = join(dashboardDir, 'dist', 'index.html');
  return !existsSync(index) || statSync(index).mtimeMs < newestSource(dashboardDir);
}

export interface DashboardServing {
  /** The build, once ready (null: none could be made; the API still runs). */
  assets: () => Promise<Map<string, Asset> | null>;
  /** Content-Security-Policy of the app's pages. */
  csp: string;
  /** What `/__/firebase/init.json` answers (Firebase Hosting serves the project's web config there). */
  firebaseInit: Record<string, unknown>;
  /** Paths left to the service (the API, MCP, files, supplier pages, OAuth returns). */
  servicePrefixes: string[];
}

const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' };

/** Wraps the service's listener: GET and HEAD outside the service's paths are the dashboard's. */
export function withDashboard(inner: (req: IncomingMessage, res: ServerResponse) => unknown, d: DashboardServing) {
  // Not async itself: the service's requests (every API call) pass straight through, without a promise of ours.
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return inner(req, res);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (isServicePath(path, d.servicePrefixes) || path === '/favicon.ico') return inner(req, res);
    return serveDashboard(req, res, path, d);
  };
}

async function serveDashboard(req: IncomingMessage, res: ServerResponse, path: string, d: DashboardServing): Promise<void> {
  if (path === '/__/firebase/init.json') {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(d.firebaseInit));
    return;
  }
  const assets = await d.assets();
  if (!assets) {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '10' });
    res.end('The dashboard has no build: run `npm run -w dashboard build`, then reload. The API is at /v1.');
    return;
  }
  let asset = assets.get(path);
  // A missing hashed asset is a real 404 (an old page asking for a replaced chunk), not the app.
  if (!asset && path.startsWith('/assets/')) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
    res.end('not found');
    return;
  }
  const isPage = !asset || path === '/index.html';
  asset ??= assets.get('/index.html')!;
  const gz = asset.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) ? asset.gzip : null;
  const body = gz ?? asset.body;
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': String(body.length),
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'accept-encoding',
    ...(gz ? { 'content-encoding': 'gzip' } : {}),
    ...(isPage ? { 'content-security-policy': d.csp, 'x-frame-options': 'DENY' } : {}),
    ...SECURITY_HEADERS,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The pages' CSP: scripts and styles from the app itself (Mantine sets CSS variables in a style element, hence
 * 'unsafe-inline' for styles only), the API on this origin, and Firebase Auth's endpoints (the emulator locally).
 */
export function dashboardCsp(authOrigins: string[], frameOrigins: string[] = [], scriptOrigins: string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self'${scriptOrigins.map((o) => ' ' + o).join('')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${authOrigins.map((o) => ' ' + o).join('')}`,
    `frame-src 'self'${frameOrigins.map((o) => ' ' + o).join('')}`,
    "object-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
