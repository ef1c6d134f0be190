// eslint-disable-next-line @typescript-eslint/no-require-imports
const SlowFileReporter = require('../support/slow-file-reporter.js');

function reporter() {
  const lines: string[] = [];
  let now = 0;
  const r = new SlowFileReporter(
    { rootDir: '/repo' },
    { write: (l: string) => lines.push(l), now: () => now, warnAfterSeconds: [120, 300] },
  );
  return { r, lines, at: (seconds: number) => (now = seconds * 1000) };
}

describe('slow-file reporter (CI)', () => {
  it('names a file still running once per threshold passed, relative to the root', () => {
    const { r, lines, at } = reporter();
    r.onTestFileStart({ path: '/repo/test/e2e/a.test.ts' });
    at(119.9);
    r.check();
    expect(lines).toEqual([]);
    at(120);
    r.check();
    r.check();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[slow test file\] test\/e2e\/a\.test\.ts still running after 120 s/);
    at(900); // past the last threshold: named once more, then never again
    r.check();
    r.check();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/still running after 900 s/);
  });

  it('names every threshold passed between two checks', () => {
    const { r, lines, at } = reporter();
    r.onTestFileStart({ path: '/repo/c.test.ts' });
    at(400);
    r.check();
    expect(lines).toHaveLength(2);
  });

  it('forgets a file once it has ended, and lists the slowest files at the end', () => {
    const { r, lines, at } = reporter();
    r.onTestFileStart({ path: '/repo/a.test.ts' });
    at(5);
    r.onTestFileResult({ path: '/repo/a.test.ts' });
    r.onTestFileStart({ path: '/repo/b.test.ts' });
    at(500);
    r.onTestFileResult({ path: '/repo/b.test.ts' });
    r.check();
    expect(lines).toEqual([]);
    r.onRunComplete();
    expect(lines[0]).toBe('Slowest test files (of 2, 500 s in all):');
    expect(lines[1]).toMatch(/^\s+495\.0 s {2}b\.test\.ts$/);
    expect(lines[2]).toMatch(/^\s+5\.0 s {2}a\.test\.ts$/);
  });
});
