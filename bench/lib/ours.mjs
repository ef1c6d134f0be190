// Our system, measured through the gateway of the stack `node scripts/stack.mjs up` runs, on the
// store it runs on (PostgreSQL, or FerretDB with BAAS_STORE=mongodb). The bench's clients are a
// population of addresses (bench/lib/population.mjs) behind the bench as their proxy: the stack's
// services are restarted with TRUST_PROXY=1 and the product's default rate limits and, at the
// end, restarted again with the caller's own settings (or stopped, when the bench started them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { call, multipart } from './http.mjs';
import { clients, REQUESTS_PER_ADDRESS } from './population.mjs';
import { log } from './process.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What the bench's stack runs with: the bench is the one proxy its clients come through (one hop:
 * natively the gateway sees it on loopback, under Docker Compose at the bridge's address, so
 * `loopback` would not do there), and the per-IP limits are the product's (the caller's own
 * RATE_LIMIT_* are left out). While the bench runs, a client that reaches the gateway's port
 * could choose its address; before the population, the bench raised the limits to 100 million
 * instead, which left no limit at all.
 */
export const BENCH_STACK_ENV = { TRUST_PROXY: '1' };
const LEFT_OUT = [
  'RATE_LIMIT_GLOBAL_POINTS',
  'RATE_LIMIT_GLOBAL_WINDOW_SECONDS',
  'RATE_LIMIT_AUTH_POINTS',
  'RATE_LIMIT_AUTH_WINDOW_SECONDS',
];

/** `.stack/env` (or another file of `.stack/`, e.g. `secrets.env`) as an object; {} when absent. */
export function readStackEnv(name = 'env') {
  const file = `${ROOT}/.stack/${name}`;
  if (!fs.existsSync(file)) return {};
  return Object.fromEntries(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('=') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** `node scripts/stack.mjs <command>`; with `bench`, in the bench's environment. */
function stack(command, store, bench) {
  log(`node scripts/stack.mjs ${command}${bench ? ' (TRUST_PROXY=1, default rate limits)' : ''}`);
  const env = { ...process.env, BAAS_STORE: store };
  if (bench) {
    for (const k of LEFT_OUT) delete env[k];
    Object.assign(env, BENCH_STACK_ENV);
  }
  const r = spawnSync(process.execPath, ['scripts/stack.mjs', command], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env,
  });
  if (r.status !== 0)
    throw new Error(`node scripts/stack.mjs ${command} failed (exit ${r.status}); see .stack/logs/`);
}

async function answers(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status < 500;
  } catch {
    return false;
  }
}

