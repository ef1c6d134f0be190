// The report: medians over rounds, ratios first (absolute numbers depend on the machine and on
// what else runs on it), written as markdown and json to bench/results/.
import fs from 'node:fs';
import * as prettier from 'prettier';

export const SCALE_LIMIT = 1.5;
export const TENANT_LIMIT = 1.2;

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
const fails = (s) => (s.non2xx || s.errors ? `**${s.non2xx} / ${s.errors}**` : '0 / 0');

function comparisonTable(c, systems) {
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
      ...systems.map((x) => (s[x.key] ? `${f(s[x.key].rps)} (${f(s[x.key].p50Ms, 1)})` : '-')),
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

export function verdicts(results) {
  const out = {};
  const sc = results.scale;
  if (sc) {
    for (const [op, sizes] of Object.entries(sc)) {
      const [small, large] = [sizes.small, sizes.large];
      const r = large.meanMs / small.meanMs;
      out[`scale:${op}`] = { ratio: r, limit: SCALE_LIMIT, pass: r <= SCALE_LIMIT };
    }
  }
  const t = results.tenants;
  if (t?.without && t?.with) {
    const r = t.with.meanMs / t.without.meanMs;
    out.tenants = { ratio: r, limit: TENANT_LIMIT, pass: r <= TENANT_LIMIT };
  }
  return out;
}

export function renderMarkdown(report) {
  const { meta, results, systems } = report;
  const v = verdicts(results);
  const lines = [
    `# Bench ${meta.date} on ${meta.machine}`,
    '',
    `${meta.cpus} x ${meta.cpuModel}, ${meta.memoryGiB} GiB, Node ${meta.node}, ${meta.postgres}; ` +
      `commit ${meta.commit}${meta.dirty ? ' (work tree not clean)' : ''}; load average at start ${meta.loadStart}, at end ${meta.loadEnd ?? '-'}.`,
    '',
    `Load: autocannon ${meta.load.autocannon}, ${meta.load.connections} connections, keep-alive, pipelining ${meta.load.pipelining}, ` +
      `${meta.load.warmupSeconds} s warm-up (not counted) then ${meta.load.seconds} s measured per run (at most ${meta.load.maxRequests} requests), ` +
      `${meta.load.rounds} round(s) with the systems in rotating order; medians over rounds. Document shape { title, n, tag } plus each system's own createdAt; ` +
      `tag has ${meta.tags} values (an equality filter matches 1%), indexed on every system. Every system runs on this machine at the same time as the client.`,
    '',
  ];
  if (meta.incomplete) lines.push(`**Incomplete run:** ${meta.incomplete}`, '');
  if (results.comparison) {
    lines.push(
      `## Side by side at ${meta.docs.toLocaleString('en')} documents`,
      '',
      comparisonTable(results.comparison, systems),
      '',
      'ours/peer req/s above 1 means we serve more requests per second; ours/peer p50 below 1 means our median answer is faster. ' +
        'list-20: the newest 20 with the total count; get: one document by id (ids rotate over all documents); ' +
        'filter: tag equals one value, newest 20 with the total; create: insert one document (runs last, so the reads see exactly the seeded documents).',
      '',
    );
  }
  if (results.scale) {
    const rows = Object.entries(results.scale).map(([op, s]) => {
      const r = v[`scale:${op}`];
      return [
        op,
        `${f(s.small.rps)} (${f(s.small.meanMs, 1)})`,
        `${f(s.large.rps)} (${f(s.large.meanMs, 1)})`,
        `${f(r.ratio, 2)} ${r.pass ? 'pass' : '**FAIL**'} (<= ${SCALE_LIMIT})`,
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
  if (results.tenants?.without && results.tenants?.with) {
    const t = results.tenants;
    const r = v.tenants;
    lines.push(
      `## Ours: list-20 without and with ${meta.tenants.projects.toLocaleString('en')} x ${meta.tenants.collections} background tenants`,
      '',
      table(
        ['', 'req/s (mean ms)', 'non-2xx / errors'],
        [
          ['without', `${f(t.without.rps)} (${f(t.without.meanMs, 1)})`, fails(t.without)],
          [
            `with (${meta.tenants.documents.toLocaleString('en')} more documents in the store)`,
            `${f(t.with.rps)} (${f(t.with.meanMs, 1)})`,
            fails(t.with),
          ],
          [
            'cost ratio with/without',
            `${f(r.ratio, 2)} ${r.pass ? 'pass' : '**FAIL**'} (<= ${TENANT_LIMIT})`,
            '',
          ],
        ],
      ),
      '',
    );
  }
  lines.push('## How the data got there', '', ...meta.seeding.map((s) => `- ${s}`), '');
  if (meta.notes.length) lines.push('## Notes', '', ...meta.notes.map((s) => `- ${s}`), '');
  return lines.join('\n');
}

/** Writes both files, formatted by the repository's prettier settings (format:check stays green). */
export async function writeReport(dir, report) {
  fs.mkdirSync(dir, { recursive: true });
  // a second run on the same day gets -2, -3, ...: a report is never overwritten
  const first = `${dir}/${report.meta.date}-${report.meta.machine}`;
  let base = first;
  for (let n = 2; fs.existsSync(`${base}.md`) || fs.existsSync(`${base}.json`); n++) base = `${first}-${n}`;
  const options = (await prettier.resolveConfig(`${base}.md`)) ?? {};
  const json = JSON.stringify({ ...report, verdicts: verdicts(report.results) });
  fs.writeFileSync(`${base}.json`, await prettier.format(json, { ...options, parser: 'json' }));
  const md = await prettier.format(renderMarkdown(report), { ...options, parser: 'markdown' });
  fs.writeFileSync(`${base}.md`, md);
  return { base, md };
}
