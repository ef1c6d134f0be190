import {
  assertNoTraversal,
  generateFileName,
  parseFilePath,
  sanitizeExtension,
  sanitizeOriginalName,
} from './file-path';

const PID = '64b7f0c2a1b2c3d4e5f60718';

describe('file names', () => {
  it('keeps a sanitised, lower-cased extension of the client name', () => {
    expect(sanitizeExtension('photo.PNG')).toBe('png');
    expect(sanitizeExtension('archive.tar.gz')).toBe('gz');
    expect(sanitizeExtension('../../x/evil.html')).toBe('html');
    expect(sanitizeExtension('..\\..\\evil.js')).toBe('js');
  });

  it('drops extensions that are empty, too long or not alphanumeric', () => {
    for (const n of [
      undefined,
      '',
      'noext',
      '.hidden',
      'trailing.',
      'a.abcdefghijk',
      'a.p%2fng',
      'a.p\u0000g',
      'a.ph p',
    ]) {
      expect(sanitizeExtension(n)).toBe('');
    }
  });

  it('generates a different name for every upload of the same file name', () => {
    const names = new Set(Array.from({ length: 1000 }, () => generateFileName('photo.png')));
    expect(names.size).toBe(1000);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{22}\.png$/);
  });

  it('never lets a client string become a path segment', () => {
    const name = generateFileName('../../64b7f0c2a1b2c3d4e5f60719/x.png');
    expect(name).not.toContain('/');
    expect(parseFilePath(`${PID}/${name}`)?.projectId).toBe(PID);
  });

  it('reduces the original name to header-safe characters', () => {
    expect(sanitizeOriginalName('a\r\nb"\u202ec.txt')).toBe('abc.txt');
    expect(sanitizeOriginalName('dir/sub\\file.txt')).toBe('file.txt');
    expect(sanitizeOriginalName(undefined)).toBe('file');
  });
});

describe('parseFilePath', () => {
  it('accepts only <projectId>/<generated name>', () => {
    expect(parseFilePath(`${PID}/AAAAAAAAAAAAAAAAAAAAAA.png`)).toEqual({
      projectId: PID,
      name: 'AAAAAAAAAAAAAAAAAAAAAA.png',
      path: `${PID}/AAAAAAAAAAAAAAAAAAAAAA.png`,
    });
    for (const p of [
      `${PID}`,
      `${PID}/`,
      `${PID}/short.png`,
      `${PID}/a/AAAAAAAAAAAAAAAAAAAAAA`,
      `xyz/AAAAAAAAAAAAAAAAAAAAAA`,
      `${PID}/AAAAAAAAAAAAAAAAAAAAAA.PNG`,
    ]) {
      expect(parseFilePath(p)).toBeNull();
    }
  });
});

describe('assertNoTraversal', () => {
  it.each([
    '../other/x.png',
    `${PID}/../64b7f0c2a1b2c3d4e5f60719/AAAAAAAAAAAAAAAAAAAAAA`,
    `${PID}/..%2fx`,
    `${PID}/%2e%2e/x`,
    `${PID}\\..\\x`,
    `/${PID}/AAAAAAAAAAAAAAAAAAAAAA`,
    `${PID}//AAAAAAAAAAAAAAAAAAAAAA`,
    `${PID}/AAAAAAAAAAAAAAAAAAAAAA\u0000.png`,
  ])('refuses %j with 400 INVALID_PATH', (p) => {
    expect(() => assertNoTraversal(p)).toThrow(
      expect.objectContaining({ status: 400, code: 'INVALID_PATH' }),
    );
  });

  it('lets a plain path through', () => {
    expect(() => assertNoTraversal(`${PID}/AAAAAAAAAAAAAAAAAAAAAA.png`)).not.toThrow();
  });
});
