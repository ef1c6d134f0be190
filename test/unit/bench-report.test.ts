import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { META } from './bench-fixtures';

/**
 * bench/lib/report.mjs: how the fixed-rate runs are summarized and shown. An ES module, which this
 * tier does not load, so a node child imports it and prints what it returned.
 */
const REPORT = join(__dirname, '..', '..', 'bench', 'lib', 'report.mjs');

function run(expression: string): unknown {
  const script = `import * as m from ${JSON.stringify(REPORT)};
process.stdout.write(JSON.stringify(${expression}));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  );
}

const runOf = (p99: number) =>
  JSON.stringify({
    requests: 1000,
    rps: 500,
    latencyMs: { mean: 1, p50: 1, p99, max: p99 * 2 },
    non2xx: 0,
    errors: 0,
    warmupNon2xx: 0,
    warmupErrors: 0,
    statuses: { 200: 1000 },
  });

describe('bench report: p99 at a fixed rate', () => {
  it('keeps the median p99 of the runs and their lowest and highest', () => {
    const s = run(`m.summarize([${runOf(9)}, ${runOf(3)}, ${runOf(4)}])`) as {
      p99Ms: number;
      p99RangeMs: number[];
    };
    expect(s.p99Ms).toBe(4);
    expect(s.p99RangeMs).toEqual([3, 9]);
  });

  it('shows the range beside the median when there was more than one run, and not for one run', () => {
    const meta = META;
    const systems = [{ key: 'ours' }, { key: 'pocketbase' }];
    const md =
      run(`m.renderMarkdown({ meta: ${JSON.stringify(meta)}, systems: ${JSON.stringify(systems)}, results: {
      fixedRate: { get: { rate: 500, bySystem: {
        ours: m.summarize([${runOf(9)}, ${runOf(3)}, ${runOf(4)}]),
        pocketbase: m.summarize([${runOf(5)}]),
      } } } } })`) as string;
    const section = md.slice(md.indexOf('## p99 at a fixed rate'));
    const row = section.split('\n').find((l) => l.startsWith('| get '));
    expect(row).toContain('4.0 (1.0) [3.0-9.0]');
    expect(row).toMatch(/\| 5\.0 \(1\.0\) +\|/);
    expect(row).toContain('0.80');
    // the run's client population is part of how it was measured
    expect(md).toContain(
      'Clients: 1234 addresses (X-Forwarded-For from 10.0.0.0/8, 10 requests each, 1000 at a time taking turns;',
    );
  });
});

describe('bench report: gateway overhead', () => {
  const side = (rps: number, cpuUs: Record<string, number>, non2xx = 0) => ({
    rps,
    p50Ms: 5,
    p99Ms: 12,
    non2xx,
    statuses: non2xx ? { 200: 2990, 500: non2xx } : { 200: 3000 },
    cpuUs,
  });
  const gateway = (bareNon2xx = 0) => ({
    path: '/api/data/items?sort=-createdAt&limit=20',
    requests: 3000,
    concurrency: 20,
    rounds: 3,
    direct: side(3000, { gateway: 0, data: 280, 'bare proxy': 0 }),
    gateway: side(2250, { gateway: 200, data: 290, 'bare proxy': 0 }),
    bare: side(2610, { gateway: 0, data: 285, 'bare proxy': 120 }, bareNon2xx),
    ratio: 0.75,
    bareRatio: 0.87,
  });
  const render = (results: unknown) =>
    run(
      `m.renderMarkdown({ meta: ${JSON.stringify({ ...META, workloads: ['gateway'] })}, systems: [{ key: 'ours' }], results: ${JSON.stringify(results)} })`,
    ) as string;

  it('shows the bare proxy beside the gateway, with the CPU each hop and the data service cost', () => {
    const md = render({ gateway: gateway() });
    const section = md.slice(md.indexOf('## Gateway overhead'));
    const rows = section.split('\n').filter((l) => l.startsWith('| '));
    expect(rows[0]).toMatch(/proxy CPU µs \| data CPU µs/);
    expect(rows.find((l) => l.startsWith('| through a bare proxy'))).toMatch(/\| 2610 .*\| 120 +\| 285 +\|/);
    expect(rows.find((l) => l.startsWith('| through the gateway'))).toMatch(/\| 2250 .*\| 200 +\| 290 +\|/);
    expect(rows.find((l) => l.startsWith('| bare proxy/direct'))).toContain('0.87');
    expect(rows.find((l) => l.startsWith('| gateway/direct'))).toContain('0.75');
  });

  it('says which clock the CPU columns were read from (earlier reports: no clock named)', () => {
    const intro = (g: object) => {
      const md = render({ gateway: g });
      return md.slice(md.indexOf('## Gateway overhead')).split('\n')[2] ?? '';
    };
    expect(intro({ ...gateway(), clockNote: 'time on the CPU of every thread' })).toContain(
      'CPU is per request, from /proc (time on the CPU of every thread).',
    );
    expect(intro(gateway())).toContain('CPU is per request, from /proc.');
  });

  it('renders a run without the bare proxy (earlier reports) as before', () => {
    const without: Partial<ReturnType<typeof gateway>> = gateway();
    delete without.bare;
    delete without.bareRatio;
    const section = render({ gateway: without }).split('## Gateway overhead')[1]!;
    expect(section).not.toContain('bare proxy');
    expect(section).not.toContain('CPU µs');
    expect(section).toContain('| gateway/direct');
  });

  it("counts the bare proxy's failed requests among the run's failures", () => {
    expect(run(`m.failures(${JSON.stringify({ gateway: gateway(10) })})`)).toEqual([
      expect.stringMatching(/^gateway bare proxy: 10 non-2xx/),
    ]);
    expect(run(`m.failures(${JSON.stringify({ gateway: gateway() })})`)).toEqual([]);
  });
});

describe('bench report: login against raw argon2', () => {
  const RAW = join(__dirname, '..', '..', 'bench', 'lib', 'argon2-raw.mjs');
  const params = { memoryCost: 19456, timeCost: 2, parallelism: 1, concurrency: 2 };
  const round = (verifies: number, seconds: number) => ({
    ...params,
    verifies,
    seconds,
    perSecond: verifies / seconds,
  });

  it('makes one figure of the rounds measured after each round of logins: all verifies over all seconds', () => {
    const script = `import { combineRaw } from ${JSON.stringify(RAW)};
process.stdout.write(JSON.stringify(combineRaw(${JSON.stringify([round(480, 6), round(420, 6), round(450, 6)])})));`;
    const combined = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
    );
    expect(combined).toEqual({ ...params, verifies: 1350, seconds: 18, perSecond: 75, rounds: [80, 70, 75] });
  });

  it('shows each round beside the figure, and the ratio of our logins to it', () => {
    const results = {
      argon2: { ...params, verifies: 1350, seconds: 18, perSecond: 75, rounds: [80, 70, 75] },
      comparison: {
        login: {
          ours: {
            rps: 60,
            meanMs: 300,
            p50Ms: 300,
            p99Ms: 600,
            requests: 360,
            non2xx: 0,
            errors: 0,
            statuses: { 200: 360 },
          },
        },
      },
    };
    const md = run(
      `m.renderMarkdown({ meta: ${JSON.stringify({ ...META, docs: 10000, workloads: ['login'] })}, systems: [{ key: 'ours' }], results: ${JSON.stringify(results)} })`,
    ) as string;
    const section = md.slice(md.indexOf('## Login against raw argon2')).split('\n## ')[0]!;
    expect(section).toContain('right after each round of logins');
    expect(section).toMatch(/\*\*75\.0\/s\*\* \(rounds 80\.0, 70\.0, 75\.0\)/);
    expect(section).toContain('60.0/s');
    expect(section).toContain('0.80');
  });
});

describe('bench report: the cost of a system call on the machine', () => {
  const MACHINE = join(__dirname, '..', '..', 'bench', 'lib', 'machine.mjs');
  const header = (meta: object) =>
    (
      run(
        `m.renderMarkdown({ meta: ${JSON.stringify({ ...META, workloads: ['get'], ...meta })}, systems: [{ key: 'ours' }], results: {} })`,
      ) as string
    )
      .split('\n')
      .slice(0, 3)
      .join('\n');

  it('names it beside the cores and the memory when the run measured it', () => {
    expect(header({ syscallMicros: 1.0427 })).toContain(
      '2 x cpu, 1 GiB, a system call from Node 1.04 µs (process.ppid, fastest of 5 loops), Node v20',
    );
  });

  it('says how many loops the run timed (runs that did not record it: 5)', () => {
    expect(header({ syscallMicros: 0.25, syscallRounds: 3 })).toContain(
      'a system call from Node 0.25 µs (process.ppid, fastest of 3 loops)',
    );
  });

  it('leaves it out of runs that did not measure it (earlier reports)', () => {
    const h = header({});
    expect(h).toContain('2 x cpu, 1 GiB, Node v20');
    expect(h).not.toContain('system call');
  });

  it('measures a positive number of µs (a getppid each `process.ppid`, as strace counts)', () => {
    const script = `import { syscallMicros } from ${JSON.stringify(MACHINE)};
process.stdout.write(JSON.stringify(syscallMicros({ calls: 20000, rounds: 3 })));`;
    const micros = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
    ) as number;
    expect(micros).toBeGreaterThan(0.005);
    expect(micros).toBeLessThan(100);
  });
});
