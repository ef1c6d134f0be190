/**
 * Content types are the server's decision (security notes #58, OWASP's file upload cheat sheet:
 * never trust the declared type). The raster images served inline are recognised by their first
 * bytes, whatever the client declared; a claim to be one of them that the bytes do not back is
 * stored as application/octet-stream. Other types cannot be told from their bytes: stored as
 * declared when well-formed (else guessed from the extension) and always served as an
 * attachment, so a browser never renders an uploaded file in our origin.
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

/** How many first bytes of an upload `sniffImage` needs. */
export const SNIFF_BYTES = 16;

const ascii = (head: Buffer, at: number, text: string): boolean =>
  head.length >= at + text.length && head.toString('latin1', at, at + text.length) === text;

/**
 * The raster image types served inline, each with the signature that proves it: the file
 * formats' own magic numbers (PNG spec 5.2, JFIF/EXIF SOI marker, GIF87a/89a, RIFF WEBP, ISO BMFF
 * `ftyp` with an AVIF brand, BMP's `BM` with its reserved words zero, ICO's reserved 0 and type 1).
 */
const IMAGE_SIGNATURES: ReadonlyArray<readonly [string, (head: Buffer) => boolean]> = [
  [
    'image/png',
    (h) => h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  ],
  ['image/jpeg', (h) => h.length >= 3 && h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff],
  ['image/gif', (h) => ascii(h, 0, 'GIF87a') || ascii(h, 0, 'GIF89a')],
  ['image/webp', (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP')],
  ['image/avif', (h) => ascii(h, 4, 'ftyp') && (ascii(h, 8, 'avif') || ascii(h, 8, 'avis'))],
  ['image/bmp', (h) => ascii(h, 0, 'BM') && h.length >= 10 && h.readUInt32LE(6) === 0],
  ['image/x-icon', (h) => h.length >= 6 && h.readUInt32BE(0) === 0x00000100 && h.readUInt16LE(4) > 0],
];

/** Types served inline; a file is stored with one only when its bytes carry its signature. */
const INLINE_IMAGES = new Set([...IMAGE_SIGNATURES.map(([type]) => type), 'image/vnd.microsoft.icon']);

/** The image type the first bytes of a file prove, if any. */
export function sniffImage(head: Buffer): string | undefined {
  return IMAGE_SIGNATURES.find(([, matches]) => matches(head))?.[0];
}

/**
 * `head`: the file's first SNIFF_BYTES bytes (fewer for a shorter file). The declared type has
 * its parameters dropped; a malformed one, or application/octet-stream, defers to the extension.
 */
export function decideContentType(declared: string | undefined, ext: string, head: Buffer): string {
  const sniffed = sniffImage(head);
  if (sniffed) return sniffed;
  const d = (declared ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const claimed = MIME_RE.test(d) && d !== OCTET_STREAM ? d : (BY_EXTENSION[ext] ?? OCTET_STREAM);
  return INLINE_IMAGES.has(claimed) ? OCTET_STREAM : claimed;
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

/**
 * Response headers for serving a stored file publicly: inline only for the raster images above
 * (files stored before their signatures were checked included: nosniff keeps a browser from
 * reading them as anything else), an attachment for anything else.
 */
export function servingHeaders(
  contentType: string,
  ext: string,
  originalName: string,
): Record<string, string> {
  const inline = INLINE_IMAGES.has(contentType.toLowerCase()) && !isActiveContent(contentType, ext);
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
    'Content-Disposition': `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encoded}`,
  };
}
