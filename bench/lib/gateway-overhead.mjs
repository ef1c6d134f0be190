// Gateway overhead: the same request sent straight to the data service (with a gateway assertion
// signed here, with the key only the gateway holds) and through the gateway (key lookup, rate
// limit in Redis for the client's address, assertion, proxy hop), interleaved in rounds so both
// see the same machine state. Used by bench/gateway-overhead.mjs (alone) and bench/run.mjs (in the
// report).
import http from 'node:http';
import { createPrivateKey } from 'node:crypto';
import { withClientAddress } from './population.mjs';
import { cpuSeconds } from './procstat.mjs';
import { workspaceModule } from './workspace-module.mjs';

/** As packages/common/src/assertion.ts signs it. */
const { SignJWT } = workspaceModule('packages/common', 'jose');

/** The gateway signs one assertion per caller and reuses it for 30 s: so does the direct path. */
const REUSE_MS = 30_000;

function requester(concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const request = (url, headers) =>
    new Promise((resolve, reject) => {
      const req = http.request(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
      req.end();
    });
  return { request, close: () => agent.destroy() };
}

/** `requests` requests, `concurrency` in flight; throughput, p50, p99 and statuses. */
async function run(requests, concurrency, makeRequest) {
  const latencies = [];
  const statuses = {};
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
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
  const non2xx = Object.entries(statuses).reduce((a, [s, n]) => a + (s >= 200 && s < 300 ? 0 : n), 0);
  return { rps: requests / seconds, p50: p(0.5), p99: p(0.99), statuses, non2xx };
}

/** A function returning a valid assertion for the data service, as the gateway would sign it. */
export function assertionFor(secrets, project) {
  const key = createPrivateKey(secrets.GATEWAY_ASSERTION_PRIVATE_KEY.replace(/\\n/g, '\n'));
  const s = project.settings;
  let cached = null;
  let signedAt = 0;
  return () => {
    if (!cached || Date.now() - signedAt > REUSE_MS) {
      signedAt = Date.now();
      cached = new SignJWT({
        adm: false,
        pid: project.id,
        kt: 'secret',
        set: {
          publicSignups: s.publicSignups,
          requireEmailVerification: s.requireEmailVerification,
          limits: s.limits,
        },
      })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'baas-assertion+jwt' })
        .setIssuer('baas-gateway')
        .setAudience('data')
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(key);
    }
    return cached;
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * GET `path` (a data route) direct vs through the gateway: a warm-up of each, then `rounds`
 * interleaved rounds of `requests`; medians. project: { id, secretKey, settings }.
 * With `bare` ({ url, pid }: bench/lib/bare-proxy.mjs in front of the data service), a third way
 * through that proxy (the gateway's client headers plus the assertion), and with `pids`
 * ({ name: pid }) the CPU microseconds per request each of those processes spent in each way.
 */
export async function compareGatewayDirect({
  env,
  secrets,
  project,
  path,
  requests,
  concurrency,
  rounds,
  bare,
  pids = {},
}) {
  const { request, close } = requester(concurrency);
  const assertion = assertionFor(secrets, project);
  const ways = {
    direct: async () => request(`${env.DATA_URL}${path}`, { 'x-gateway-assertion': await assertion() }),
    // through the gateway as the bench's clients send everything: many addresses, each under its limit
    gateway: () => request(`${env.BASE_URL}${path}`, withClientAddress({ 'x-api-key': project.secretKey })),
  };
  if (bare)
    ways.bare = async () =>
      request(
        `${bare.url}${path}`,
        withClientAddress({ 'x-api-key': project.secretKey, 'x-gateway-assertion': await assertion() }),
      );
  const watched = Object.entries(bare ? { ...pids, 'bare proxy': bare.pid } : pids);
  try {
    for (const way of Object.values(ways)) await run(Math.min(requests, 500), concurrency, way);
    const results = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      for (const [name, way] of Object.entries(ways)) {
        const before = watched.map(([, pid]) => cpuSeconds(pid));
        const result = await run(requests, concurrency, way);
        result.cpuUs = Object.fromEntries(
          watched.map(([label, pid], i) => [label, ((cpuSeconds(pid) - before[i]) * 1e6) / requests]),
        );
        results[name].push(result);
      }
    }
    const summary = (rs) => ({
      rps: median(rs.map((r) => r.rps)),
      p50Ms: median(rs.map((r) => r.p50)),
      p99Ms: median(rs.map((r) => r.p99)),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
      statuses: rs.at(-1).statuses,
      cpuUs: Object.fromEntries(watched.map(([label]) => [label, median(rs.map((r) => r.cpuUs[label]))])),
    });
    const d = summary(results.direct);
    const g = summary(results.gateway);
    const out = { path, requests, concurrency, rounds, direct: d, gateway: g, ratio: g.rps / d.rps };
    if (bare) {
      out.bare = summary(results.bare);
      out.bareRatio = out.bare.rps / d.rps;
    }
    return out;
  } finally {
    close();
  }
}
