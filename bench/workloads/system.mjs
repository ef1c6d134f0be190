// Ours alone: what the system costs at rest and in memory, and what the gateway hop costs.
//   idle-cpu  CPU of every process of ours over N s idle, with M projects registered;
//   memory    RSS of each service idle and after the run; the storage service's peak RSS during
//             20 concurrent 10 MB uploads;
//   gateway   list-20 straight to the data service vs through the gateway.
import crypto from 'node:crypto';
import { call, multipart, runConcurrently } from '../lib/http.mjs';
import { compareGatewayDirect } from '../lib/gateway-overhead.mjs';
import { readStackEnv } from '../lib/ours.mjs';
import {
  cpuSeconds,
  ourProcessGroups,
  peakRssDuring,
  rssMB,
  serviceRss,
  stackPids,
} from '../lib/procstat.mjs';
import { sleep } from '../lib/process.mjs';

export async function idleCpu(ctx) {
  const { env, cfg, log, results, cleanups } = ctx;
  const admin = { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}` };
  const n = cfg.idle.projects;
  const t = Date.now();
  const ids = await runConcurrently(n, 20, async (i) => {
    const r = await call('POST', `${env.BASE_URL}/api/admin/projects`, {
      headers: admin,
      body: { name: `bench-idle-${i}` },
      expect: [201],
    });
    return r.json.id;
  });
  const remove = () =>
    runConcurrently(ids.length, 20, (i) =>
      call('DELETE', `${env.BASE_URL}/api/admin/projects/${ids[i]}`, { headers: admin, expect: [200, 404] }),
    );
  cleanups.push(remove);
  log(`idle CPU: ${n} projects registered in ${((Date.now() - t) / 1000).toFixed(1)} s; settling 5 s`);
  await sleep(5000);
  const groups = ourProcessGroups(env);
  if (!Object.keys(groups).length) {
    results.idleCpu = { na: 'no pid files in .stack/pids (Docker mode?)' };
    return;
  }
  const before = new Map(
    Object.values(groups)
      .flat()
      .map((pid) => [pid, cpuSeconds(pid)]),
  );
  log(`idle CPU: measuring ${cfg.idle.seconds} s`);
  await sleep(cfg.idle.seconds * 1000);
  // PostgreSQL backends that started meanwhile count from zero
  const after = ourProcessGroups(env);
  const byGroup = {};
  for (const [name, pids] of Object.entries(after)) {
    const used = pids.reduce((a, pid) => a + Math.max(0, cpuSeconds(pid) - (before.get(pid) ?? 0)), 0);
    byGroup[name] = (100 * used) / cfg.idle.seconds;
  }
  const total = Object.values(byGroup).reduce((a, x) => a + x, 0);
  results.idleCpu = { projects: n, seconds: cfg.idle.seconds, percentOfCore: total, byGroup };
  log(`idle CPU: ${total.toFixed(2)} % of a core in total`);
  await remove();
  cleanups.splice(cleanups.indexOf(remove), 1);
}

/** RSS of each service now, as `results.memory[label]`. */
export function memorySnapshot(ctx, label) {
  const rss = serviceRss();
  ctx.results.memory ??= {};
  ctx.results.memory[label] = Object.keys(rss).length ? rss : null;
}

/** Peak RSS of the storage service during `concurrent` uploads of `mb` MB at once, `batches` times. */
export async function uploadMemory(ctx, ours) {
  const { cfg, results, log } = ctx;
  const pid = stackPids().storage;
  if (!pid) {
    results.uploadMemory = { na: 'no pid file for the storage service (Docker mode?)' };
    return;
  }
  const { concurrent, mb, batches } = cfg.uploadMemory;
  const spec = multipart('/api/storage/upload', crypto.randomBytes(mb * 1_000_000));
  await sleep(1000);
  const idle = rssMB(pid);
  const statuses = {};
  const { peakMB } = await peakRssDuring(pid, async () => {
    for (let b = 0; b < batches; b++) {
      await runConcurrently(concurrent, concurrent, async () => {
        const r = await call('POST', `${ours.baseUrl}${spec.path}`, {
          headers: { ...ours.headers, ...spec.headers },
          raw: spec.body,
        });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      });
    }
  });
  const non2xx = Object.entries(statuses).reduce((a, [s, n]) => a + (s >= 200 && s < 300 ? 0 : n), 0);
  results.uploadMemory = {
    concurrent,
    mb,
    batches,
    idleMB: idle,
    peakMB,
    perUploadMB: (peakMB - idle) / concurrent,
    statuses,
    non2xx,
  };
  log(
    `uploads: storage RSS ${idle.toFixed(0)} MB idle, ${peakMB.toFixed(0)} MB peak during ${concurrent} x ${mb} MB`,
  );
}

export async function gatewayOverhead(ctx, ours) {
  const { env, cfg, results, log } = ctx;
  const r = await compareGatewayDirect({
    env,
    secrets: readStackEnv('secrets.env'),
    project: ours.project,
    path: ours.paths.list(),
    requests: cfg.gateway.requests,
    concurrency: 20,
    rounds: cfg.load.rounds,
  });
  results.gateway = r;
  log(
    `gateway/direct list-20: ${r.gateway.rps.toFixed(0)} / ${r.direct.rps.toFixed(0)} req/s = ${r.ratio.toFixed(2)}`,
  );
}
