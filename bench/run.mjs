#!/usr/bin/env node
// `npm run bench`: our system (through the gateway of `node scripts/stack.mjs up`, on
// PostgreSQL) side by side with PocketBase and Parse Server, in one run on this machine, plus our
// own scale checks. Writes bench/results/<date>-<machine>.md and .json and prints the tables.
//
//   1. peers: bench/install-peers.sh (cached outside the repo), started on free ports;
//   2. 10,000 documents seeded through each system's API (same client, 20 in flight);
//   3. list-20, get-by-id, tag filter, then create: each system in turn, in rounds;
//   4. ours: list-20, tag filter, cursor page at 1,000 and at 100,000 documents (bulk-seeded);
//   5. ours: list-20 before and after 10,000 projects x 10 collections are put in the store.
// It stops what it started, deletes what it made and gives up after --budget-minutes.
//
//   node bench/run.mjs [--seconds 6] [--warmup 2] [--rounds 3] [--peers-only] [--quick]
//                      [--tenant-docs 10] [--keep-tenants] [--budget-minutes 19]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { TAGS, call, documentFor, runConcurrently } from './lib/http.mjs';
import { LOAD, measure } from './lib/load.mjs';
import { createOurProject, cursorsAcross, ensureStack, readStackEnv } from './lib/ours.mjs';
import { dropParseDatabase, startParse } from './lib/parse.mjs';
import { startPocketBase } from './lib/pocketbase.mjs';
import { log, stopAll, stopOne } from './lib/process.mjs';
import { summarize, writeReport } from './lib/report.mjs';
import { analyze, bulkSeed, dropTenants, seedTenants, tenantCount, withDataDb } from './lib/store-seed.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    'max-requests': { type: 'string', default: '100000' },
    docs: { type: 'string', default: '10000' },
    small: { type: 'string', default: '1000' },
    large: { type: 'string', default: '100000' },
    tenants: { type: 'string', default: '10000' },
    'tenant-collections': { type: 'string', default: '10' },
    'tenant-docs': { type: 'string', default: '10' },
    'keep-tenants': { type: 'boolean', default: false },
    'peers-only': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    'budget-minutes': { type: 'string', default: '19' },
  },
});
const num = (k) => Number(args[k]);
const quick = args.quick;
const cfg = {
  load: {
    seconds: quick ? 2 : num('seconds'),
    warmupSeconds: quick ? 1 : num('warmup'),
    rounds: quick ? 1 : num('rounds'),
    maxRequests: num('max-requests'),
  },
  docs: quick ? 1000 : num('docs'),
  small: num('small'),
  large: quick ? 10_000 : num('large'),
  tenants: {
    projects: quick ? 200 : num('tenants'),
    collections: num('tenant-collections'),
    docsPerCollection: num('tenant-docs'),
  },
};
const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const BENCH_DIR = process.env.BAAS_BENCH_DIR || path.join(os.homedir(), '.cache', 'baas-bench');
const RUN_DIR = path.join(BENCH_DIR, 'run');

