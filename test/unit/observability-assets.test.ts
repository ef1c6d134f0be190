import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * Issue 13: the Grafana dashboards (deploy/grafana), the alert rules (deploy/prometheus/rules.yaml)
 * and their copies in the monitoring component. A careful equivalent of Grafana's dashboard schema
 * check (the fields Grafana needs to load and draw a panel), and every metric a dashboard or rule
 * reads is one the services document.
 */
const ROOT = join(__dirname, '..', '..');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

/* eslint-disable @typescript-eslint/no-unsafe-return -- JSON and YAML are walked untyped: the
   expectations below check their shape */
type Doc = any;

/** The metric names of issue 13 (docs/metrics.md, when present, is the reference instead). */
const ISSUE_13_METRICS = [
  'baas_http_server_request_duration_seconds',
  'baas_build_info',
  'baas_events_published_total',
  'baas_events_publish_failures_total',
  'baas_events_consumed_total',
  'baas_events_redelivered_total',
  'baas_event_handler_duration_seconds',
  'baas_consumer_pending_messages',
  'baas_consumer_ack_pending_messages',
  'baas_dead_letter_messages',
  'baas_outbox_backlog',
  'baas_outbox_relay_failures_total',
  'baas_rate_limit_rejections_total',
  'baas_upstream_request_duration_seconds',
  'baas_upstream_errors_total',
  'baas_argon2_queue_depth',
  'baas_argon2_duration_seconds',
  'baas_auth_logins_total',
  'baas_mail_messages_total',
  'baas_storage_upload_bytes_total',
  'baas_storage_uploads_total',
  'baas_janitor_items_processed_total',
  'baas_janitor_task_failures_total',
  'baas_janitor_task_duration_seconds',
];
const METRICS_DOC = join(ROOT, 'docs', 'metrics.md');
const documented = new Set(
  existsSync(METRICS_DOC)
    ? [...readFileSync(METRICS_DOC, 'utf8').matchAll(/\bbaas_[a-z0-9_]+/g)].map((m) => m[0])
    : ISSUE_13_METRICS,
);

/** Metric names in a PromQL expression (histogram series reduced to the histogram's name). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\bbaas_[a-z0-9_]+/g)].map((m) => {
    const name = m[0];
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return base !== name && documented.has(base) ? base : name;
  });
}

const dashboardFiles = readdirSync(join(ROOT, 'deploy', 'grafana')).filter((f) => f.endsWith('.json'));
const dashboards: Array<[string, Doc]> = dashboardFiles.map((f) => [
  f,
  JSON.parse(read('deploy', 'grafana', f)),
]);
const rules: Doc = parse(read('deploy', 'prometheus', 'rules.yaml'));
const alerts: Doc[] = (rules.groups as Doc[]).flatMap((g) => g.rules as Doc[]).filter((r) => r.alert);

/** Every panel, rows' nested panels included. */
const panelsOf = (d: Doc): Doc[] => (d.panels as Doc[]).flatMap((p) => [p, ...((p.panels as Doc[]) ?? [])]);

