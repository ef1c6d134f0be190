import { safeUrl, sanitizeVariables } from './sanitize-variables';

describe('variable sanitising', () => {
  it('keeps http and https URLs', () => {
    expect(safeUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeUrl(' http://example.com ')).toBe('http://example.com/');
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    ' java\tscript:alert(1)',
    '&#106;avascript:alert(1)',
    'javascript&colon;alert(1)',
    'data:text/html;base64,PHNjcmlwdD4=',
    'vbscript:msgbox(1)',
    'ftp://example.com/file',
    'mailto:a@example.com',
    '/relative/path',
    'not a url',
  ])('empties the URL-keyed value %j', (v) => {
    const out = sanitizeVariables({ resetUrl: v, link: v, href: v });
    expect(out.resetUrl).toBe('');
    expect(out.link).toBe('');
    expect(out.href).toBe('');
  });

  it('treats a URL-shaped value as a URL whatever its key, and drops dangerous schemes anywhere', () => {
    const out = sanitizeVariables({
      target: 'ftp://x.example/a',
      other: 'javascript:alert(1)',
      note: 'Note: hello',
      prose: 'http://x.example is great',
    });
    expect(out).toEqual(
      expect.objectContaining({
        target: '',
        other: '',
        note: 'Note: hello',
        prose: 'http://x.example is great',
      }),
    );
  });

  it('sanitises nested objects and arrays, and builds prototype-less objects', () => {
    const out = sanitizeVariables({
      user: { name: 'A', profileUrl: 'javascript:x' },
      items: ['javascript:y', 'ok'],
    });
    const user = out.user as Record<string, unknown>;
    expect(user.name).toBe('A');
    expect(user.profileUrl).toBe('');
    expect(out.items).toEqual(['', 'ok']);
    expect(Object.getPrototypeOf(user)).toBeNull();
  });

  it('refuses variables that are not an object, or are nested too deep', () => {
    expect(() => sanitizeVariables([1])).toThrow(expect.objectContaining({ status: 400 }));
    let deep: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(() => sanitizeVariables(deep)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
