import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * bench/lib/paced.mjs turns vegeta's JSON report into the summaries the bench compares and gates
 * on (the CI smoke fails on any error or non-2xx it reports). It is an ES module, which this tier
 * does not load, so a node child imports it and prints what it returned.
 */
const PACED = join(__dirname, '..', '..', 'bench', 'lib', 'paced.mjs');

function callPaced(fn: string, arg: unknown): unknown {
  const script = `import * as m from ${JSON.stringify(PACED)};
process.stdout.write(JSON.stringify(m[${JSON.stringify(fn)}](${JSON.stringify(arg)})));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** A vegeta report (vegeta report -type=json) with these status codes, 2 s long. */
const report = (statusCodes: Record<string, number>) => ({
  requests: Object.values(statusCodes).reduce((a, n) => a + n, 0),
  duration: 2e9,
  latencies: { mean: 1.5e6, '50th': 1e6, '99th': 9e6, max: 2e7 },
  status_codes: statusCodes,
});

describe('bench: vegeta reports as the bench reads them', () => {
  it('converts nanoseconds to milliseconds and counts the rate over the attack', () => {
    expect(callPaced('fromVegetaReport', report({ 200: 400 }))).toEqual({
      requests: 400,
      seconds: 2,
      rps: 200,
      latencyMs: { mean: 1.5, p50: 1, p99: 9, max: 20 },
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      statuses: { 200: 400 },
    });
  });

  it('counts status 0 (no answer: refused, reset, timed out) as errors, other non-2xx apart', () => {
    const r = callPaced('fromVegetaReport', report({ 0: 3, 201: 90, 404: 2, 503: 4, 302: 1 })) as {
      non2xx: number;
      errors: number;
      statuses: Record<string, number>;
    };
    expect(r.errors).toBe(3);
    expect(r.non2xx).toBe(7);
    expect(r.statuses).toEqual({ 201: 90, 404: 2, 503: 4, 302: 1 });
  });

  it('a report without status codes (nothing sent) has no errors to count', () => {
    const empty: Partial<ReturnType<typeof report>> = report({});
    delete empty.status_codes;
    expect(callPaced('fromVegetaReport', empty)).toMatchObject({ requests: 0, non2xx: 0, errors: 0 });
  });

  describe('vegetaVersion', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'bench-paced-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the version bench/install-peers.sh wrote beside the binary', () => {
      mkdirSync(join(dir, 'bin'));
      writeFileSync(join(dir, 'bin', '.vegeta.version'), 'github.com/tsenart/vegeta/v12@v12.13.0\n');
      expect(callPaced('vegetaVersion', dir)).toBe('v12.13.0');
    });

    it('says so when vegeta was never installed', () => {
      expect(callPaced('vegetaVersion', dir)).toBe('not installed');
    });
  });
});

/**
 * A stand-in for vegeta: `attack` sends (records) rate x duration targets from the start of its
 * targets file, going round it as vegeta does, and `report` answers 200 for each.
 */
const FAKE_VEGETA = `#!/usr/bin/env node
const fs = require('node:fs');
const [cmd, ...args] = process.argv.slice(2);
const opt = (name) => args.find((a) => a.startsWith('-' + name + '='))?.split('=')[1];
if (cmd === 'attack') {
  const lines = fs.readFileSync(opt('targets'), 'utf8').trim().split('\\n');
  const n = parseInt(opt('rate'), 10) * parseInt(opt('duration'), 10);
  const sent = [];
  for (let i = 0; i < n; i++) sent.push(JSON.parse(lines[i % lines.length]).header['x-forwarded-for'][0]);
  fs.appendFileSync(process.env.FAKE_VEGETA_LOG, sent.join('\\n') + '\\n');
  fs.writeFileSync(opt('output'), String(n));
} else if (cmd === 'report') {
  const n = Number(fs.readFileSync(args[args.length - 1], 'utf8'));
  process.stdout.write(JSON.stringify({ requests: n, duration: 1e9, latencies: { mean: 1e6, '50th': 1e6, '99th': 1e6, max: 1e6 }, status_codes: { 200: n } }));
}
`;

describe('bench: fixed-rate attacks and the client population', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-paced-'));
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'vegeta'), FAKE_VEGETA);
    chmodSync(join(dir, 'bin', 'vegeta'), 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the warm-up and the measured run from clients of their own (vegeta reads its targets from the start)', () => {
    const log = join(dir, 'sent.log');
    const script = `import { measureAtRate } from ${JSON.stringify(PACED)};
const scenario = { baseUrl: 'http://127.0.0.1:1', headers: {}, next: (i) => ({ path: '/x/' + i }) };
const r = await measureAtRate(scenario, { benchDir: ${JSON.stringify(dir)}, warmupSeconds: 2, seconds: 3, rate: 100 });
process.stdout.write(JSON.stringify(r));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, FAKE_VEGETA_LOG: log },
    });
    expect(JSON.parse(out)).toMatchObject({ requests: 300, non2xx: 0, warmupNon2xx: 0 });
    const sent = readFileSync(log, 'utf8').trim().split('\n');
    expect(sent).toHaveLength(500);
    // 500 requests, fewer than the 1,000 clients at once: each client sent one, none twice
    expect(new Set(sent).size).toBe(500);
  });
});
