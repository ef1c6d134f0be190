import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AppError, errors } from '@baas/common';
import { header, sendError, type Exchange } from './exchange';

/** Where the gateway serves the web console (packages/console, built by Vite with this base). */
export const CONSOLE_PATH = '/console';

/**
 * The console's Content-Security-Policy: its own scripts, styles and API only. No inline script
 * or style, no other origin (fonts, CDNs, analytics), never framed, no plugins, no <base>.
 * `blob:` images are upload previews made in the page; the only frame is the mail preview page.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=(), usb=()';

/** Added to (or replacing helmet's) headers on every console answer. */
const CONSOLE_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', CONSOLE_CSP],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['X-Frame-Options', 'DENY'],
  ['Permissions-Policy', PERMISSIONS_POLICY],
];

/**
 * The mail preview page (packages/console/public/preview.html and its script, preview.js): the
 * console frames it with `sandbox="allow-scripts"` (an opaque origin: no cookie, storage or DOM
 * of the console's) and posts it the rendered HTML of a template, which it shows in a nested
 * `sandbox=""` frame (no script at all). Tenant-authored HTML thus never runs with the console's
 * origin, and is not held to the console's own CSP either.
 */
export const PREVIEW_PAGE = 'preview.html';
export const PREVIEW_SCRIPT = 'preview.js';

/**
 * The preview page's CSP (inherited by the mail's srcdoc frame): its one script file, the mail's
 * inline styles and https/data images, nothing fetched or posted by script, no frame navigated
 * anywhere, no <base>; framed by the console only. `sandbox allow-scripts` keeps it in an opaque
 * origin even when opened on its own.
 */
export const PREVIEW_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  'img-src https: data:',
  "frame-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-scripts',
].join('; ');

const PREVIEW_PAGE_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', PREVIEW_CSP],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['Permissions-Policy', PERMISSIONS_POLICY],
];

/**
 * The preview page's script is loaded by a document of an opaque origin: a same-origin resource
 * policy would refuse it that document. It is public, static code.
 */
const PREVIEW_SCRIPT_HEADERS: ReadonlyArray<[string, string]> = [
  ...CONSOLE_HEADERS.filter(([name]) => name !== 'Cross-Origin-Resource-Policy'),
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
];

/** The headers of a file of the build (by its path under the base). */
function headersFor(rel: string): ReadonlyArray<[string, string]> {
  if (rel === PREVIEW_PAGE) return PREVIEW_PAGE_HEADERS;
  if (rel === PREVIEW_SCRIPT) return PREVIEW_SCRIPT_HEADERS;
  return CONSOLE_HEADERS;
}

/** Vite's hashed output: the name changes with the content, so it may be cached for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and unhashed files: revalidated on every load, so a new build is picked up at once. */
const REVALIDATE = 'no-cache';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.webmanifest']);

interface ConsoleFile {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  etag: string;
  cacheControl: string;
}

/** A missing build, a missing setting: said plainly, the gateway serves the API all the same. */
function notBuilt(dir: string | undefined): AppError {
  return errors.notFound(
    'CONSOLE_NOT_BUILT',
    dir
      ? `The console is not built: ${dir} has no index.html (run \`npm run build\`, or set CONSOLE_DIR)`
      : 'The console is not served by this gateway (no CONSOLE_DIR)',
  );
}

function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix + e.name;
    if (e.isDirectory()) return walk(join(dir, e.name), `${rel}/`);
    return e.isFile() ? [rel] : [];
  });
}

/**
 * Reads the whole built console into memory (a few hundred KB; each file gzipped once), keyed by
 * its path under the base. Undefined when the directory holds no build.
 */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> | undefined {
  if (buildStamp(dir) === undefined) return undefined;
  const files = new Map<string, ConsoleFile>();
  for (const rel of walk(dir)) {
    const ext = extname(rel).toLowerCase();
    const body = readFileSync(join(dir, rel));
    const gzip = COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined;
    files.set(rel, {
      body,
      gzip: gzip && gzip.length < body.length ? gzip : undefined,
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE,
    });
  }
  return files;
}