/** The gateway's rate-limit headers for one request from `address`. */
async function limitSeenBy(baseUrl, address) {
  const res = await fetch(`${baseUrl}/api/data/bench-probe`, {
    headers: { 'x-forwarded-for': address },
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return {
    limit: Number(res.headers.get('ratelimit-limit') ?? 0),
    remaining: Number(res.headers.get('ratelimit-remaining') ?? -1),
  };
}

/**
 * Throws unless the gateway counts the bench's clients apart, each under a limit that leaves
 * room for its requests: two addresses it has not seen each start a window of their own (behind
 * an untrusted proxy both would be 127.0.0.1, the second one count lower).
 */
export async function checkClientsCountedApart(baseUrl, population = clients) {
  const first = await limitSeenBy(baseUrl, population.address(-1));
  const second = await limitSeenBy(baseUrl, population.address(-2));
  if (first.remaining !== first.limit - 1 || second.remaining !== second.limit - 1) {
    throw new Error(
      `the gateway does not count clients by X-Forwarded-For (RateLimit-Remaining ${first.remaining} then ${second.remaining} of ${first.limit} for two new addresses): it must trust the hop in front of it (TRUST_PROXY=1 node scripts/stack.mjs restart)`,
    );
  }
  if (first.limit < 2 * REQUESTS_PER_ADDRESS) {
    throw new Error(
      `the gateway allows ${first.limit} requests per address and window: the bench sends ${REQUESTS_PER_ADDRESS} per address and needs at least twice that`,
    );
  }
}

/**
 * Brings the stack up on `store` for the bench (BENCH_STACK_ENV); returns how to leave it as it
 * was found. A stack that already runs on the other store is not switched (someone else may be
 * using it).
 */
export async function ensureStack(store = 'postgres') {
  const before = readStackEnv();
  // `up` leaves .stack/mode until `down`: a stack someone brought up stays up after the bench
  const wasUp = fs.existsSync(`${ROOT}/.stack/mode`);
  if (before.BASE_URL && storeOf(before) !== store && (await answers(`${before.BASE_URL}/readyz`))) {
    throw new Error(
      `the running stack is on ${storeOf(before)}, not ${store}: bring it up with BAAS_STORE=${store} first (the bench does not switch a running stack)`,
    );
  }
  stack('up', store, true);
  const env = readStackEnv();
  if (storeOf(env) !== store) throw new Error(`the stack came up on ${storeOf(env)}, not ${store}`);
  // Services that were already running are restarted, whatever their settings: a run measures
  // processes that start with it (their RSS at start and idle, their heaps, their pools), not
  // what earlier work left in them (a stack that had served profiling read 85 MB idle, 73 fresh),
  // and with the bench's environment.
  if (wasUp) stack('restart', store, true);
  await checkClientsCountedApart(env.BASE_URL);
  return {
    env: readStackEnv(),
    restore: () => {
      // a stack the bench brought up is stopped; one that was running gets the caller's settings back
      if (!wasUp) stack('down', store, false);
      else stack('restart', store, false);
    },
  };
}

/** What the running stack stores documents in, for labels ('postgres' or 'mongodb'). */
export function storeOf(env) {
  return env.STORE === 'mongodb' ? 'mongodb' : 'postgres';
}

const STORE_LABEL = { postgres: 'PostgreSQL', mongodb: 'FerretDB' };

/**
 * The web app the bench's browser clients come from: the project allows only this origin, and
 * every request made with the publishable key (signup, login, a user's reads) carries it, so the
 * gateway checks it and answers with CORS headers as it does for a browser.
 */
export const BENCH_ORIGIN = 'https://app.bench.example';

/**
 * A project with one collection `items` ({ title, n, tag, owner }) under RLS (private mode,
 * owner field `owner`: a user token reads its own documents, the secret key all of them), and
 * our API as a bench system. Requests carry the secret key unless a workload says otherwise.
 */
export async function createOurProject(env, label) {
  const admin = { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}` };
  const base = env.BASE_URL;
  const store = storeOf(env);
  const project = (
    await call('POST', `${base}/api/admin/projects`, {
      headers: admin,
      expect: [201],
      body: {
        name: `bench-${label}`,
        settings: {
          limits: { documents: 10_000_000, storageBytes: 1_000_000_000_000 },
          allowedOrigins: [BENCH_ORIGIN],
        },
      },
    })
  ).json;
  await call('PUT', `${base}/api/admin/projects/${project.id}/collections/items`, {
    headers: admin,
    expect: [200, 201],
    body: {
      schema: {
        fields: [
          { key: 'title', type: 'String' },
          { key: 'n', type: 'Number' },
          // declared as on PocketBase and Parse (an index on tag, one on the owner)
          { key: 'tag', type: 'String', index: true },
          { key: 'owner', type: 'String', index: true },
        ],
      },
      rls: { enabled: true, mode: 'private', ownerField: 'owner' },
    },
  });
  const headers = { 'x-api-key': project.secretKey };
  const browser = { 'x-api-key': project.publishableKey, origin: BENCH_ORIGIN };
  const items = '/api/data/items';
  return {
    name: `ours (gateway, ${STORE_LABEL[store]})`,
    key: 'ours',
    store:
      store === 'mongodb' ? 'FerretDB (MongoDB wire) on PostgreSQL' : 'PostgreSQL (shared documents table)',
    storeKey: store,
    projectId: project.id,
    project: { id: project.id, secretKey: project.secretKey, settings: project.settings },
    baseUrl: base,
    headers,
    docBody: (doc) => doc,
    async create(doc) {
      const r = await call('POST', `${base}${items}`, { headers, body: doc, expect: [201] });
      return r.json._id;
    },
    async createUser(email, password) {
      const r = await call('POST', `${base}/api/userAuth/signup`, {
        headers: browser,
        body: { email, password },
        expect: [201],
      });
      return { id: r.json.user._id, token: r.json.accessToken };
    },
    /** A user's reads: the publishable key and the user's access token. */
    userHeaders: (token) => ({ ...browser, authorization: `Bearer ${token}` }),
    login: (email, password) => ({
      path: '/api/userAuth/login',
      method: 'POST',
      headers: browser,
      body: { email, password },
    }),
    upload: (bytes) => multipart('/api/storage/upload', bytes),
    aggregate: () => ({
      path: `${items}/aggregate`,
      method: 'POST',
      body: { pipeline: [{ $group: { _id: '$tag', count: { $sum: 1 } } }] },
    }),
    async remove() {
      await call('DELETE', `${base}/api/admin/projects/${project.id}`, {
        headers: admin,
        expect: [200, 404],
      });
    },
    paths: {
      list: () => `${items}?sort=-createdAt&limit=20`,
      get: (id) => `${items}/${id}`,
      filter: (tag) => `${items}?tag=${tag}&sort=-createdAt&limit=20`,
      cursor: (c) => `${items}?sort=-createdAt&limit=20&cursor=${c}`,
      create: () => items,
    },
    /** Page n of 20 newest first, by cursor (page 1: an empty cursor). */
    async pagePath(n) {
      if (n <= 1) return `${items}?sort=-createdAt&limit=20&cursor=`;
      const r = await call('GET', `${base}${items}?sort=-createdAt&limit=20&page=${n - 1}`, {
        headers,
        expect: [200],
      });
      if (!r.json.data.nextCursor) throw new Error(`no cursor after page ${n - 1}`);
      return `${items}?sort=-createdAt&limit=20&cursor=${r.json.data.nextCursor}`;
    },
    pageMethod: 'cursor (keyset)',
  };
}

/**
 * Cursors spread over the whole collection: the nextCursor of `samples` pages of 100 taken at
 * evenly spaced depths (any page hands over to cursor pagination in the same order).
 */
export async function cursorsAcross(system, total, samples = 20) {
  // pages of 100 (smaller for tiny collections), never the last page (it has no next cursor)
  const size = total >= 200 ? 100 : Math.max(1, Math.floor(total / 4));
  const pages = Math.max(1, Math.floor(total / size));
  const cursors = [];
  for (let k = 0; k < samples; k++) {
    const page = 1 + Math.floor((k * (pages - 1)) / samples);
    const r = await call(
      'GET',
      `${system.baseUrl}/api/data/items?sort=-createdAt&limit=${size}&page=${page}`,
      {
        headers: system.headers,
        expect: [200],
      },
    );
    if (r.json.data.nextCursor) cursors.push(r.json.data.nextCursor);
  }
  if (cursors.length === 0) throw new Error('no cursor could be taken');
  return cursors;
}
