#!/usr/bin/env node
// Gateway overhead alone (bench/run.mjs puts the same measurement in its report): the same GET
// straight to the data service (with a valid gateway assertion) and through the gateway, on a
// new project's unregistered collection (a 404 from the data service: the request path without
// the query) or, with --path, any data route. The logic is bench/lib/gateway-overhead.mjs.
// The requests through the gateway come from the bench's client population (X-Forwarded-For, 10
// requests per address): the gateway must trust this machine as its proxy (bench/run.mjs restarts
// it so, or `TRUST_PROXY=1 node scripts/stack.mjs restart`).
// --bare adds a third way: a bare Node proxy (bench/lib/bare-proxy.mjs: node:http and undici as
// the gateway, none of its work) in front of the data service, and prints the CPU each request
// cost the gateway, the bare proxy and the data service (/proc, the stack's pid files): what a
// hop costs on this machine before any check.
//
//   node bench/gateway-overhead.mjs [--requests 3000] [--concurrency 16] [--rounds 3] [--path /api/data/x]
//                                   [--bare] [--list]
// --list: the project gets a collection of 20 documents and the request is its list-20 (newest
// first, with the total: the report's gateway row) instead of --path.
import { parseArgs } from 'node:util';
import { call } from './lib/http.mjs';
import { compareGatewayDirect } from './lib/gateway-overhead.mjs';
import { checkClientsCountedApart, readStackEnv } from './lib/ours.mjs';
import { startBareProxy } from './lib/bare-proxy.mjs';
import { stackPids } from './lib/procstat.mjs';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    path: { type: 'string', default: '/api/data/bench-unregistered' },
    bare: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
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
let path = args.path;
if (args.list) {
  await call('PUT', `${env.BASE_URL}/api/admin/projects/${project.id}/collections/items`, {
    headers: admin,
    expect: [201],
    body: { schema: { fields: [{ key: 'title', type: 'String' }] } },
  });
  for (let i = 0; i < 20; i++)
    await call('POST', `${env.BASE_URL}/api/data/items`, {
      headers: { 'x-api-key': project.secretKey },
      body: { title: `document ${i}` },
      expect: [201],
    });
  path = '/api/data/items?sort=-createdAt&limit=20';
}
const bare = args.bare ? await startBareProxy(env.DATA_URL) : undefined;
const { gateway, data } = stackPids();
try {
  const r = await compareGatewayDirect({
    env,
    // the bench stands in for the gateway: only it (and this) holds the signing key
    secrets: readStackEnv('secrets.env'),
    project,
    path,
    requests: Number(args.requests),
    concurrency: Number(args.concurrency),
    rounds: Number(args.rounds),
    bare,
    pids: bare ? { gateway, data } : {},
  });
  const cpu = (x) =>
    Object.keys(x.cpuUs).length
      ? `  CPU per request: ${Object.entries(x.cpuUs)
          .map(([name, us]) => `${name} ${us.toFixed(0)} µs`)
          .join(', ')}`
      : '';
  const line = (label, x) =>
    `${label}: ${x.rps.toFixed(0)} req/s  p50 ${x.p50Ms.toFixed(2)} ms  p99 ${x.p99Ms.toFixed(2)} ms  statuses ${JSON.stringify(x.statuses)}${cpu(x)}`;
  console.log(
    `${r.path}: requests per round ${r.requests}, concurrency ${r.concurrency}, rounds ${r.rounds} (medians)`,
  );
  console.log(line('direct to data service', r.direct));
  if (r.bare) console.log(line('through a bare proxy   ', r.bare));
  console.log(line('through the gateway   ', r.gateway));
  if (r.bare) console.log(`ratio bare proxy/direct throughput: ${r.bareRatio.toFixed(2)}`);
  console.log(`ratio gateway/direct throughput: ${r.ratio.toFixed(2)}  (target >= 0.85)`);
} finally {
  bare?.stop();
  await call('DELETE', `${env.BASE_URL}/api/admin/projects/${project.id}`, { headers: admin });
}