const git = (...a) => spawnSync('git', a, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const date = new Date().toISOString().slice(0, 10);
const meta = {
  date,
  machine: os.hostname().replace(/[^A-Za-z0-9_.-]/g, '_'),
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  postgres: 'PostgreSQL',
  commit: git('rev-parse', '--short', 'HEAD'),
  dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
  loadStart: os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
  load: {
    autocannon: JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/autocannon/package.json'), 'utf8'))
      .version,
    ...LOAD,
    ...cfg.load,
  },
  docs: cfg.docs,
  small: cfg.small,
  large: cfg.large,
  tags: TAGS,
  tenants: {
    ...cfg.tenants,
    documents: cfg.tenants.projects * cfg.tenants.collections * cfg.tenants.docsPerCollection,
  },
  seeding: [],
  notes: [],
};
const results = {};
const systems = [];
const cleanups = [];

// Bounded in time whatever happens: past the budget the run cleans up and exits.
const budgetMs = num('budget-minutes') * 60_000;
const watchdog = setTimeout(() => {
  log(`budget of ${args['budget-minutes']} minutes exceeded: stopping`);
  void finish(new Error('time budget exceeded')).then(() => process.exit(2));
}, budgetMs);
process.on('SIGINT', () => void finish(new Error('interrupted')).then(() => process.exit(130)));

const scenario = (sys, next) => ({ baseUrl: sys.baseUrl, headers: sys.headers, next });
const run = async (label, sc) => {
  const r = await measure(sc, cfg.load);
  log(
    `${label.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.latencyMs.p50.toFixed(1)} ms  ` +
      `p99 ${r.latencyMs.p99.toFixed(1)} ms  non-2xx ${r.non2xx}  errors ${r.errors}`,
  );
  return r;
};

/** Seeds `count` documents through a system's API, 20 requests in flight; returns the ids. */
async function seedThroughApi(sys, count) {
  const t = Date.now();
  const ids = await runConcurrently(count, LOAD.connections, (i) => sys.create(documentFor(i)));
  const s = (Date.now() - t) / 1000;
  meta.seeding.push(
    `${sys.name}: ${count} documents through its API (POST one at a time, 20 in flight) in ${s.toFixed(1)} s`,
  );
  log(`${sys.key}: seeded ${count} documents in ${s.toFixed(1)} s`);
  return ids;
}

async function comparison(env) {
  log('starting the peers');
  fs.rmSync(RUN_DIR, { recursive: true, force: true });
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const adminUrl = env.POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL;
  const pb = await startPocketBase(BENCH_DIR, RUN_DIR);
  const parse = await startParse(BENCH_DIR, RUN_DIR, adminUrl);
  cleanups.push(() => dropParseDatabase(adminUrl));
  const peers = [pb, parse];
  if (!args['peers-only']) {
    const ours = await createOurProject(env, 'compare');
    cleanups.push(() => ours.remove());
    systems.push(ours);
  }
  systems.push(...peers);
  const ids = {};
  for (const sys of systems) ids[sys.key] = await seedThroughApi(sys, cfg.docs);
  if (!args['peers-only']) await withDataDb(env, analyze);
  const parseDb = new pg.Client({ connectionString: new URL(`/${parse.database}`, adminUrl).toString() });
  await parseDb.connect();
  await parseDb.query('VACUUM (ANALYZE)');
  await parseDb.end();
  meta.notes.push(
    'VACUUM ANALYZE ran on both PostgreSQL databases after each bulk of seeding (what autovacuum would do shortly after, done before measuring so that it does not run during a measurement); PocketBase manages its SQLite itself.',
  );

  const ops = {
    'list-20': (s) => scenario(s, () => ({ path: s.paths.list() })),
    get: (s) => scenario(s, (i) => ({ path: s.paths.get(ids[s.key][i % ids[s.key].length]) })),
    filter: (s) => scenario(s, (i) => ({ path: s.paths.filter(`tag-${i % TAGS}`) })),
    create: (s) =>
      scenario(s, (i) => ({ path: s.paths.create(), method: 'POST', body: documentFor(cfg.docs + i) })),
  };
  const raw = Object.fromEntries(Object.keys(ops).map((op) => [op, {}]));
  // reads first, create last (it changes the count); systems in rotating order each round
  for (const group of [['list-20', 'get', 'filter'], ['create']]) {
    for (let round = 0; round < cfg.load.rounds; round++) {
      const order = systems.map((_, i) => systems[(i + round) % systems.length]);
      for (const op of group) {
        for (const sys of order) {
          (raw[op][sys.key] ??= []).push(await run(`${op} ${sys.key} (round ${round + 1})`, ops[op](sys)));
        }
      }
    }
  }
  results.comparison = Object.fromEntries(
    Object.entries(raw).map(([op, by]) => [
      op,
      Object.fromEntries(Object.entries(by).map(([k, r]) => [k, summarize(r)])),
    ]),
  );
  for (const p of peers) await stopOne(p.process);
  return systems.find((s) => s.key === 'ours');
}

async function scale(env) {
  const sizes = { small: cfg.small, large: cfg.large };
  const projects = {};
  for (const [size, count] of Object.entries(sizes)) {
    const p = await createOurProject(env, `scale-${count}`);
    cleanups.push(() => p.remove());
    const t = Date.now();
    await withDataDb(env, (c) => bulkSeed(c, p.projectId, 'items', count));
    meta.seeding.push(
      `ours, ${count} documents: bulk INSERT straight into the data service's documents table in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );
    projects[size] = { sys: p, count };
  }
  await withDataDb(env, analyze);
  for (const p of Object.values(projects)) p.cursors = await cursorsAcross(p.sys, p.count);
  const ops = {
    'list-20': (p) => scenario(p.sys, () => ({ path: p.sys.paths.list() })),
    filter: (p) => scenario(p.sys, (i) => ({ path: p.sys.paths.filter(`tag-${i % TAGS}`) })),
    cursor: (p) => scenario(p.sys, (i) => ({ path: p.sys.paths.cursor(p.cursors[i % p.cursors.length]) })),
  };
  const raw = {};
  for (let round = 0; round < cfg.load.rounds; round++) {
    for (const op of Object.keys(ops)) {
      const order = round % 2 ? ['large', 'small'] : ['small', 'large'];
      for (const size of order) {
        ((raw[op] ??= {})[size] ??= []).push(
          await run(`${op} ${projects[size].count} docs (round ${round + 1})`, ops[op](projects[size])),
        );
      }
    }
  }
  results.scale = Object.fromEntries(
    Object.entries(raw).map(([op, by]) => [op, { small: summarize(by.small), large: summarize(by.large) }]),
  );
}

async function tenants(env, ours) {
  const t = cfg.tenants;
  const list = scenario(ours, () => ({ path: ours.paths.list() }));
  const measureList = async (label) => {
    const rounds = [];
    for (let r = 0; r < cfg.load.rounds; r++)
      rounds.push(await run(`list-20 ${label} (round ${r + 1})`, list));
    return summarize(rounds);
  };
  results.tenants = {};
  const first = await call('GET', `${ours.baseUrl}${ours.paths.list()}`, {
    headers: ours.headers,
    expect: [200],
  });
  meta.tenants.projectDocuments = first.json.data.total;
  const present = await withDataDb(env, (c) => tenantCount(c, t.projects));
  if (present > 0) {
    meta.notes.push(
      `${present} background collections were already in the store before the "without" measurement: the comparison is not clean.`,
    );
  }
  results.tenants.without = await measureList('without tenants');
  const started = Date.now();
  if (present === 0) {
    await withDataDb(env, async (c) => {
      await seedTenants(c, { ...t, like: { projectId: ours.projectId, name: 'items' } }, (n) => {
        if (n % 2000 === 0 || n === t.projects) log(`background tenants: ${n} / ${t.projects} projects`);
      });
      await analyze(c);
    });
  }
  if (!args['keep-tenants']) {
    // leave the shared store as found: rows gone, dead tuples vacuumed
    cleanups.push(() =>
      withDataDb(env, async (c) => {
        await dropTenants(c, t.projects);
        await analyze(c);
      }),
    );
  }
  meta.seeding.push(
    `background tenants: ${t.projects} projects x ${t.collections} collections x ${t.docsPerCollection} documents ` +
      `(${meta.tenants.documents} documents) bulk-inserted into the data service's collections/documents tables in ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s, then VACUUM ANALYZE`,
  );
  results.tenants.with = await measureList('with tenants');
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

let finishing = null;
function finish(error) {
  finishing ??= (async () => {
    clearTimeout(watchdog);
    if (error) {
      meta.incomplete = error.message;
      log(`ERROR: ${error.stack ?? error.message}`);
    }
    meta.loadEnd = os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    if (Object.keys(results).length) {
      const { base, md } = await writeReport(path.join(ROOT, 'bench', 'results'), {
        meta,
        systems: systems.map(({ name, key, store }) => ({ name, key, store })),
        results,
      });
      process.stdout.write(`\n${md}\n`);
      log(`report: ${path.relative(ROOT, base)}.md and .json`);
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
  const setup = spawnSync('bash', [path.join(ROOT, 'bench', 'install-peers.sh')], { stdio: 'inherit' });
  if (setup.status !== 0) throw new Error('bench/install-peers.sh failed');
  let env = readStackEnv();
  if (!args['peers-only']) {
    const stack = await ensureStack();
    env = stack.env;
    cleanups.push(stack.restore);
  } else {
    meta.notes.push('Peers only (--peers-only): our system was not measured in this run.');
  }
  meta.postgres = await postgresVersion(env.POSTGRES_ADMIN_URL || DEFAULT_ADMIN_URL);
  const ours = await comparison(env);
  if (ours) {
    await scale(env);
    await tenants(env, ours);
  }
  await finish();
  process.exit(0);
} catch (e) {
  await finish(e);
  process.exit(1);
}
