#!/usr/bin/env node
// `npm run bench`: our system (through the gateway of `node scripts/stack.mjs up`) side by side
// with PocketBase and Parse Server, in one run on this machine, plus our own checks. Writes
// bench/results/<date>-<machine>.md, .json and .svg (chart) and prints the report.
//
//   1. idle-cpu: CPU of every process of ours over 60 s idle with 1,000 projects registered (after
//      120 s of settling once they are, reported too);
//   2. side by side at 10,000 documents (bench/workloads/side-by-side.mjs): list-20, get, filter,
//      cursor page 1 vs 500, owner-filtered list under RLS with a user token, $group aggregation,
//      create, login (and raw argon2 at the auth service's parameters), 1 MB upload; with
//      fixed-rate, p99 of each system at half the slowest system's maximum;
//   3. gateway: list-20 straight to the data service vs through the gateway;
//   4. memory: RSS of each service at start, idle (after the idle-CPU window) and after the run, storage during 20 x 10 MB uploads;
//   5. scale: list-20, filter, cursor at 10,000 vs 100,000 documents;
//   6. tenants: list-20 and get with and without 10,000 projects x 10 collections.
// Select with --only a,b (names above and the side-by-side workload names). It stops what it
// started, deletes what it made and gives up after --budget-minutes. --smoke: every workload once,
// seconds-long, tiny seeds, report to a temporary folder; exits 1 if any request failed.
//
//   node bench/run.mjs [--only list-20,login,...] [--store postgres|mongodb] [--quick | --smoke]
//                      [--seconds 6] [--warmup 2] [--rounds 3] [--peers-only] [--keep-tenants]
//                      [--idle-seconds 60] [--idle-settle-seconds 120] [--idle-projects 1000]
//                      [--budget-minutes 40] [--out DIR]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TAGS } from './lib/http.mjs';
import { LOAD, measure } from './lib/load.mjs';
import { measureAtRate, vegetaVersion } from './lib/paced.mjs';
import { authArgon2Params, combineRaw, rawArgon2 } from './lib/argon2-raw.mjs';
import { createOurProject, ensureStack, readStackEnv } from './lib/ours.mjs';
import { clients } from './lib/population.mjs';
import { dropParseDatabase, startParse } from './lib/parse.mjs';
import { startPocketBase } from './lib/pocketbase.mjs';
import { log, sleep, stopAll, stopOne } from './lib/process.mjs';
import { SYSCALL_ROUNDS, syscallMicros } from './lib/machine.mjs';
import { failures, writeReport } from './lib/report.mjs';
import { settle, settlePlan } from './lib/settle.mjs';
import { SIDE_BY_SIDE, seedSystems, sideBySide } from './workloads/side-by-side.mjs';
import { scale, tenants } from './workloads/scale.mjs';
import { gatewayOverhead, idleCpu, memorySnapshot, uploadMemory } from './workloads/system.mjs';
import { workspaceModule } from './lib/workspace-module.mjs';

const pg = workspaceModule('packages/common', 'pg');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKLOADS = ['idle-cpu', ...SIDE_BY_SIDE, 'fixed-rate', 'gateway', 'memory', 'scale', 'tenants'];
const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    store: { type: 'string', default: 'postgres' },
    seconds: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    'max-requests': { type: 'string', default: '100000' },
    docs: { type: 'string', default: '10000' },
    users: { type: 'string', default: '10' },
    small: { type: 'string', default: '10000' },
    large: { type: 'string', default: '100000' },
    tenants: { type: 'string' },
    'tenant-collections': { type: 'string', default: '10' },
    'tenant-docs': { type: 'string', default: '10' },
    'idle-seconds': { type: 'string', default: '60' },
    'idle-settle-seconds': { type: 'string', default: '120' },
    'idle-projects': { type: 'string', default: '1000' },
    'keep-tenants': { type: 'boolean', default: false },
    'peers-only': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    'budget-minutes': { type: 'string', default: '40' },
  },
});
const num = (k) => Number(args[k]);
const { quick, smoke } = args;
const store = args.store;
if (!['postgres', 'mongodb'].includes(store)) throw new Error(`--store postgres|mongodb, not ${store}`);
const selected = new Set(args.only ? args.only.split(',').map((x) => x.trim()) : WORKLOADS);
const unknown = [...selected].filter((w) => !WORKLOADS.includes(w));
if (unknown.length)
  throw new Error(`unknown workload(s) ${unknown.join(', ')}; known: ${WORKLOADS.join(', ')}`);
