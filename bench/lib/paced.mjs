// Latency at a fixed rate, measured open-loop with vegeta (github.com/tsenart/vegeta, installed by
// bench/install-peers.sh): requests leave at evenly spaced instants whatever the answers do, so a
// slow answer delays no later request and every wait is counted. autocannon's overallRate is not
// that: each connection sends its share of a second back to back when the second starts, then
// waits, so "222 req/s" there is a burst of 222 requests at 20 in flight once a second, and its p99
// measures how a system drains a burst rather than how it answers at that rate.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withClientAddress } from './population.mjs';

/**
 * The vegeta version bench/install-peers.sh installed, from the marker it writes beside the
 * binary (`github.com/tsenart/vegeta/v12@v12.13.0`): the script pins it, the report says it.
 */
export function vegetaVersion(benchDir) {
  try {
    const installed = fs.readFileSync(path.join(benchDir, 'bin', '.vegeta.version'), 'utf8').trim();
    return installed.slice(installed.lastIndexOf('@') + 1) || 'unknown version';
  } catch {
    return 'not installed';
  }
}

function vegetaBin(benchDir) {
  const bin = path.join(benchDir, 'bin', 'vegeta');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run bash bench/install-peers.sh`);
  return bin;
}

function exec(bin, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString('utf8'))
        : reject(
            new Error(
              `${path.basename(bin)} ${args[0]} exited ${code}: ${Buffer.concat(err).toString('utf8')}`,
            ),
          ),
    );
  });
}

/** Targets written for one attack at most (a file of some MB); past it vegeta starts over. */
const MAX_TARGETS = 20_000;

/**
 * vegeta's JSON targets, one per line: the scenario's `next(i)` for `count` consecutive i from a
 * random start (ids, tags, users and bodies rotate as they do under autocannon), each from the
 * population's next client; vegeta goes round them in order and starts over at the end.
 */
function targetLines(scenario, count) {
  const start = Math.floor(Math.random() * 1e6);
  const lines = [];
  for (let k = 0; k < count; k++) {
    const r = scenario.next(start + k);
    const headers = withClientAddress({ ...scenario.headers, ...r.headers });
    let body;
    if (Buffer.isBuffer(r.body)) body = r.body;
    else if (r.body !== undefined) {
      body = Buffer.from(JSON.stringify(r.body));
      headers['content-type'] = 'application/json';
    }
    const target = {
      method: r.method ?? 'GET',
      url: `${scenario.baseUrl}${r.path}`,
      header: Object.fromEntries(Object.entries(headers).map(([h, v]) => [h, [String(v)]])),
    };
    if (body) target.body = body.toString('base64');
    lines.push(JSON.stringify(target));
  }
  return `${lines.join('\n')}\n`;
}

const ms = (ns) => ns / 1e6;

/** vegeta's JSON report in the shape of load.mjs's summaries (status 0 = no answer: an error). */
export function fromVegetaReport(report) {
  const codes = report.status_codes ?? {};
  const count = (pred) =>
    Object.entries(codes)
      .filter(([c]) => pred(Number(c)))
      .reduce((a, [, n]) => a + n, 0);
  const l = report.latencies;
  const seconds = report.duration / 1e9;
  return {
    requests: report.requests,
    seconds,
    rps: report.requests / seconds,
    latencyMs: { mean: ms(l.mean), p50: ms(l['50th']), p99: ms(l['99th']), max: ms(l.max) },
    non2xx: count((c) => c !== 0 && (c < 200 || c > 299)),
    errors: count((c) => c === 0),
    timeouts: 0,
    statuses: Object.fromEntries(Object.entries(codes).filter(([c]) => c !== '0')),
  };
}

async function attack(bin, dir, targets, rate, seconds, connections) {
  const out = path.join(dir, `results-${Date.now()}.bin`);
  await exec(bin, [
    'attack',
    '-format=json',
    `-targets=${targets}`,
    `-rate=${rate}/1s`,
    `-duration=${seconds}s`,
    '-timeout=10s',
    `-max-connections=${connections}`,
    `-workers=${connections}`,
    '-keepalive=true',
    `-output=${out}`,
  ]);
  const report = JSON.parse(await exec(bin, ['report', '-type=json', out]));
  fs.rmSync(out, { force: true });
  return fromVegetaReport(report);
}

/**
 * Warm-up at the same rate (discarded, its failures kept for the report; skipped when
 * warmupSeconds is 0), then the measured run: `rate` requests per second, evenly spaced, at most
 * `connections` open (a request that finds them all busy waits, and the wait is counted);
 * vegeta is `<benchDir>/bin/vegeta` (bench/install-peers.sh).
 */
export async function measureAtRate(scenario, { benchDir, warmupSeconds, seconds, rate, connections = 20 }) {
  const bin = vegetaBin(benchDir);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baas-bench-vegeta-'));
  try {
    // A file per attack: vegeta reads its targets from the start each time, so with one file the
    // measured run sent the warm-up's clients again (twenty requests for some addresses).
    const targetsFor = (name, secs) => {
      const file = path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(
        file,
        targetLines(scenario, Math.max(1, Math.min(MAX_TARGETS, Math.ceil(rate * secs)))),
      );
      return file;
    };
    const warm =
      warmupSeconds > 0
        ? await attack(bin, dir, targetsFor('warm-up', warmupSeconds), rate, warmupSeconds, connections)
        : null;
    const result = await attack(bin, dir, targetsFor('measured', seconds), rate, seconds, connections);
    return { ...result, warmupNon2xx: warm?.non2xx ?? 0, warmupErrors: warm?.errors ?? 0 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
