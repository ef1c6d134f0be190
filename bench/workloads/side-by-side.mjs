// The side-by-side workloads: ours (through the gateway), PocketBase and Parse, the same client,
// the same documents, in rounds with the systems in rotating order. A system without the feature
// gets "n/a" and the reason. With `fixed-rate` selected, each group of workloads is followed by
// a run of every system at half the slowest system's maximum for that workload (p99 at equal load).
import crypto from 'node:crypto';
import { TAGS, call, documentFor, runConcurrently } from '../lib/http.mjs';
import { LOAD } from '../lib/load.mjs';
import { summarize } from '../lib/report.mjs';

export const PASSWORD = 'bench-password-123456';
const email = (k) => `bench-user-${k}@example.test`;
const sc = (s, next, extra = {}) => ({ baseUrl: s.baseUrl, headers: s.headers, next, ...extra });
/** The token a login answer carries: ours accessToken, Parse sessionToken, PocketBase token. */
const tokenOf = (json) => json?.accessToken ?? json?.sessionToken ?? json?.token;

async function loginToken(s, k) {
  const spec = s.login(email(k), PASSWORD);
  const r = await call(spec.method, `${s.baseUrl}${spec.path}`, {
    headers: spec.headers,
    body: spec.body,
    expect: [200],
  });
  return tokenOf(r.json);
}

/**
 * Login requests for the users in turn, over all connections together (one counter, not each
 * connection's own from its random start), so that each account has about connections / users
 * attempts in flight. Ours refuses an account's attempts past LOGIN_ACCOUNT_MAX_ATTEMPTS (10)
 * until one of them succeeds: per connection, 9 of the smoke's 20 connections could start on one
 * account and a CI smoke got a 429.
 */
export function loginRequests(s, users) {
  let n = 0;
  return () => s.login(email(n++ % users), PASSWORD);
}

/**
 * The login row: 8 s of warm-up at least. At a few dozen logins a second, 2 s are ~100 requests and
 * a Node server's login code is still being compiled (the bench's client on ours went 46, 58, 60
 * logins/s over three rounds with the default warm-up).
 */
export function loginScenario(s, users) {
  return { baseUrl: s.baseUrl, headers: {}, next: loginRequests(s, users), minWarmupSeconds: 8 };
}

/**
 * Each workload: `rows(system, data)` → { rowName: scenario } (or a string: why the system does
 * not have it). Groups run in this order: reads, then writes (they change the counts).
 */
const WORKLOADS = {
  'list-20': { group: 'reads', rows: (s) => ({ 'list-20': sc(s, () => ({ path: s.paths.list() })) }) },
  get: {
    group: 'reads',
    rows: (s, d) => ({ get: sc(s, (i) => ({ path: s.paths.get(d.ids[s.key][i % d.ids[s.key].length]) })) }),
  },
  filter: {
    group: 'reads',
    rows: (s) => ({ filter: sc(s, (i) => ({ path: s.paths.filter(`tag-${i % TAGS}`) })) }),
  },
  cursor: {
    group: 'reads',
    async rows(s, d) {
      const [first, deep] = [await s.pagePath(1), await s.pagePath(d.deepPage)];
      return {
        'page-1': sc(s, () => ({ path: first })),
        [`page-${d.deepPage}`]: sc(s, () => ({ path: deep })),
      };
    },
  },
  rls: {
    group: 'reads',
    async rows(s, d) {
      // fresh tokens (ours live 15 minutes), one per user; connections rotate over the users
      const tokens = [];
      for (let k = 0; k < d.users; k++) tokens.push(await loginToken(s, k));
      return {
        'rls-list': {
          baseUrl: s.baseUrl,
          headers: {},
          next: (i) => ({ path: s.paths.list(), headers: s.userHeaders(tokens[i % tokens.length]) }),
        },
      };
    },
  },
  aggregate: {
    group: 'reads',
    rows: (s) => (s.aggregate ? { aggregate: sc(s, () => s.aggregate()) } : s.noAggregate),
  },
  create: {
    group: 'writes',
    rows: (s, d) => ({
      create: sc(s, (i) => ({
        path: s.paths.create(),
        method: 'POST',
        body: s.docBody({ ...documentFor(d.docs + i), owner: d.owners[s.key][i % d.users] }),
      })),
    }),
  },
  login: { group: 'auth', rows: (s, d) => ({ login: loginScenario(s, d.users) }) },
  upload: {
    group: 'files',
    rows(s, d) {
      const spec = s.upload(d.uploadBytes);
      return { 'upload-1mb': sc(s, () => spec, { maxRequests: d.uploadMaxRequests }) };
    },
  },
};
export const SIDE_BY_SIDE = Object.keys(WORKLOADS);
const GROUPS = ['reads', 'writes', 'auth', 'files'];
/** Workloads measured again at a fixed rate (p99 at equal load). */
const FIXED_RATE = new Set(['list-20', 'get', 'filter', 'rls-list', 'create']);