const has = (...names) => names.some((n) => selected.has(n));
// Smallest (smoke), small (quick) and full sizes; explicit options win over --quick only.
const pick = (full, q, s) => (smoke ? s : quick ? q : full);
const cfg = {
  load: {
    seconds: pick(num('seconds'), 2, 1),
    warmupSeconds: pick(num('warmup'), 1, 0),
    rounds: pick(num('rounds'), 1, 1),
    maxRequests: num('max-requests'),
  },
  docs: pick(num('docs'), 1000, 100),
  // at least half the connections (20): an account's logins in flight stay under the auth
  // service's per-account limit (10 attempts before a success)
  users: pick(num('users'), 10, 10),
  uploadMaxRequests: pick(1000, 200, 20),
  small: pick(num('small'), 1000, 100),
  large: pick(num('large'), 10_000, 500),
  tenants: {
    // through the API on the MongoDB wire target: 10,000 projects would take hours
    projects: args.tenants ? num('tenants') : pick(store === 'postgres' ? 10_000 : 200, 200, 10),
    collections: pick(num('tenant-collections'), 10, 2),
    docsPerCollection: pick(num('tenant-docs'), 10, 2),
  },
  idle: {
    seconds: pick(num('idle-seconds'), 10, 3),
    settleSeconds: pick(num('idle-settle-seconds'), 20, 1),
    projects: pick(num('idle-projects'), 100, 20),
  },
  uploadMemory: { concurrent: 20, mb: 10, batches: pick(3, 1, 1) },
  gateway: { requests: pick(3000, 1000, 200) },
};
const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const BENCH_DIR = process.env.BAAS_BENCH_DIR || path.join(os.homedir(), '.cache', 'baas-bench');
const RUN_DIR = path.join(BENCH_DIR, 'run');
const OUT_DIR =
  args.out ?? (smoke ? path.join(os.tmpdir(), 'baas-bench-smoke') : path.join(ROOT, 'bench', 'results'));

const git = (...a) => spawnSync('git', a, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const meta = {
  date: new Date().toISOString().slice(0, 10),
  machine: os.hostname().replace(/[^A-Za-z0-9_.-]/g, '_'),
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  syscallMicros: syscallMicros({ rounds: SYSCALL_ROUNDS }),
  syscallRounds: SYSCALL_ROUNDS,
  node: process.version,
  postgres: 'PostgreSQL',
  store,
  mode: smoke ? 'smoke' : quick ? 'quick' : 'full',
  workloads: [...selected],
  commit: git('rev-parse', '--short', 'HEAD'),
  dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
  loadStart: loadavg(),
  load: {
    autocannon: JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/autocannon/package.json'), 'utf8'))
      .version,
    vegeta: vegetaVersion(BENCH_DIR),
    ...LOAD,
    ...cfg.load,
  },
  docs: cfg.docs,
  users: cfg.users,
  small: cfg.small,
  large: cfg.large,
  tags: TAGS,
  tenants: {
    ...cfg.tenants,
    documents: cfg.tenants.projects * cfg.tenants.collections * cfg.tenants.docsPerCollection,
  },
  idle: cfg.idle,
  seeding: [],
  notes: [],
};
const results = {};
const systems = [];
const cleanups = [];

// Bounded in time whatever happens: past the budget the run cleans up and exits.
const watchdog = setTimeout(
  () => {
    log(`budget of ${args['budget-minutes']} minutes exceeded: stopping`);
    void finish(new Error('time budget exceeded')).then(() => process.exit(2));
  },
  num('budget-minutes') * 60_000,
);
process.on('SIGINT', () => void finish(new Error('interrupted')).then(() => process.exit(130)));

// extra.rate: open-loop at that many requests per second (vegeta) instead of closed-loop autocannon
const run = async (label, scenario, extra = {}) => {
  const r = extra.rate
    ? await measureAtRate(scenario, { ...cfg.load, rate: extra.rate, benchDir: BENCH_DIR })
    : await measure(scenario, { ...cfg.load, ...extra });
  log(
    `${label.padEnd(40)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.latencyMs.p50.toFixed(1)} ms  ` +
      `p99 ${r.latencyMs.p99.toFixed(1)} ms  non-2xx ${r.non2xx}  errors ${r.errors}`,
  );
  return r;
};

/** VACUUM ANALYZE and one CHECKPOINT before measuring; why, and on what, in bench/lib/settle.mjs. */
async function settleDatabases(ctx) {
  const parse = systems.find((s) => s.key === 'parse');
  await settle(settlePlan({ store, peersOnly: args['peers-only'], parse: Boolean(parse) }), {
    env: ctx.env,
    adminUrl: ctx.env.POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL,
    parseDatabase: parse?.database,
  });
}

/** Ours (unless --peers-only) and, when a side-by-side workload runs, the peers; seeded alike. */
async function setUpSystems(ctx) {
  const { env } = ctx;
  const peersWanted = has(...SIDE_BY_SIDE);
  if (!args['peers-only']) {
    const ours = await createOurProject(env, 'compare');
    cleanups.push(() => ours.remove());
    systems.push(ours);
  }
  if (peersWanted) {
    log('starting the peers');
    fs.rmSync(RUN_DIR, { recursive: true, force: true });
    fs.mkdirSync(RUN_DIR, { recursive: true });
    cleanups.push(() => fs.rmSync(RUN_DIR, { recursive: true, force: true }));
    const adminUrl = env.POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL;
    systems.push(await startPocketBase(BENCH_DIR, RUN_DIR));
    const parse = await startParse(BENCH_DIR, RUN_DIR, adminUrl);
    cleanups.push(() => dropParseDatabase(adminUrl));
    systems.push(parse);
  }
  const data = await seedSystems(ctx, systems);
  await settleDatabases(ctx);
  ctx.settleDatabases = () => settleDatabases(ctx);
  meta.notes.push(
    "VACUUM ANALYZE, then a CHECKPOINT, ran on the PostgreSQL databases after each bulk of seeding and before each group's fixed-rate runs (what autovacuum and the checkpointer would do shortly after a bulk of writes, done before measuring so that they do not run during a measurement); PocketBase manages its SQLite itself.",
  );
  return data;
}

let finishing = null;
function finish(error) {
  finishing ??= (async () => {
    clearTimeout(watchdog);
    if (error) {
      meta.incomplete = error.message;
      log(`ERROR: ${error.stack ?? error.message}`);
    }
    meta.loadEnd = loadavg();
    meta.clients = {
      addresses: clients.addresses,
      requestsPerAddress: clients.perAddress,
      atOnce: clients.atOnce,
    };
    if (Object.keys(results).length) {
      const { base, md } = await writeReport(OUT_DIR, {
        meta,
        systems: systems.map(({ name, key, store: s }) => ({ name, key, store: s })),
        results,
      });
      process.stdout.write(`\n${md}\n`);
      log(`report: ${path.relative(ROOT, base) || base}.md, .json and .svg`);
    }
    await stopAll();
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (e) {
        log(`clean-up step failed: ${e.message}`);
      }
    }
  })();
  return finishing;
}

