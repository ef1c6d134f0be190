/**
 * Content types: stored as the client declared them when well-formed (else guessed from the
 * extension), and served so that a browser never executes an uploaded file in our origin.
 */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  css: 'text/css',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  webm: 'video/webm',
  zip: 'application/zip',
};

const MIME_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;

export const OCTET_STREAM = 'application/octet-stream';

export function decideContentType(declared: string | undefined, ext: string): string {
  const d = (declared ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (MIME_RE.test(d) && d !== OCTET_STREAM) return d;
  return BY_EXTENSION[ext] ?? OCTET_STREAM;
}

/** Types a browser renders as active content (script, markup that can carry script). */
const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'text/ecmascript',
  'application/wasm',
  'text/xsl',
  'application/xslt+xml',
  'application/rdf+xml',
  'application/mathml+xml',
  'multipart/x-mixed-replace',
  'application/x-shockwave-flash',
  'application/pdf',
]);
const ACTIVE_EXTENSIONS = new Set([
  'html',
  'htm',
  'xhtml',
  'shtml',
  'svg',
  'svgz',
  'xml',
  'xsl',
  'xslt',
  'js',
  'mjs',
  'wasm',
  'swf',
  'pdf',
]);

export function isActiveContent(contentType: string, ext: string): boolean {
  const t = contentType.toLowerCase();
  return ACTIVE_TYPES.has(t) || t.endsWith('+xml') || ACTIVE_EXTENSIONS.has(ext);
}

/** Response headers for serving a stored file publicly. */
export function servingHeaders(
  contentType: string,
  ext: string,
  originalName: string,
): Record<string, string> {
  const active = isActiveContent(contentType, ext);
  const encoded = encodeURIComponent(originalName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  const ascii = originalName.replace(/[^\x20-\x7e]/g, '_').replace(/[\\"]/g, '_');
  return {
    'Content-Type': contentType,
    'X-Content-Type-Options': 'nosniff',
    // Even if something renders, it runs with no privileges and loads nothing.
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; media-src 'self'; sandbox",
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Content-Disposition': `${active ? 'attachment' : 'inline'}; filename="${ascii}"; filename*=UTF-8''${encoded}`,
  };
}
