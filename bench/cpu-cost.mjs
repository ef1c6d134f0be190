#!/usr/bin/env node
// CPU cost per request, by process: the gateway, the data service, the PostgreSQL backends
// serving the data service, Redis and NATS (whole servers: run it on a quiet machine), read
// from /proc before and after a batch of requests (the scheduler's nanoseconds of every thread
// where the kernel keeps them: bench/lib/procstat.mjs). CPU time per
// request does not depend much on what else the machine runs (unlike req/s on a shared 2-core
// machine), so it is the figure to watch while working on the request path; `npm run bench`
// remains the side-by-side judge.
//
//   node bench/cpu-cost.mjs [--base http://127.0.0.1:8080] [--requests 4000] [--concurrency 16]
//                           [--ops get,list,filter,create,aggregate,login,upload] [--docs 1000] [--rate 50]
//
// --rate: at most that many requests a second (each one starts at its turn), so that costs can be
// compared at equal rates: a process woken for every request pays more per request than one
// that finds several waiting.
//
// login: email and password through the gateway, with the auth service's CPU in its own column
// (argon2 runs on its libuv threads, counted there) and the PostgreSQL backends of both services.
//
// upload: a 1 MB file (multipart, as the side-by-side bench sends it) through the gateway, with
// the storage service and the S3 server (S3_ENDPOINT, versitygw here) in columns of their own.
//
// Requests come from the bench's client population (bench/lib/population.mjs: X-Forwarded-For,
// 10 requests per address), so the gateway must trust this machine as its proxy
// (`TRUST_PROXY=1 node scripts/stack.mjs restart`, what bench/run.mjs does). Processes are
// found by the ports they listen on.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { checkClientsCountedApart, readStackEnv } from './lib/ours.mjs';
import { withClientAddress } from './lib/population.mjs';
import { multipart } from './lib/http.mjs';
import { CPU_CLOCK_NOTE, cpuSeconds } from './lib/procstat.mjs';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    via: { type: 'string' },
    data: { type: 'string' },
    auth: { type: 'string' },
    requests: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '16' },
    ops: { type: 'string', default: 'get,list,create' },
    docs: { type: 'string', default: '1000' },
    rate: { type: 'string' },
  },
});
const env = readStackEnv();
const BASE = args.base ?? env.BASE_URL ?? 'http://127.0.0.1:8080';
/** Where the measured requests go (default: the gateway the project was set up through). */
const VIA = args.via ?? BASE;
const DATA = args.data ?? env.DATA_URL ?? 'http://127.0.0.1:8082';
const AUTH = args.auth ?? env.AUTH_URL ?? 'http://127.0.0.1:8081';
const STORAGE = env.STORAGE_URL ?? 'http://127.0.0.1:8083';
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const OPS = args.ops.split(',');
const DOCS = Number(args.docs);
const RATE = args.rate === undefined ? undefined : Number(args.rate);
if (RATE !== undefined && !(RATE > 0)) throw new Error('--rate takes a positive number of requests a second');
await checkClientsCountedApart(BASE);

function pidOnPort(port) {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(out);
  if (!m) throw new Error(`nothing listens on port ${port}`);
  return Number(m[1]);
}