/** When index.html was written (a new build rewrites it); undefined without one. */
function buildStamp(dir: string): number | undefined {
  try {
    return statSync(join(dir, 'index.html')).mtimeMs;
  } catch {
    return undefined;
  }
}

function acceptsGzip(ex: Exchange): boolean {
  const accepted = header(ex.req, 'accept-encoding');
  if (!accepted) return false;
  return accepted.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export interface ConsoleSiteOptions {
  /** The built app (CONSOLE_DIR); undefined serves nothing. */
  dir: string | undefined;
  /**
   * How often the directory is looked at again (ms): a build made after the start (or a new one)
   * is served without a restart; in between, answers cost a map lookup.
   */
  retryMs?: number;
  now?: () => number;
}

/**
 * The web console under /console: the built files, index.html for every other path (the app
 * routes on the client), hashed assets cached for a year, index.html revalidated, and a strict
 * CSP. Answered before rate limits and authentication: static files cost a map lookup, and the
 * app's own API calls are limited and authenticated as any client's.
 */
export class ConsoleSite {
  private files: Map<string, ConsoleFile> | undefined;
  private stamp: number | undefined;
  private lookedAt = Number.NEGATIVE_INFINITY;
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ConsoleSiteOptions) {
    this.retryMs = options.retryMs ?? 5000;
    this.now = options.now ?? Date.now;
    this.bundle();
  }

  /** Whether a path belongs to the console. */
  static owns(path: string): boolean {
    return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
  }

  private bundle(): Map<string, ConsoleFile> | undefined {
    const { dir } = this.options;
    if (!dir) return undefined;
    const t = this.now();
    if (t - this.lookedAt < this.retryMs) return this.files;
    this.lookedAt = t;
    const stamp = buildStamp(dir);
    // A build being written (index.html gone for a moment) keeps the one in memory.
    if (stamp === undefined || stamp === this.stamp) return this.files;
    const files = loadConsoleFiles(dir);
    if (files) {
      this.files = files;
      this.stamp = stamp;
    }
    return this.files;
  }

  answer(ex: Exchange): void {
    const { req, res } = ex;
    const method = req.method ?? 'GET';
    for (const [name, value] of CONSOLE_HEADERS) res.setHeader(name, value);
    if (method !== 'GET' && method !== 'HEAD') return sendError(ex, errors.routeNotFound());
    if (ex.path === CONSOLE_PATH) {
      const url = req.url ?? CONSOLE_PATH;
      res.statusCode = 308;
      res.setHeader('Location', `${CONSOLE_PATH}/${url.slice(CONSOLE_PATH.length)}`);
      res.end();
      return;
    }
    const files = this.bundle();
    if (!files) return sendError(ex, notBuilt(this.options.dir));
    const rel = ex.path.slice(CONSOLE_PATH.length + 1);
    let file = files.get(rel);
    if (file) for (const [name, value] of headersFor(rel)) res.setHeader(name, value);
    else {
      // A missing hashed asset is an old page asking for a previous build: 404, never the HTML.
      if (rel.startsWith('assets/'))
        return sendError(ex, errors.notFound('NOT_FOUND', 'No such console file'));
      file = files.get('index.html');
      if (!file) return sendError(ex, notBuilt(this.options.dir));
    }
    res.setHeader('Cache-Control', file.cacheControl);
    res.setHeader('ETag', file.etag);
    if (file.gzip) res.setHeader('Vary', 'Accept-Encoding');
    if (header(req, 'if-none-match') === file.etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    const gzip = file.gzip && acceptsGzip(ex) ? file.gzip : undefined;
    const body = gzip ?? file.body;
    res.statusCode = 200;
    res.setHeader('Content-Type', file.type);
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', body.length);
    res.end(method === 'HEAD' ? undefined : body);
  }
}
