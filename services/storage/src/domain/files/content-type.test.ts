import { randomBytes } from 'node:crypto';
import { decideContentType, isActiveContent, servingHeaders, sniffImage, SNIFF_BYTES } from './content-type';

const hex = (s: string) => Buffer.from(s.replace(/ /g, ''), 'hex');
const latin = (s: string) => Buffer.from(s, 'latin1');

/** The first bytes of real files of each type (from the formats' specifications). */
const HEADS: Array<[string, Buffer]> = [
  ['image/png', hex('89504e470d0a1a0a 0000000d49484452')],
  ['image/jpeg', hex('ffd8ffe000104a46 4946000101000001')],
  ['image/gif', latin('GIF89a\x01\x00\x01\x00\x80\x00\x00')],
  ['image/gif', latin('GIF87a\x01\x00\x01\x00\x80\x00\x00')],
  ['image/webp', latin('RIFF\x24\x00\x00\x00WEBPVP8 ')],
  ['image/avif', latin('\x00\x00\x00\x20ftypavif\x00\x00\x00\x00')],
  ['image/bmp', latin('BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00')],
  ['image/x-icon', hex('00000100010010100000010020006804')],
];

describe('content types', () => {
  it.each(HEADS)('recognises %s by its first bytes', (type, head) => {
    expect(head.length).toBeLessThanOrEqual(SNIFF_BYTES);
    expect(sniffImage(head)).toBe(type);
    // whatever the client declared or the name says
    expect(decideContentType('text/html', 'html', head)).toBe(type);
    expect(decideContentType(undefined, 'txt', head)).toBe(type);
  });

  it('recognises nothing in text, random bytes, a RIFF that is not WEBP, "BM" text or a truncated signature', () => {
    for (const head of [
      latin('<script>alert(1)</script>'),
      latin('BMW owners club, minutes'),
      latin('RIFF\x24\x00\x00\x00WAVEfmt '),
      hex('89504e470d0a1a'),
      hex('ffd8'),
      Buffer.alloc(0),
    ])
      expect(sniffImage(head)).toBeUndefined();
    expect(sniffImage(Buffer.concat([Buffer.from([0]), randomBytes(15)]))).toBeUndefined();
  });

  it('stores a claim to be an inline image that the bytes do not back as application/octet-stream', () => {
    const html = latin('<svg onload=alert(1)>');
    expect(decideContentType('image/png', 'png', html)).toBe('application/octet-stream');
    expect(decideContentType(undefined, 'jpg', html)).toBe('application/octet-stream');
    expect(decideContentType('IMAGE/GIF; x=y', 'bin', html)).toBe('application/octet-stream');
    expect(decideContentType('image/vnd.microsoft.icon', 'ico', html)).toBe('application/octet-stream');
  });

  it('keeps other well-formed declared types without parameters (the bytes cannot tell them)', () => {
    const text = latin('hello, world');
    expect(decideContentType('text/plain; charset=utf-8', 'txt', text)).toBe('text/plain');
    expect(decideContentType('image/heic', 'heic', text)).toBe('image/heic');
    expect(decideContentType('text/html', 'html', text)).toBe('text/html');
  });

  it('falls back to the extension, then to application/octet-stream', () => {
    const text = latin('<svg/>');
    expect(decideContentType(undefined, 'svg', text)).toBe('image/svg+xml');
    expect(decideContentType('application/octet-stream', 'txt', text)).toBe('text/plain');
    expect(decideContentType('not a type', 'zzz', text)).toBe('application/octet-stream');
  });

  it('treats markup and script as active, whatever the declared type or extension says', () => {
    expect(isActiveContent('text/html', 'png')).toBe(true);
    expect(isActiveContent('image/svg+xml', '')).toBe(true);
    expect(isActiveContent('application/vnd.foo+xml', '')).toBe(true);
    expect(isActiveContent('image/png', 'html')).toBe(true);
    expect(isActiveContent('image/png', 'png')).toBe(false);
  });

  it('serves inline only the raster images, everything else as an attachment, always with nosniff', () => {
    for (const [type] of HEADS)
      expect(servingHeaders(type, 'img', 'a.img')['Content-Disposition']).toMatch(/^inline;/);
    for (const [type, ext] of [
      ['text/html', 'html'],
      ['image/svg+xml', 'svg'],
      ['text/plain', 'txt'],
      ['application/json', 'json'],
      ['video/mp4', 'mp4'],
      ['image/heic', 'heic'],
      ['application/octet-stream', 'png'],
      ['image/png', 'html'], // stored before the signatures were checked, with an active name
    ]) {
      const h = servingHeaders(type!, ext!, `a.${ext}`);
      expect(h['Content-Disposition']).toMatch(/^attachment;/);
      expect(h['X-Content-Type-Options']).toBe('nosniff');
    }
  });

  it('encodes non-ASCII file names per RFC 6266', () => {
    const h = servingHeaders('image/png', 'png', 'café.png');
    expect(h['Content-Disposition']).toBe(`inline; filename="caf_.png"; filename*=UTF-8''caf%C3%A9.png`);
  });
});