describe('Grafana dashboards (deploy/grafana)', () => {
  it('cover RED per route and service, events and dead letters, janitor, auth, storage and mail', () => {
    expect(dashboardFiles.sort()).toEqual(
      ['auth', 'events', 'janitor', 'mail', 'overview', 'storage'].map((n) => `baas-${n}.json`),
    );
  });

  it('have distinct uids and titles', () => {
    const uids = dashboards.map(([, d]) => d.uid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(new Set(dashboards.map(([, d]) => d.title)).size).toBe(uids.length);
  });

  it.each(dashboards)('%s: the fields Grafana needs', (_f, d) => {
    expect(typeof d.title).toBe('string');
    expect(d.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(Number.isInteger(d.schemaVersion)).toBe(true);
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(d.time).toEqual({ from: expect.any(String), to: expect.any(String) });
    // the data source is a variable, so the dashboard loads in any Grafana
    const vars = (d.templating.list as Doc[]).map((v) => v.name as string);
    expect(d.templating.list[0]).toMatchObject({
      name: 'datasource',
      type: 'datasource',
      query: 'prometheus',
    });
    const ids = new Set<number>();
    for (const p of panelsOf(d)) {
      expect(typeof p.type).toBe('string');
      expect(typeof p.title).toBe('string');
      expect(Number.isInteger(p.id)).toBe(true);
      expect(ids.has(p.id)).toBe(false);
      ids.add(p.id);
      const g = p.gridPos;
      expect([g.h, g.w, g.x, g.y].every((n: unknown) => Number.isInteger(n) && (n as number) >= 0)).toBe(
        true,
      );
      expect(g.x + g.w).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets.length).toBeGreaterThan(0);
      const refIds = new Set<string>();
      for (const t of p.targets as Doc[]) {
        expect(typeof t.expr).toBe('string');
        expect(t.expr.length).toBeGreaterThan(0);
        expect(t.datasource).toEqual(p.datasource);
        expect(refIds.has(t.refId)).toBe(false);
        refIds.add(t.refId);
        // every variable an expression uses is defined (Grafana's own are $__…)
        for (const [, v] of (t.expr as string).matchAll(/\$([a-zA-Z_][a-zA-Z0-9_]*)/g))
          if (!v!.startsWith('__')) expect(vars).toContain(v);
        // PromQL brackets balance
        for (const [open, close] of ['()', '{}', '[]'])
          expect((t.expr as string).split(open!).length).toBe((t.expr as string).split(close!).length);
      }
    }
  });

  it.each(dashboards)('%s: panels do not overlap', (_f, d) => {
    const cells = new Set<string>();
    for (const p of panelsOf(d)) {
      const { h, w, x, y } = p.gridPos as Record<string, number>;
      for (let i = x!; i < x! + w!; i++)
        for (let j = y!; j < y! + h!; j++) {
          expect(cells.has(`${i},${j}`)).toBe(false);
          cells.add(`${i},${j}`);
        }
    }
  });
});

describe('alert rules (deploy/prometheus/rules.yaml)', () => {
  const operations = existsSync(join(ROOT, 'docs', 'operations.md')) ? read('docs', 'operations.md') : '';
  /** GitHub's anchors: lower case, punctuation dropped, spaces as hyphens. */
  const anchors = new Set(
    [...operations.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );

  it('alert on error rate, latency, consumer lag, dead letters, janitor failures, outbox backlog, rate-limit saturation, failing dependencies, SLO burn rates, restarts and readiness flapping', () => {
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'BaasHighErrorRate',
        'BaasHighLatency',
        'BaasConsumerLag',
        'BaasDeadLetters',
        'BaasJanitorTaskFailing',
        'BaasOutboxBacklog',
        'BaasRateLimitSaturation',
        'BaasDependencyFailing',
        'BaasErrorBudgetBurnFast',
        'BaasErrorBudgetBurnSlow',
        'BaasPodRestarting',
        'BaasReadinessFlapping',
      ]),
    );
  });

  it.each(alerts.map((a) => [a.alert as string, a] as const))(
    '%s: severity, summary, description and a runbook in docs/operations.md',
    (name, a) => {
      expect(['critical', 'warning']).toContain(a.labels.severity);
      expect(a.annotations.summary).toEqual(expect.any(String));
      expect(a.annotations.description.length).toBeGreaterThan(40);
      const url = new URL(a.annotations.runbook_url as string);
      expect(url.pathname).toMatch(/\/docs\/operations\.md$/);
      expect(url.hash).toBe(`#${name.toLowerCase()}`);
      expect(anchors.has(name.toLowerCase())).toBe(true);
    },
  );

  it('the monitoring component’s PrometheusRule holds exactly these groups', () => {
    const rule: Doc = parse(read('deploy', 'k8s', 'components', 'monitoring', 'prometheusrule.yaml'));
    expect(rule.kind).toBe('PrometheusRule');
    expect(rule.spec.groups).toEqual(rules.groups);
  });

  it('the monitoring component ships every dashboard, unchanged', () => {
    for (const f of dashboardFiles) {
      expect(read('deploy', 'k8s', 'components', 'monitoring', 'dashboards', f)).toBe(
        read('deploy', 'grafana', f),
      );
    }
  });
});

describe('every metric a dashboard or rule reads is documented', () => {
  const exprs: Array<[string, string]> = [
    ...dashboards.flatMap(([f, d]) =>
      panelsOf(d).flatMap((p) =>
        ((p.targets as Doc[]) ?? []).map((t) => [f, t.expr as string] as [string, string]),
      ),
    ),
    ...(rules.groups as Doc[]).flatMap((g) =>
      (g.rules as Doc[]).map(
        (r) => [`rules.yaml ${r.alert ?? r.record}`, r.expr as string] as [string, string],
      ),
    ),
    ...dashboards.flatMap(([f, d]) =>
      (d.templating.list as Doc[])
        .filter((v) => v.definition)
        .map((v) => [`${f} $${v.name}`, v.definition as string] as [string, string]),
    ),
  ];

  it.each(exprs)('%s: %s', (_where, expr) => {
    const unknown = metricsIn(expr).filter((m) => !documented.has(m));
    expect(unknown).toEqual([]);
  });

  it('the dashboards together use every documented messaging metric', () => {
    const used = new Set(
      dashboards.flatMap(([, d]) =>
        panelsOf(d).flatMap((p) => ((p.targets as Doc[]) ?? []).flatMap((t) => metricsIn(t.expr as string))),
      ),
    );
    for (const m of ISSUE_13_METRICS.filter((n) => documented.has(n)))
      expect([m, used.has(m)]).toEqual([m, true]);
  });
});
