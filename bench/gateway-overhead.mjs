#!/usr/bin/env node
// Gateway overhead: the same request sent straight to the data service (with a valid gateway
// assertion) and through the gateway (key lookup, rate limit in Redis, assertion, proxy hop),
// interleaved in one run so both see the same machine state. Reports throughput, latency
// percentiles and the ratio gateway/direct. Needs `TRUST_PROXY=loopback npm run up` (each
// request carries its own X-Forwarded-For so the per-IP limit does not turn the run into 429s).
//
//   node bench/gateway-overhead.mjs [--requests 3000] [--concurrency 16] [--rounds 3]
import http from 'node:http';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { readStackEnv } from './lib/ours.mjs';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
  },
});
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);

const env = readStackEnv();
// the bench stands in for the gateway: only it (and this) holds the signing key
const secrets = readStackEnv('secrets.env');
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

async function run(label, makeRequest) {
  const latencies = [];
  const statuses = {};
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const t = process.hrtime.bigint();
        const s = await makeRequest();
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        statuses[s] = (statuses[s] ?? 0) + 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { label, rps: REQUESTS / seconds, p50: p(0.5), p99: p(0.99), statuses };
}

const admin = await fetch(`${env.BASE_URL}/api/admin/projects`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}`,
    'content-type': 'application/json',
    'x-forwarded-for': '10.250.0.1',
  },
  body: JSON.stringify({ name: 'bench' }),
});
if (admin.status !== 201) throw new Error(`cannot create a project: ${admin.status} ${await admin.text()}`);
const project = await admin.json();
const key = createPrivateKey(secrets.GATEWAY_ASSERTION_PRIVATE_KEY.replace(/\\n/g, '\n'));
const settings = project.settings;
const path = '/api/data/bench-unregistered';

const direct = async () => {
  const assertion = await new SignJWT({
    rid: 'bench',
    adm: false,
    pid: project.id,
    kt: 'secret',
    set: {
      publicSignups: settings.publicSignups,
      requireEmailVerification: settings.requireEmailVerification,
      limits: settings.limits,
    },
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'baas-assertion+jwt' })
    .setIssuer('baas-gateway')
    .setAudience('data')
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);
  return request(`${env.DATA_URL}${path}`, { 'x-gateway-assertion': assertion });
};
const viaGateway = () =>
  request(`${env.BASE_URL}${path}`, {
    'x-api-key': project.secretKey,
    'x-forwarded-for': `10.${randomBytes(3).join('.')}`,
  });

// Warm up both paths (JIT, caches, pooled sockets).
await run('warm-direct', direct);
await run('warm-gateway', viaGateway);
const results = { direct: [], gateway: [] };
for (let r = 0; r < ROUNDS; r++) {
  results.direct.push(await run('direct', direct));
  results.gateway.push(await run('gateway', viaGateway));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = (rs) => ({
  rps: median(rs.map((r) => r.rps)),
  p50: median(rs.map((r) => r.p50)),
  p99: median(rs.map((r) => r.p99)),
  statuses: rs.at(-1).statuses,
});
const d = summary(results.direct);
const g = summary(results.gateway);
console.log(`requests per round ${REQUESTS}, concurrency ${CONCURRENCY}, rounds ${ROUNDS} (medians)`);
console.log(
  `direct to data service : ${d.rps.toFixed(0)} req/s  p50 ${d.p50.toFixed(2)} ms  p99 ${d.p99.toFixed(2)} ms  statuses ${JSON.stringify(d.statuses)}`,
);
console.log(
  `through the gateway    : ${g.rps.toFixed(0)} req/s  p50 ${g.p50.toFixed(2)} ms  p99 ${g.p99.toFixed(2)} ms  statuses ${JSON.stringify(g.statuses)}`,
);
console.log(
  `ratio gateway/direct throughput: ${(g.rps / d.rps).toFixed(2)}  (target >= 0.40 on 2 cores: one extra keep-alive hop plus a Redis round trip)`,
);
await fetch(`${env.BASE_URL}/api/admin/projects/${project.id}`, {
  method: 'DELETE',
  headers: { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}`, 'x-forwarded-for': '10.250.0.1' },
});
agent.destroy();