function postgresBackends(clientPids) {
  // the backends whose clients are these services: their peer ports belong to its sockets
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', 'dport = :5432'], { encoding: 'utf8' });
  const ports = out
    .split('\n')
    .filter((l) => clientPids.some((pid) => l.includes(`pid=${pid},`)))
    .map((l) => l.trim().split(/\s+/)[2].split(':').pop());
  const server = execFileSync('ss', ['-tnpH', 'state', 'established', 'sport = :5432'], {
    encoding: 'utf8',
  });
  return server
    .split('\n')
    .filter((l) => ports.some((p) => l.includes(`:${p} `) || l.trim().split(/\s+/)[3]?.endsWith(`:${p}`)))
    .map((l) => Number(/pid=(\d+)/.exec(l)?.[1]))
    .filter(Boolean);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function request(method, path, headers, body, base = BASE) {
  return new Promise((resolve, reject) => {
    const options = { method, agent, headers: withClientAddress(headers) };
    const req = http.request(`${base}${path}`, options, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function json(method, path, headers, body, expect) {
  const r = await request(
    method,
    path,
    { 'content-type': 'application/json', ...headers },
    body === undefined ? undefined : JSON.stringify(body),
  );
  if (!expect.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
  return r.body ? JSON.parse(r.body) : undefined;
}

const admin = { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}` };
// room for the upload op's files (the default quota holds about a hundred of them)
const settings = { limits: { storageBytes: 1_000_000_000_000 } };
const project = await json('POST', '/api/admin/projects', admin, { name: 'cpu-cost', settings }, [201]);
await json(
  'PUT',
  `/api/admin/projects/${project.id}/collections/items`,
  admin,
  {
    schema: {
      fields: [
        { key: 'title', type: 'String' },
        { key: 'n', type: 'Number' },
        // indexed, as in the side-by-side bench (creates keep its entries and counts)
        { key: 'tag', type: 'String', index: true },
      ],
    },
  },
  [200, 201],
);
const key = { 'x-api-key': project.secretKey };
const ids = [];
for (let i = 0; i < DOCS; i += 50) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(50, DOCS - i) }, (_, k) =>
      json(
        'POST',
        '/api/data/items',
        key,
        { title: `t${i + k}`, n: i + k, tag: `tag${(i + k) % 100}` },
        [201],
      ),
    ),
  );
  for (const d of batch) ids.push(d.data?._id ?? d._id);
}

/** Users for the login op (its account throttle clears on success; 10 share the load). */
const USERS = 10;
const PASSWORD = 'cpu-cost-password-1';
const emails = [];
if (OPS.includes('login')) {
  for (let u = 0; u < USERS; u++) {
    const email = `cpu-cost-${u}@example.com`;
    await json(
      'POST',
      '/api/userAuth/signup',
      { 'x-api-key': project.publishableKey },
      { email, password: PASSWORD },
      [201],
    );
    emails.push(email);
  }
}

const gatewayPid = pidOnPort(new URL(VIA).port || 80);
const dataPid = pidOnPort(new URL(DATA).port);
const authPid = pidOnPort(new URL(AUTH).port);
const upload = multipart('/api/storage/upload', randomBytes(1024 * 1024));
const opHeaders = {
  login: { 'x-api-key': project.publishableKey, 'content-type': 'application/json' },
  upload: { ...key, ...upload.headers },
};
const ops = {
  login: (i) => [
    'POST',
    '/api/userAuth/login',
    JSON.stringify({ email: emails[i % USERS], password: PASSWORD }),
  ],
  get: (i) => ['GET', `/api/data/items/${ids[i % ids.length]}`],
  list: () => ['GET', '/api/data/items?sort=-createdAt&limit=20'],
  filter: (i) => ['GET', `/api/data/items?tag=tag${i % 100}&sort=-createdAt&limit=20`],
  create: (i) => ['POST', '/api/data/items', JSON.stringify({ title: `c${i}`, n: i, tag: `tag${i % 100}` })],
  upload: () => ['POST', upload.path, upload.body],
  // the side-by-side bench's aggregation: $group by tag with a count over the whole collection
  aggregate: () => [
    'POST',
    '/api/data/items/aggregate',
    JSON.stringify({ pipeline: [{ $group: { _id: '$tag', count: { $sum: 1 } } }] }),
  ],
};

console.log(
  `${VIA} (gateway pid ${gatewayPid}, data pid ${dataPid}, auth pid ${authPid}); ${REQUESTS} requests per op, ` +
    `${CONCURRENCY} in flight; CPU microseconds per request (${CPU_CLOCK_NOTE})`,
);
/** Redis (the gateway's limits) and NATS (the events of writes), when they answer on this machine. */
function optionalPid(url, fallbackPort) {
  try {
    return [pidOnPort(url ? new URL(url.split(',')[0]).port || fallbackPort : fallbackPort)];
  } catch {
    return [];
  }
}
const redisPids = optionalPid(env.REDIS_URL, 6379);
const natsPids = optionalPid(env.NATS_URL, 4222);
const storagePids = optionalPid(STORAGE, 8083);
const s3Pids = env.S3_ENDPOINT ? optionalPid(env.S3_ENDPOINT, 80) : [];

/** Every PostgreSQL process (backends of any client, and the server's own: WAL writer, autovacuum...). */
function allPostgres() {
  try {
    return execFileSync('pgrep', ['-x', 'postgres'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

console.log(
  'op      gateway    data    auth storage  postgres   redis    nats      s3   total   wall req/s   statuses   (pg all)',
);
for (const op of OPS) {
  const backends = postgresBackends([dataPid, authPid, ...storagePids]);
  const pids = {
    gateway: [gatewayPid],
    data: [dataPid],
    auth: [authPid],
    storage: storagePids,
    postgres: backends,
    redis: redisPids,
    nats: natsPids,
    s3: s3Pids,
  };
  const before = Object.fromEntries(
    Object.entries(pids).map(([k, ps]) => [k, ps.reduce((s, p) => s + cpuSeconds(p), 0)]),
  );
  const pgBefore = new Map(allPostgres().map((p) => [p, cpuSeconds(p)]));
  const statuses = {};
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const i = next++;
        if (RATE) {
          const due = Number(started) / 1e6 + (i * 1000) / RATE - Number(process.hrtime.bigint()) / 1e6;
          if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
        }
        const [method, path, body] = ops[op](i);
        const r = await request(
          method,
          path,
          opHeaders[op] ?? { ...key, 'content-type': 'application/json' },
          body,
          VIA,
        );
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const per = Object.fromEntries(
    Object.entries(pids).map(([k, ps]) => [
      k,
      ((ps.reduce((s, p) => s + cpuSeconds(p), 0) - before[k]) * 1e6) / REQUESTS,
    ]),
  );
  const total = Object.values(per).reduce((a, b) => a + b, 0);
  // processes that ended meanwhile are missed; those born meanwhile count whole
  const pgAll =
    (allPostgres().reduce((s, p) => s + cpuSeconds(p) - (pgBefore.get(p) ?? 0), 0) * 1e6) / REQUESTS;
  console.log(
    `${op.padEnd(7)} ${per.gateway.toFixed(0).padStart(7)} ${per.data.toFixed(0).padStart(7)} ${per.auth.toFixed(0).padStart(7)} ` +
      `${per.storage.toFixed(0).padStart(7)} ${per.postgres.toFixed(0).padStart(9)} ${per.redis.toFixed(0).padStart(7)} ` +
      `${per.nats.toFixed(0).padStart(7)} ${per.s3.toFixed(0).padStart(7)} ` +
      `${total.toFixed(0).padStart(7)} ` +
      `${(REQUESTS / seconds).toFixed(0).padStart(10)}   ${JSON.stringify(statuses)}   (${pgAll.toFixed(0)})`,
  );
}
if (!process.env.CPU_COST_KEEP)
  await json('DELETE', `/api/admin/projects/${project.id}`, admin, undefined, [200]);
agent.destroy();