/**
 * Users and documents in each system through its API (the same client, 20 in flight): `users`
 * users, then `docs` documents { title, n, tag, owner } with owners in turn.
 */
export async function seedSystems(ctx, systems) {
  const { cfg, meta, log } = ctx;
  const data = {
    docs: cfg.docs,
    users: cfg.users,
    ids: {},
    owners: {},
    deepPage: Math.max(2, Math.min(500, Math.floor(cfg.docs / 20))),
    uploadBytes: crypto.randomBytes(1024 * 1024),
    uploadMaxRequests: cfg.uploadMaxRequests,
  };
  for (const s of systems) {
    const t = Date.now();
    const users = await runConcurrently(cfg.users, LOAD.connections, (k) => s.createUser(email(k), PASSWORD));
    data.owners[s.key] = users.map((u) => u.id);
    data.ids[s.key] = await runConcurrently(cfg.docs, LOAD.connections, (i) =>
      s.create(s.docBody({ ...documentFor(i), owner: data.owners[s.key][i % cfg.users] })),
    );
    const secs = ((Date.now() - t) / 1000).toFixed(1);
    meta.seeding.push(
      `${s.name}: ${cfg.users} users, then ${cfg.docs} documents owned by them in turn, through its API (one at a time, 20 in flight) in ${secs} s`,
    );
    log(`${s.key}: seeded ${cfg.users} users and ${cfg.docs} documents in ${secs} s`);
  }
  return data;
}

/** Runs the selected side-by-side workloads; fills results.comparison, .na and .fixedRate. */
export async function sideBySide(ctx, systems, data) {
  const { cfg, selected, results, run } = ctx;
  const raw = {};
  const fixed = {};
  results.na ??= {};
  for (const group of GROUPS) {
    const names = SIDE_BY_SIDE.filter((w) => WORKLOADS[w].group === group && selected.has(w));
    if (!names.length) continue;
    // scenarios per row and system (built once: cursors and tokens are taken here)
    const rows = {};
    for (const w of names) {
      for (const s of systems) {
        const r = await WORKLOADS[w].rows(s, data);
        if (typeof r === 'string') {
          (results.na[w] ??= {})[s.key] = r;
          continue;
        }
        for (const [row, scenario] of Object.entries(r)) (rows[row] ??= {})[s.key] = scenario;
      }
    }
    for (let round = 0; round < cfg.load.rounds; round++) {
      const order = systems.map((_, i) => systems[(i + round) % systems.length]);
      for (const [row, by] of Object.entries(rows)) {
        for (const s of order.filter((x) => by[x.key])) {
          ((raw[row] ??= {})[s.key] ??= []).push(
            await run(`${row} ${s.key} (round ${round + 1})`, by[s.key]),
          );
        }
        // raw argon2 right after each round's logins, in the same state of the machine
        if (row === 'login' && ctx.rawLogin) (results.argon2Rounds ??= []).push(await ctx.rawLogin());
      }
    }
    const fixedRows = Object.entries(rows).filter(([row]) => FIXED_RATE.has(row));
    if (!selected.has('fixed-rate') || !fixedRows.length) continue;
    // the throughput runs' writes vacuumed and checkpointed now, not during the runs below
    await ctx.settleDatabases?.();
    // As many rounds as the throughput runs, the systems' order rotating from round to round, and
    // the median p99 reported: one run's p99 is a handful of requests and moves by ~30 % on 2 cores.
    for (const [row, by] of fixedRows) {
      const keys = Object.keys(by);
      const slowest = Math.min(...keys.map((k) => summarize(raw[row][k]).rps));
      const rate = Math.max(1, Math.floor(slowest / 2));
      const runs = {};
      for (let round = 0; round < cfg.load.rounds; round++) {
        for (const k of keys.map((_, i) => keys[(i + round) % keys.length])) {
          (runs[k] ??= []).push(
            await run(`${row} ${k} at ${rate} req/s (round ${round + 1})`, by[k], { rate }),
          );
        }
      }
      fixed[row] = { rate, bySystem: Object.fromEntries(keys.map((k) => [k, summarize(runs[k])])) };
    }
  }
  results.comparison = Object.fromEntries(
    Object.entries(raw).map(([row, by]) => [
      row,
      Object.fromEntries(Object.entries(by).map(([k, r]) => [k, summarize(r)])),
    ]),
  );
  if (Object.keys(fixed).length) results.fixedRate = fixed;
  results.pageMethods = Object.fromEntries(systems.map((s) => [s.key, s.pageMethod]));
  results.deepPage = data.deepPage;
}
