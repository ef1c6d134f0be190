// Our system, measured through the gateway of the stack `node scripts/stack.mjs up` runs, on its
// default store (PostgreSQL). The bench needs the per-IP rate limits out of the way: when the
// running gateway enforces a lower limit, its services are restarted with raised limits and,
// at the end, restarted again with the caller's own settings.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { call } from './http.mjs';
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
  log(`node scripts/stack.mjs ${command}${extraEnv ? ' (rate limits raised for the bench)' : ''}`);
  const r = spawnSync(process.execPath, ['scripts/stack.mjs', command], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...extraEnv },
  });
  if (r.status !== 0)
    throw new Error(`node scripts/stack.mjs ${command} failed (exit ${r.status}); see .stack/logs/`);
}

/** The global per-IP limit the running gateway enforces (from its RateLimit-Limit header). */
async function gatewayLimit(baseUrl) {
  const res = await fetch(`${baseUrl}/api/data/bench-probe`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  return Number(res.headers.get('ratelimit-limit') ?? 0);
}

/** Brings the stack up with raised limits; returns how to leave it as it was found. */
export async function ensureStack() {
  const raised = {
    RATE_LIMIT_GLOBAL_POINTS: String(RAISED_POINTS),
    RATE_LIMIT_AUTH_POINTS: String(RAISED_POINTS),
  };
  stack('up', raised);
  const env = readStackEnv();
  if (env.STORE && env.STORE !== 'postgres') log(`note: the stack runs on ${env.STORE}, not PostgreSQL`);
  let restarted = false;
  if ((await gatewayLimit(env.BASE_URL)) < RAISED_POINTS) {
    // the services were already running with the caller's (lower) limits
    stack('restart', raised);
    restarted = true;
    const limit = await gatewayLimit(env.BASE_URL);
    if (limit < RAISED_POINTS) throw new Error(`the gateway still limits to ${limit} requests per window`);
  }
  return {
    env: readStackEnv(),
    restore: () => {
      if (restarted) stack('restart');
    },
  };
}

/** A project with one collection `items` ({ title, n, tag }), and our API as a bench system. */
export async function createOurProject(env, label) {
  const admin = { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}` };
  const base = env.BASE_URL;
  const project = (
    await call('POST', `${base}/api/admin/projects`, {
      headers: admin,
      expect: [201],
      body: { name: `bench-${label}`, settings: { limits: { documents: 1_000_000 } } },
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
          // declared as on PocketBase and Parse (an index on tag)
          { key: 'tag', type: 'String', index: true },
        ],
      },
    },
  });
  const headers = { 'x-api-key': project.secretKey };
  const items = '/api/data/items';
  return {
    name: 'ours (gateway, PostgreSQL)',
    key: 'ours',
    store: 'PostgreSQL 15 (shared documents table)',
    projectId: project.id,
    baseUrl: base,
    headers,
    async create(doc) {
      const r = await call('POST', `${base}${items}`, { headers, body: doc, expect: [201] });
      return r.json._id;
    },
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
  };
}

/**
 * Cursors spread over the whole collection: the nextCursor of `samples` pages of 100 taken at
 * evenly spaced depths (any page hands over to cursor pagination in the same order).
 */
export async function cursorsAcross(system, total, samples = 20) {
  const pages = Math.max(1, Math.floor(total / 100));
  const cursors = [];
  for (let k = 0; k < samples; k++) {
    const page = 1 + Math.floor((k * (pages - 1)) / samples);
    const r = await call('GET', `${system.baseUrl}/api/data/items?sort=-createdAt&limit=100&page=${page}`, {
      headers: system.headers,
      expect: [200],
    });
    if (r.json.data.nextCursor) cursors.push(r.json.data.nextCursor);
  }
  if (cursors.length === 0) throw new Error('no cursor could be taken');
  return cursors;
}
