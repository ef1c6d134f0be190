import { decideContentType, isActiveContent, servingHeaders } from './content-type';

describe('content types', () => {
  it('stores a well-formed declared type without parameters', () => {
    expect(decideContentType('Image/PNG', 'png')).toBe('image/png');
    expect(decideContentType('text/plain; charset=utf-8', 'txt')).toBe('text/plain');
  });

  it('falls back to the extension, then to application/octet-stream', () => {
    expect(decideContentType(undefined, 'svg')).toBe('image/svg+xml');
    expect(decideContentType('application/octet-stream', 'png')).toBe('image/png');
    expect(decideContentType('not a type', 'zzz')).toBe('application/octet-stream');
  });

  it('treats markup and script as active, whatever the declared type or extension says', () => {
    expect(isActiveContent('text/html', 'png')).toBe(true);
    expect(isActiveContent('image/svg+xml', '')).toBe(true);
    expect(isActiveContent('application/vnd.foo+xml', '')).toBe(true);
    expect(isActiveContent('image/png', 'html')).toBe(true);
    expect(isActiveContent('image/png', 'png')).toBe(false);
  });

  it('serves active content as an attachment, always with nosniff', () => {
    const h = servingHeaders('text/html', 'html', 'page.html');
    expect(h['Content-Disposition']).toMatch(/^attachment;/);
    expect(h['X-Content-Type-Options']).toBe('nosniff');
    expect(servingHeaders('image/png', 'png', 'a.png')['Content-Disposition']).toMatch(/^inline;/);
  });

  it('encodes non-ASCII file names per RFC 6266', () => {
    const h = servingHeaders('image/png', 'png', 'café.png');
    expect(h['Content-Disposition']).toBe(`inline; filename="caf_.png"; filename*=UTF-8''caf%C3%A9.png`);
  });
});
