// Ours alone: what the system costs at rest and in memory, and what the gateway hop costs.
//   idle-cpu  CPU of every process of ours over N s idle, with M projects registered;
//   memory    RSS of each service idle and after the run; the storage service's peak RSS during
//             20 concurrent 10 MB uploads;
//   gateway   list-20 straight to the data service vs through the gateway.
import crypto from 'node:crypto';
import { call, multipart, runConcurrently } from '../lib/http.mjs';
import { compareGatewayDirect } from '../lib/gateway-overhead.mjs';
import { startBareProxy } from '../lib/bare-proxy.mjs';
import { readStackEnv } from '../lib/ours.mjs';
import {
  CPU_CLOCK_NOTE,
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
  // the caller deletes the projects after its idle RSS snapshot (deleting 1,000 is a burst too)
  const release = async () => {
    cleanups.splice(cleanups.indexOf(remove), 1);
    await remove();
  };
  log(
    `idle CPU: ${n} projects registered in ${((Date.now() - t) / 1000).toFixed(1)} s; settling ${cfg.idle.settleSeconds} s`,
  );
  // After a burst, V8's memory reducer runs a few full collections once the process is quiet
  // (seen 30-80 s after the registrations, ~50-300 ms of CPU per service): that is the end of
  // the burst, not the cost of being idle, and the RSS it gives back is what idle looks like. The
  // settle window's CPU is reported beside the idle window's.
  const groups = ourProcessGroups(env);
  if (!Object.keys(groups).length) {
    results.idleCpu = { na: 'no pid files in .stack/pids (Docker mode?)' };
    return release;
  }
  const settle = await cpuOver(env, groups, cfg.idle.settleSeconds);
  log(`idle CPU: measuring ${cfg.idle.seconds} s`);
  const { byGroup, total } = await cpuOver(env, ourProcessGroups(env), cfg.idle.seconds);
  results.idleCpu = {
    clockNote: CPU_CLOCK_NOTE,
    projects: n,
    seconds: cfg.idle.seconds,
    percentOfCore: total,
    byGroup,
    settle: { seconds: cfg.idle.settleSeconds, percentOfCore: settle.total, byGroup: settle.byGroup },
  };
  log(`idle CPU: ${total.toFixed(2)} % of a core in total (settling: ${settle.total.toFixed(2)} %)`);
  return release;
}

/** Percent of a core each process group used over the next `seconds` (new PostgreSQL backends from zero). */
async function cpuOver(env, groups, seconds) {
  const before = new Map(
    Object.values(groups)
      .flat()
      .map((pid) => [pid, cpuSeconds(pid)]),
  );
  await sleep(seconds * 1000);
  const after = ourProcessGroups(env);
  const byGroup = {};
  for (const [name, pids] of Object.entries(after)) {
    const used = pids.reduce((a, pid) => a + Math.max(0, cpuSeconds(pid) - (before.get(pid) ?? 0)), 0);
    byGroup[name] = (100 * used) / seconds;
  }
  return { byGroup, total: Object.values(byGroup).reduce((a, x) => a + x, 0) };
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
  // a bare proxy hop beside the gateway's: what any proxy costs here before the gateway's work
  const bare = await startBareProxy(env.DATA_URL);
  const { gateway, data } = stackPids();
  try {
    const r = await compareGatewayDirect({
      env,
      secrets: readStackEnv('secrets.env'),
      project: ours.project,
      path: ours.paths.list(),
      requests: cfg.gateway.requests,
      concurrency: 20,
      rounds: cfg.load.rounds,
      bare,
      pids: { gateway, data },
    });
    results.gateway = { ...r, clockNote: CPU_CLOCK_NOTE };
    log(
      `gateway/direct list-20: ${r.gateway.rps.toFixed(0)} / ${r.direct.rps.toFixed(0)} req/s = ${r.ratio.toFixed(2)} (bare proxy ${r.bareRatio.toFixed(2)})`,
    );
  } finally {
    bare.stop();
  }
}
