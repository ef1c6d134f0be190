#!/usr/bin/env node
/**
 * Keeps the monitoring component's copies equal to their sources (kustomize reads only files below
 * a kustomization, so the component cannot point at deploy/prometheus or deploy/grafana):
 *
 *   deploy/prometheus/rules.yaml  -> deploy/k8s/components/monitoring/prometheusrule.yaml (its groups
 *                                    as the PrometheusRule's spec)
 *   deploy/grafana/<name>.json    -> deploy/k8s/components/monitoring/dashboards/<name>.json, each
 *                                    listed in the component's configMapGenerator
 *
 *   node scripts/check-k8s-sync.mjs           rewrite the copies
 *   node scripts/check-k8s-sync.mjs --check   exit 1 when a copy differs (scripts/check-k8s.sh)
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMPONENT = join(ROOT, 'deploy', 'k8s', 'components', 'monitoring');

/** The PrometheusRule: rules.yaml's `groups:` block, indented under `spec:`, byte for byte. */
export function prometheusRule(rulesText) {
  const start = rulesText.search(/^groups:/m);
  if (start < 0) throw new Error('deploy/prometheus/rules.yaml: no top-level groups:');
  const groups = rulesText
    .slice(start)
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
  return `# GENERATED from deploy/prometheus/rules.yaml by \`node scripts/check-k8s-sync.mjs\`: edit that file.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: baas
spec:
${groups}`;
}

function expected() {
  const files = new Map();
  files.set(
    join(COMPONENT, 'prometheusrule.yaml'),
    prometheusRule(readFileSync(join(ROOT, 'deploy', 'prometheus', 'rules.yaml'), 'utf8')),
  );
  for (const f of readdirSync(join(ROOT, 'deploy', 'grafana')).filter((n) => n.endsWith('.json'))) {
    files.set(join(COMPONENT, 'dashboards', f), readFileSync(join(ROOT, 'deploy', 'grafana', f), 'utf8'));
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const files = expected();
  const problems = [];
  for (const [path, text] of files) {
    const rel = path.slice(ROOT.length + 1);
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    if (check) problems.push(`${rel}: differs from its source (run node scripts/check-k8s-sync.mjs)`);
    else writeFileSync(path, text);
  }
  const dashboardsDir = join(COMPONENT, 'dashboards');
  for (const f of readdirSync(dashboardsDir)) {
    if (files.has(join(dashboardsDir, f))) continue;
    if (check) problems.push(`deploy/k8s/components/monitoring/dashboards/${f}: no deploy/grafana/${f}`);
    else rmSync(join(dashboardsDir, f));
  }
  // every dashboard is shipped by the component's configMapGenerator
  const kustomization = parse(readFileSync(join(COMPONENT, 'kustomization.yaml'), 'utf8'));
  const listed = new Set((kustomization.configMapGenerator ?? []).flatMap((g) => g.files ?? []));
  for (const path of files.keys()) {
    if (!path.startsWith(dashboardsDir)) continue;
    const rel = `dashboards/${path.slice(dashboardsDir.length + 1)}`;
    if (!listed.has(rel))
      problems.push(
        `deploy/k8s/components/monitoring/kustomization.yaml: ${rel} is in no configMapGenerator`,
      );
  }
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(check ? 'monitoring component copies are up to date' : 'monitoring component copies written');
}