try {
  const started = Date.now();
  if (has(...SIDE_BY_SIDE)) {
    const setup = spawnSync('bash', [path.join(ROOT, 'bench', 'install-peers.sh')], { stdio: 'inherit' });
    if (setup.status !== 0) throw new Error('bench/install-peers.sh failed');
  }
  let env = readStackEnv();
  if (args['peers-only']) {
    meta.notes.push('Peers only (--peers-only): our system was not measured in this run.');
    for (const w of ['idle-cpu', 'gateway', 'memory', 'scale', 'tenants']) selected.delete(w);
  } else {
    const stack = await ensureStack(store);
    env = stack.env;
    cleanups.push(stack.restore);
  }
  meta.postgres = await postgresVersion(env.POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL);
  const ctx = { env, cfg, args, meta, results, cleanups, run, log, store, selected };
  // RSS right after (re)start, while V8 still holds the young generation it grew loading modules
  // (it gives it back on its own 10-60 s later), and idle: after the services have rested through
  // the idle-CPU window (or as long without it). The target is judged on idle.
  if (has('memory')) memorySnapshot(ctx, 'start');
  const removeIdleProjects = has('idle-cpu') ? await idleCpu(ctx) : undefined;
  if (!removeIdleProjects && has('memory')) await sleep((cfg.idle.settleSeconds + cfg.idle.seconds) * 1000);
  if (has('memory')) memorySnapshot(ctx, 'idle');
  await removeIdleProjects?.();
  if (has(...SIDE_BY_SIDE, 'gateway', 'memory', 'tenants')) {
    const data = await setUpSystems(ctx);
    const ours = systems.find((s) => s.key === 'ours');
    // The ceiling of a login: raw argon2 for a round's length after each round of logins (the
    // machine drifts by 15 % and more within minutes on a shared VM; the peers idle, as in ours').
    if (has('login') && ours) {
      const params = authArgon2Params(env);
      ctx.rawLogin = async () => {
        const r = await rawArgon2(params, cfg.load.seconds);
        log(
          `raw argon2id verify: ${r.perSecond.toFixed(1)}/s (m=${params.memoryCost} KiB, t=${params.timeCost}, p=${params.parallelism}, ${params.concurrency} at once)`,
        );
        return r;
      };
    }
    if (has(...SIDE_BY_SIDE)) await sideBySide(ctx, systems, data);
    if (results.argon2Rounds) results.argon2 = combineRaw(results.argon2Rounds);
    // the peers are idle from here on: stopped
    for (const s of systems) if (s.process) await stopOne(s.process);
    if (ours && has('gateway')) await gatewayOverhead(ctx, ours);
    if (ours && has('memory')) await uploadMemory(ctx, ours);
    if (has('scale')) await scale(ctx);
    if (ours && has('tenants')) await tenants(ctx, ours, data.ids.ours);
  } else if (has('scale')) {
    await scale(ctx);
  }
  if (has('memory')) memorySnapshot(ctx, 'after');
  meta.minutes = (Date.now() - started) / 60_000;
  await finish();
  const failed = failures(results);
  if (smoke && failed.length) {
    log(`smoke FAILED: ${failed.join('; ')}`);
    process.exit(1);
  }
  log(`done in ${meta.minutes.toFixed(1)} min${smoke ? ': smoke passed (every workload answered 2xx)' : ''}`);
  process.exit(0);
} catch (e) {
  await finish(e);
  process.exit(1);
}

async function postgresVersion(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return `PostgreSQL ${(await c.query('SHOW server_version')).rows[0].server_version}`;
  } finally {
    await c.end();
  }
}
