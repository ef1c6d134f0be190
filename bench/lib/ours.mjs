// Our system, measured through the gateway of the stack `node scripts/stack.mjs up` runs, on the
// store it runs on (PostgreSQL, or FerretDB with BAAS_STORE=mongodb). The bench needs the per-IP rate limits out of the way: when the
// running gateway enforces a lower limit, its services are restarted with raised limits and,
// at the end, restarted again with the caller's own settings.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { call, multipart } from './http.mjs';
import { log } from './process.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Enough for every request of a run from one address in one window. */
const RAISED_POINTS = 100_000_000;

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

function stack(command, extraEnv) {
  log(
    `node scripts/stack.mjs ${command}${extraEnv?.RATE_LIMIT_GLOBAL_POINTS ? ' (rate limits raised for the bench)' : ''}`,
  );
  const r = spawnSync(process.execPath, ['scripts/stack.mjs', command], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...extraEnv },
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

/** The global per-IP limit the running gateway enforces (from its RateLimit-Limit header). */
async function gatewayLimit(baseUrl) {
  const res = await fetch(`${baseUrl}/api/data/bench-probe`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  return Number(res.headers.get('ratelimit-limit') ?? 0);
}

/**
 * Brings the stack up on `store` with raised limits; returns how to leave it as it was found. A
 * stack that already runs on the other store is not switched (someone else may be using it).
 */
export async function ensureStack(store = 'postgres') {
  const raised = {
    RATE_LIMIT_GLOBAL_POINTS: String(RAISED_POINTS),
    RATE_LIMIT_AUTH_POINTS: String(RAISED_POINTS),
  };
  const before = readStackEnv();
  // `up` leaves .stack/mode until `down`: a stack someone brought up stays up after the bench
  const wasUp = fs.existsSync(`${ROOT}/.stack/mode`);
  if (before.BASE_URL && storeOf(before) !== store && (await answers(`${before.BASE_URL}/readyz`))) {
    throw new Error(
      `the running stack is on ${storeOf(before)}, not ${store}: bring it up with BAAS_STORE=${store} first (the bench does not switch a running stack)`,
    );
  }
  stack('up', { ...raised, BAAS_STORE: store });
  const env = readStackEnv();
  if (storeOf(env) !== store) throw new Error(`the stack came up on ${storeOf(env)}, not ${store}`);
  // Services that were already running are restarted, whatever their limits: a run measures
  // processes that start with it (their RSS at start and idle, their heaps, their pools), not
  // what earlier work left in them (a stack that had served profiling read 85 MB idle, 73 fresh).
  const lowerLimits = (await gatewayLimit(env.BASE_URL)) < RAISED_POINTS;
  if (wasUp) {
    stack('restart', { ...raised, BAAS_STORE: store });
    const limit = await gatewayLimit(env.BASE_URL);
    if (limit < RAISED_POINTS) throw new Error(`the gateway still limits to ${limit} requests per window`);
  }
  return {
    env: readStackEnv(),
    restore: () => {
      // a stack the bench brought up is stopped (it runs with the bench's raised limits); one that
      // ran with lower limits gets them back
      if (!wasUp) stack('down');
      else if (lowerLimits) stack('restart', { BAAS_STORE: store });
    },
  };
}

/** What the running stack stores documents in, for labels ('postgres' or 'mongodb'). */
export function storeOf(env) {
  return env.STORE === 'mongodb' ? 'mongodb' : 'postgres';
}

const STORE_LABEL = { postgres: 'PostgreSQL', mongodb: 'FerretDB' };

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
        settings: { limits: { documents: 10_000_000, storageBytes: 1_000_000_000_000 } },
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
        headers: { 'x-api-key': project.publishableKey },
        body: { email, password },
        expect: [201],
      });
      return { id: r.json.user._id, token: r.json.accessToken };
    },
    /** A user's reads: the publishable key and the user's access token. */
    userHeaders: (token) => ({ 'x-api-key': project.publishableKey, authorization: `Bearer ${token}` }),
    login: (email, password) => ({
      path: '/api/userAuth/login',
      method: 'POST',
      headers: { 'x-api-key': project.publishableKey },
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
