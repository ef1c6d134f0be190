// The report: medians over rounds, ratios first (absolute numbers depend on the machine and on
// what else runs on it), written as markdown and json to bench/results/.
import fs from 'node:fs';
import * as prettier from 'prettier';
import { renderChart } from './chart.mjs';

export const SCALE_LIMIT = 1.5;
export const TENANT_LIMIT = 1.2;

/**
 * The tenants' cost: the mean latency with them over the mean of the "without" runs that bracket
 * it (before the seeding and, when measured, after the tenants were dropped).
 */
export function tenantCostRatio(t) {
  const without = t.withoutAfter ? (t.without.meanMs + t.withoutAfter.meanMs) / 2 : t.without.meanMs;
  return t.with.meanMs / without;
}
/** The issue's targets (ratios measured in one run). */
export const TARGETS = {
  list: { pocketbase: 1.5, parse: 2 },
  get: { pocketbase: 0.6, parse: 1 },
  create: { pocketbase: 0.6, parse: 1 },
  gateway: 0.85,
  p99VsBestPeer: 1,
  login: 0.85,
  idleRssMB: 80,
  perUploadMB: 5,
  idleCpuPercent: 2,
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

/** One line of a table: medians over the rounds, failures summed. */
export function summarize(rounds) {
  return {
    rounds: rounds.length,
    rps: median(rounds.map((r) => r.rps)),
    meanMs: median(rounds.map((r) => r.latencyMs.mean)),
    p50Ms: median(rounds.map((r) => r.latencyMs.p50)),
    p99Ms: median(rounds.map((r) => r.latencyMs.p99)),
    /** The lowest and highest p99 of the runs: how far one run's verdict can move. */
    p99RangeMs: rounds.length
      ? [Math.min(...rounds.map((r) => r.latencyMs.p99)), Math.max(...rounds.map((r) => r.latencyMs.p99))]
      : [NaN, NaN],
    rpsSpread: rounds.length
      ? Math.max(...rounds.map((r) => r.rps)) / Math.min(...rounds.map((r) => r.rps))
      : NaN,
    requests: rounds.reduce((a, r) => a + r.requests, 0),
    non2xx: rounds.reduce((a, r) => a + r.non2xx + r.warmupNon2xx, 0),
    errors: rounds.reduce((a, r) => a + r.errors + r.warmupErrors, 0),
    statuses: rounds.reduce((acc, r) => {
      for (const [k, v] of Object.entries(r.statuses)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
  };
}

const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const ratio = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) : '-');
/** ` [lowest-highest]` p99 of the runs when there was more than one (older results have none). */
const p99Range = (s) =>
  s.rounds > 1 && s.p99RangeMs ? ` [${f(s.p99RangeMs[0], 1)}-${f(s.p99RangeMs[1], 1)}]` : '';
const fails = (s) => (s.non2xx || s.errors ? `**${s.non2xx} / ${s.errors}**` : '0 / 0');

function comparisonTable(c, systems, na = {}) {
  const peers = systems.filter((s) => s.key !== 'ours');
  const head = [
    'operation',
    ...systems.map((s) => `${s.key} req/s (p50 ms)`),
    ...peers.map((p) => `ours/${p.key} req/s`),
    ...peers.map((p) => `ours/${p.key} p50`),
    'non-2xx / errors',
  ];
  const rows = Object.entries(c).map(([op, bySystem]) => {
    const s = Object.fromEntries(systems.map((x) => [x.key, bySystem[x.key]]));
    return [
      op,
      ...systems.map((x) =>
        s[x.key] ? `${f(s[x.key].rps)} (${f(s[x.key].p50Ms, 1)})` : na[op]?.[x.key] ? 'n/a' : '-',
      ),
      ...peers.map((p) => (s.ours && s[p.key] ? ratio(s.ours.rps, s[p.key].rps) : '-')),
      ...peers.map((p) => (s.ours && s[p.key] ? ratio(s.ours.p50Ms, s[p.key].p50Ms) : '-')),
      systems.map((x) => (s[x.key] ? `${x.key} ${fails(s[x.key])}` : '')).join(', '),
    ];
  });
  return table(head, rows);
}

function table(head, rows) {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

const ratioOf = (c, op, peer) => (c?.[op]?.ours && c?.[op]?.[peer] ? c[op].ours.rps / c[op][peer].rps : NaN);
const verdict = (value, limit, atMost = false) => ({
  value,
  limit,
  pass: Number.isFinite(value) ? (atMost ? value <= limit : value >= limit) : null,
});

/** Every target of the issue with its measured value: pass, fail or null (not measured). */
export function verdicts(results) {
  const out = {};
  const c = results.comparison;
  for (const [op, key] of [
    ['list-20', 'list'],
    ['get', 'get'],
    ['create', 'create'],
  ]) {
    for (const [peer, limit] of Object.entries(TARGETS[key]))
      out[`${op} ours/${peer} req/s >= ${limit}`] = verdict(ratioOf(c, op, peer), limit);
  }
  if (results.gateway)
    out[`gateway/direct list-20 req/s >= ${TARGETS.gateway}`] = verdict(
      results.gateway.ratio,
      TARGETS.gateway,
    );
  for (const [row, fr] of Object.entries(results.fixedRate ?? {})) {
    const peers = Object.entries(fr.bySystem).filter(([k]) => k !== 'ours');
    const best = Math.min(...peers.map(([, s]) => s.p99Ms));
    out[`${row} p99 at ${fr.rate} req/s, ours/best peer <= ${TARGETS.p99VsBestPeer}`] = verdict(
      fr.bySystem.ours && peers.length ? fr.bySystem.ours.p99Ms / best : NaN,
      TARGETS.p99VsBestPeer,
      true,
    );
  }
  for (const [op, sizes] of Object.entries(results.scale ?? {}))
    out[`${op} cost large/small <= ${SCALE_LIMIT}`] = verdict(
      sizes.large.meanMs / sizes.small.meanMs,
      SCALE_LIMIT,
      true,
    );
  if (results.argon2 && c?.login?.ours)
    out[`login ours/raw argon2 >= ${TARGETS.login}`] = verdict(
      c.login.ours.rps / results.argon2.perSecond,
      TARGETS.login,
    );
  if (results.memory?.idle) {
    for (const [svc, mb] of Object.entries(results.memory.idle))
      out[`${svc} RSS idle <= ${TARGETS.idleRssMB} MB`] = verdict(mb, TARGETS.idleRssMB, true);
  }
  if (results.uploadMemory?.perUploadMB !== undefined)
    out[`storage RSS per concurrent upload <= ${TARGETS.perUploadMB} MB`] = verdict(
      results.uploadMemory.perUploadMB,
      TARGETS.perUploadMB,
      true,
    );
  if (results.idleCpu?.percentOfCore !== undefined)
    out[`idle CPU with ${results.idleCpu.projects} projects < ${TARGETS.idleCpuPercent} % of a core`] =
      verdict(results.idleCpu.percentOfCore, TARGETS.idleCpuPercent, true);
  for (const [op, t] of Object.entries(results.tenants ?? {}))
    out[`${op} cost with/without background tenants <= ${TENANT_LIMIT}`] = verdict(
      tenantCostRatio(t),
      TENANT_LIMIT,
      true,
    );
  // every target of the issue appears, measured or not
  const missing = (prefix, name) => {
    if (!Object.keys(out).some((k) => k.startsWith(prefix))) out[name] = verdict(NaN, NaN);
  };
  missing('gateway/', `gateway/direct list-20 req/s >= ${TARGETS.gateway}`);
  missing('list-20 p99', `p99 at a fixed rate, ours/best peer <= ${TARGETS.p99VsBestPeer}`);
  for (const op of ['list-20', 'filter', 'cursor'])
    missing(`${op} cost large`, `${op} cost large/small <= ${SCALE_LIMIT}`);
  missing('login ours/raw', `login ours/raw argon2 >= ${TARGETS.login}`);
  missing('gateway RSS', `each service RSS idle <= ${TARGETS.idleRssMB} MB`);
  missing('storage RSS', `storage RSS per concurrent upload <= ${TARGETS.perUploadMB} MB`);
  missing('idle CPU', `idle CPU with 1000 projects < ${TARGETS.idleCpuPercent} % of a core`);
  return out;
}

/** What went wrong in a run: every row with non-2xx answers or connection errors. */
export function failures(results) {
  const out = [];
  const check = (label, s) => {
    if (s && (s.non2xx || s.errors))
      out.push(`${label}: ${s.non2xx} non-2xx, ${s.errors ?? 0} errors ${JSON.stringify(s.statuses ?? {})}`);
  };
  for (const [op, by] of Object.entries(results.comparison ?? {}))
    for (const [k, s] of Object.entries(by)) check(`${op} ${k}`, s);
  for (const [op, fr] of Object.entries(results.fixedRate ?? {}))
    for (const [k, s] of Object.entries(fr.bySystem)) check(`${op} ${k} at fixed rate`, s);
  for (const [op, by] of Object.entries(results.scale ?? {}))
    for (const [k, s] of Object.entries(by)) check(`scale ${op} ${k}`, s);
  for (const [op, by] of Object.entries(results.tenants ?? {}))
    for (const [k, s] of Object.entries(by)) check(`tenants ${op} ${k}`, s);
  if (results.gateway) {
    check('gateway direct', results.gateway.direct);
    check('gateway through', results.gateway.gateway);
    if (results.gateway.bare) check('gateway bare proxy', results.gateway.bare);
  }
  check('uploads 20 x 10 MB', results.uploadMemory);
  return out;
}

const passText = (v) => (v.pass === null ? 'not measured' : v.pass ? 'pass' : '**FAIL**');

function chartRows(results) {
  return Object.entries(results.comparison ?? {}).map(([name, by]) => ({
    name,
    bySystem: Object.fromEntries(Object.entries(by).map(([k, s]) => [k, { rps: s.rps, p99Ms: s.p99Ms }])),
  }));
}

/**
 * The machine's cost of a system call (bench/lib/machine.mjs), when the run measured it: what our
 * processes' loopback writes and wakeups cost there, and so much of a request's CPU. Runs before
 * `syscallRounds` was recorded took the fastest of 5.
 */
export function syscallNote(meta) {
  return typeof meta.syscallMicros === 'number'
    ? `, a system call from Node ${meta.syscallMicros.toFixed(2)} µs (process.ppid, fastest of ${meta.syscallRounds ?? 5} loops)`
    : '';
}

export function renderMarkdown(report, chartFile) {
  const { meta, results, systems } = report;
  const v = verdicts(results);
  const lines = [
    `# Bench ${meta.date} on ${meta.machine}${meta.mode === 'full' ? '' : ` (${meta.mode})`}`,
    '',
    `${meta.cpus} x ${meta.cpuModel}, ${meta.memoryGiB} GiB${syscallNote(meta)}, Node ${meta.node}, ${meta.postgres}; our store: **${meta.store}**; ` +
      `commit ${meta.commit}${meta.dirty ? ' (work tree not clean)' : ''}; load average at start ${meta.loadStart}, at end ${meta.loadEnd ?? '-'}` +
      `${meta.minutes ? `; ${meta.minutes.toFixed(1)} minutes` : ''}.`,
    '',
    `Load: autocannon ${meta.load.autocannon}, ${meta.load.connections} connections, keep-alive, pipelining ${meta.load.pipelining}, ` +
      `${meta.load.warmupSeconds} s warm-up (not counted) then ${meta.load.seconds} s measured per run (at most ${meta.load.maxRequests} requests), ` +
      `${meta.load.rounds} round(s) with the systems in rotating order; medians over rounds. Document shape { title, n, tag, owner } plus each system's own createdAt; ` +
      `tag has ${meta.tags} values (an equality filter matches 1%), tag and owner indexed on every system; ${meta.users} users own the documents in turn. ` +
      'Every system runs on this machine at the same time as the client. ' +
      (meta.clients
        ? `Clients: ${meta.clients.addresses} addresses (X-Forwarded-For from 10.0.0.0/8, ${meta.clients.requestsPerAddress} requests each${meta.clients.atOnce ? `, ${meta.clients.atOnce} at a time taking turns` : ''}; our gateway trusts the bench as its proxy and keeps its default per-IP limits in Redis); requests with the publishable key carry an allowed Origin. `
        : '') +
      'Workloads in this run: ' +
      `${meta.workloads.join(', ')}.`,
    '',
  ];
  if (meta.incomplete) lines.push(`**Incomplete run:** ${meta.incomplete}`, '');
  if (Object.keys(v).length) {
    lines.push(
      '## Targets',
      '',
      table(
        ['target', 'measured', 'verdict'],
        Object.entries(v).map(([name, x]) => [name, f(x.value, 2), passText(x)]),
      ),
      '',
    );
  }
  if (results.comparison) {
    const na = Object.entries(results.na ?? {}).flatMap(([op, by]) =>
      Object.entries(by).map(([k, why]) => `- ${op}, ${k}: n/a: ${why}`),
    );
    lines.push(
      `## Side by side at ${meta.docs.toLocaleString('en')} documents`,
      '',
      ...(chartFile ? [`![throughput and p99 per workload and system](${chartFile})`, ''] : []),
      comparisonTable(results.comparison, systems, results.na),
      '',
      ...systems.map((s) => `- ${s.key}: ${s.name}, ${s.store}`),
      ...na,
      '',
      'ours/peer req/s above 1 means we serve more requests per second; ours/peer p50 below 1 means our median answer is faster. ' +
        'list-20: the newest 20 with the total count (server key); get: one document by id (ids rotate over all documents); ' +
        'filter: tag equals one value, newest 20 with the total; ' +
        `page-1 / page-${results.deepPage ?? 500}: 20 newest first at that depth (ours by cursor, ${Object.entries(
          results.pageMethods ?? {},
        )
          .filter(([k]) => k !== 'ours')
          .map(([k, m]) => `${k} ${m}`)
          .join(', ')}); ` +
        'rls-list: the newest 20 a user may read, with a user token (ours: publishable key and Bearer under RLS private mode; PocketBase: list rule owner = @request.auth.id; Parse: per-object ACLs and a session token); ' +
        'aggregate: $group by tag with a count over the whole collection (Parse: master key); ' +
        'create: insert one document; login: email and password (each system its own hash: ours argon2id, PocketBase and Parse bcrypt); ' +
        'upload-1mb: one 1 MB file (ours and PocketBase multipart, Parse a raw body).',
      '',
    );
  }
  if (results.argon2) {
    const a = results.argon2;
    const ours = results.comparison?.login?.ours;
    lines.push(
      '## Login against raw argon2',
      '',
      `argon2id verify at the auth service's parameters (m=${a.memoryCost} KiB, t=${a.timeCost}, p=${a.parallelism}), ${a.concurrency} at once ` +
        `(PASSWORD_HASH_CONCURRENCY), in the bench process, for a round's length right after each round of logins (the peers idle, as during every system's logins): ` +
        `**${f(a.perSecond, 1)}/s**${a.rounds?.length > 1 ? ` (rounds ${a.rounds.map((x) => f(x, 1)).join(', ')})` : ''}; our login through the gateway: ${f(ours?.rps, 1)}/s ` +
        `(ratio ${ratio(ours?.rps, a.perSecond)}).`,
      '',
    );
  }
  if (results.fixedRate) {
    lines.push(
      '## p99 at a fixed rate',
      '',
      `Each system at half the slowest system's maximum for that workload, open-loop (vegeta ${meta.load.vegeta}: requests leave evenly spaced whatever the answers do, at most 20 connections, waits counted), ${meta.load.rounds} run(s) each in rotating order; p99 and p50 are the medians over the runs, and the brackets give the lowest and highest p99 of the runs (a run's top 1 % is a few dozen requests, and one stall of the machine, such as a slow WAL fsync, can fill it).`,
      '',
      table(
        [
          'operation',
          'rate req/s',
          ...systems.map((s) => `${s.key} p99 ms (p50) [p99 range]`),
          'ours/best peer p99',
        ],
        Object.entries(results.fixedRate).map(([row, fr]) => {
          const peers = Object.entries(fr.bySystem).filter(([k]) => k !== 'ours');
          return [
            row,
            fr.rate,
            ...systems.map((s) =>
              fr.bySystem[s.key]
                ? `${f(fr.bySystem[s.key].p99Ms, 1)} (${f(fr.bySystem[s.key].p50Ms, 1)})${p99Range(fr.bySystem[s.key])}`
                : '-',
            ),
            fr.bySystem.ours && peers.length
              ? ratio(fr.bySystem.ours.p99Ms, Math.min(...peers.map(([, s]) => s.p99Ms)))
              : '-',
          ];
        }),
      ),
      '',
    );
  }
  if (results.gateway) {
    const g = results.gateway;
    lines.push(
      '## Gateway overhead',
      '',
      `GET ${g.path}, ${g.requests} requests per round, ${g.concurrency} in flight, ${g.rounds} round(s) interleaved (medians); direct = straight to the data service with a gateway assertion signed by the bench (reused 30 s, as the gateway does)${g.bare ? "; bare proxy = node:http and undici's dispatch in front of the data service, as the gateway forwards, with none of its work (bench/lib/bare-proxy.mjs): what a hop costs on this machine before any check. CPU is per request, from /proc" + (g.clockNote ? ` (${g.clockNote})` : '') : ''}.`,
      '',
      table(
        ['', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', ...(g.bare ? ['proxy CPU µs', 'data CPU µs'] : [])],
        [
          [
            'direct',
            f(g.direct.rps),
            f(g.direct.p50Ms, 2),
            f(g.direct.p99Ms, 2),
            g.direct.non2xx,
            ...(g.bare ? ['', f(g.direct.cpuUs?.data)] : []),
          ],
          ...(g.bare
            ? [
                [
                  'through a bare proxy',
                  f(g.bare.rps),
                  f(g.bare.p50Ms, 2),
                  f(g.bare.p99Ms, 2),
                  g.bare.non2xx,
                  f(g.bare.cpuUs?.['bare proxy']),
                  f(g.bare.cpuUs?.data),
                ],
              ]
            : []),
          [
            'through the gateway',
            f(g.gateway.rps),
            f(g.gateway.p50Ms, 2),
            f(g.gateway.p99Ms, 2),
            g.gateway.non2xx,
            ...(g.bare ? [f(g.gateway.cpuUs?.gateway), f(g.gateway.cpuUs?.data)] : []),
          ],
          ...(g.bare ? [['bare proxy/direct', f(g.bareRatio, 2), '', '', '', '', '']] : []),
          ['gateway/direct', f(g.ratio, 2), '', '', '', ...(g.bare ? ['', ''] : [])],
        ],
      ),
      '',
    );
  }
  if (results.memory || results.uploadMemory) {
    const m = results.memory ?? {};
    const svcs = Object.keys(m.idle ?? m.after ?? {});
    lines.push('## Memory', '');
    if (svcs.length) {
      lines.push(
        table(
          ['service', 'RSS at start MB', 'RSS idle MB', 'RSS after the run MB'],
          svcs.map((s) => [s, f(m.start?.[s], 1), f(m.idle?.[s], 1), f(m.after?.[s], 1)]),
        ),
        '',
      );
    }
    const u = results.uploadMemory;
    if (u?.na) lines.push(`Uploads: n/a (${u.na}).`, '');
    else if (u)
      lines.push(
        `Storage service during ${u.concurrent} concurrent ${u.mb} MB uploads (${u.batches} batch(es)): ${f(u.idleMB, 1)} MB before, peak ${f(u.peakMB, 1)} MB ` +
          `(sampled every 10 ms): **${f(u.perUploadMB, 2)} MB per concurrent upload**; statuses ${JSON.stringify(u.statuses)}.`,
        '',
      );
  }
  if (results.idleCpu) {
    const c = results.idleCpu;
    if (c.na) lines.push('## Idle CPU', '', `n/a: ${c.na}`, '');
    else
      lines.push(
        '## Idle CPU',
        '',
        `With ${c.projects} projects registered, over ${c.seconds} s idle (${c.clockNote ?? 'utime+stime from /proc'}): **${f(c.percentOfCore, 2)} % of a core** in total.` +
          (c.settle
            ? ` Before that window, ${c.settle.seconds} s of settling right after the registrations: ${f(c.settle.percentOfCore, 2)} % of a core (${Object.entries(
                c.settle.byGroup,
              )
                .sort((a, b) => b[1] - a[1])
                .slice(0, 4)
                .map(([k, x]) => `${k} ${f(x, 2)}`)
                .join(', ')}, ...): V8's memory reducer collects after a burst once a process is quiet.`
            : ''),
        '',
        table(
          ['process', '% of a core'],
          Object.entries(c.byGroup)
            .sort((a, b) => b[1] - a[1])
            .map(([k, x]) => [k, f(x, 2)]),
        ),
        '',
      );
  }
  if (results.scale) {
    const rows = Object.entries(results.scale).map(([op, s]) => {
      const r = s.large.meanMs / s.small.meanMs;
      return [
        op,
        `${f(s.small.rps)} (${f(s.small.meanMs, 1)})`,
        `${f(s.large.rps)} (${f(s.large.meanMs, 1)})`,
        `${f(r, 2)} ${r <= SCALE_LIMIT ? 'pass' : '**FAIL**'} (<= ${SCALE_LIMIT})`,
        `${fails(s.small)}, ${fails(s.large)}`,
      ];
    });
    lines.push(
      `## Ours: ${meta.small.toLocaleString('en')} vs ${meta.large.toLocaleString('en')} documents in the collection`,
      '',
      table(
        [
          'operation',
          `${meta.small} docs req/s (mean ms)`,
          `${meta.large} docs req/s (mean ms)`,
          'cost ratio large/small',
          'non-2xx / errors',
        ],
        rows,
      ),
      '',
      'Cost is the mean latency at 20 connections. cursor: pages of 20 from cursors taken at 20 depths spread over the collection.',
      '',
    );
  }
  if (results.tenants) {
    const after = Object.values(results.tenants).some((t) => t.withoutAfter);
    lines.push(
      `## Ours: without and with ${meta.tenants.projects.toLocaleString('en')} x ${meta.tenants.collections} background tenants`,
      '',
      table(
        [
          'operation',
          'without req/s (mean ms)',
          `with (${meta.tenants.documents.toLocaleString('en')} more documents) req/s (mean ms)`,
          ...(after ? ['without, after dropping them, req/s (mean ms)'] : []),
          'cost ratio with/without',
          'non-2xx / errors',
        ],
        Object.entries(results.tenants).map(([op, t]) => {
          const r = tenantCostRatio(t);
          const cell = (s) => (s ? `${f(s.rps)} (${f(s.meanMs, 1)})` : '-');
          return [
            op,
            cell(t.without),
            cell(t.with),
            ...(after ? [cell(t.withoutAfter)] : []),
            `${f(r, 2)} ${r <= TENANT_LIMIT ? 'pass' : '**FAIL**'} (<= ${TENANT_LIMIT})`,
            [t.without, t.with, t.withoutAfter]
              .filter(Boolean)
              .map((s) => fails(s))
              .join(', '),
          ];
        }),
      ),
      '',
      ...(after
        ? [
            'The "without" runs bracket the "with" one (before the seeding, after the drop); the ratio is over their mean.',
            '',
          ]
        : []),
    );
  }
  lines.push('## How the data got there', '', ...meta.seeding.map((s) => `- ${s}`), '');
  if (meta.notes.length) lines.push('## Notes', '', ...meta.notes.map((s) => `- ${s}`), '');
  return lines.join('\n');
}

/** Writes .json, .md and the .svg chart, formatted by the repository's prettier settings. */
export async function writeReport(dir, report) {
  fs.mkdirSync(dir, { recursive: true });
  // a second run on the same day gets -2, -3, ...: a report is never overwritten
  const first = `${dir}/${report.meta.date}-${report.meta.machine}`;
  let base = first;
  for (let n = 2; ['md', 'json', 'svg'].some((e) => fs.existsSync(`${base}.${e}`)); n++)
    base = `${first}-${n}`;
  const options = (await prettier.resolveConfig(`${base}.md`)) ?? {};
  const json = JSON.stringify({
    ...report,
    verdicts: verdicts(report.results),
    failures: failures(report.results),
  });
  fs.writeFileSync(`${base}.json`, await prettier.format(json, { ...options, parser: 'json' }));
  let chartFile = null;
  const rows = chartRows(report.results);
  if (rows.length) {
    chartFile = `${base.split('/').pop()}.svg`;
    const title = `${report.meta.date} ${report.meta.machine}: ${report.meta.docs} documents, our store ${report.meta.store}`;
    fs.writeFileSync(`${base}.svg`, renderChart(title, rows, report.systems));
  }
  const md = await prettier.format(renderMarkdown(report, chartFile), { ...options, parser: 'markdown' });
  fs.writeFileSync(`${base}.md`, md);
  return { base, md };
}
