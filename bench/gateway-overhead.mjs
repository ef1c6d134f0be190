#!/usr/bin/env node
// Gateway overhead alone (bench/run.mjs puts the same measurement in its report): the same GET
// straight to the data service (with a valid gateway assertion) and through the gateway, on a
// new project's unregistered collection (a 404 from the data service: the request path without
// the query) or, with --path, any data route. The logic is bench/lib/gateway-overhead.mjs.
// The requests through the gateway come from the bench's client population (X-Forwarded-For, 10
// requests per address): the gateway must trust this machine as its proxy (bench/run.mjs restarts
// it so, or `TRUST_PROXY=1 node scripts/stack.mjs restart`).
//
//   node bench/gateway-overhead.mjs [--requests 3000] [--concurrency 16] [--rounds 3] [--path /api/data/x]
import { parseArgs } from 'node:util';
import { call } from './lib/http.mjs';
import { compareGatewayDirect } from './lib/gateway-overhead.mjs';
import { checkClientsCountedApart, readStackEnv } from './lib/ours.mjs';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    path: { type: 'string', default: '/api/data/bench-unregistered' },
  },
});
const env = readStackEnv();
await checkClientsCountedApart(env.BASE_URL);
const admin = { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}` };
const project = (
  await call('POST', `${env.BASE_URL}/api/admin/projects`, {
    headers: admin,
    body: { name: 'bench' },
    expect: [201],
  })
).json;
try {
  const r = await compareGatewayDirect({
    env,
    // the bench stands in for the gateway: only it (and this) holds the signing key
    secrets: readStackEnv('secrets.env'),
    project,
    path: args.path,
    requests: Number(args.requests),
    concurrency: Number(args.concurrency),
    rounds: Number(args.rounds),
  });
  const line = (label, x) =>
    `${label}: ${x.rps.toFixed(0)} req/s  p50 ${x.p50Ms.toFixed(2)} ms  p99 ${x.p99Ms.toFixed(2)} ms  statuses ${JSON.stringify(x.statuses)}`;
  console.log(
    `${r.path}: requests per round ${r.requests}, concurrency ${r.concurrency}, rounds ${r.rounds} (medians)`,
  );
  console.log(line('direct to data service', r.direct));
  console.log(line('through the gateway   ', r.gateway));
  console.log(`ratio gateway/direct throughput: ${r.ratio.toFixed(2)}  (target >= 0.85)`);
} finally {
  await call('DELETE', `${env.BASE_URL}/api/admin/projects/${project.id}`, { headers: admin });
}
