#!/usr/bin/env node
/**
 * Regenerates the JSON schemas kubeconform validates the rendered manifests with
 * (deploy/k8s/schemas), offline except for the Go module proxy:
 *
 *   node scripts/check-k8s-schemas.mjs            write deploy/k8s/schemas/*.json
 *   node scripts/check-k8s-schemas.mjs --check    exit 1 when the committed schemas differ
 *
 * Sources (pinned; `go mod download -json <module>@<version>` gives their files):
 *   - Kubernetes' OpenAPI v2 spec: k8s.io/kubernetes@KUBERNETES_VERSION, api/openapi-spec/swagger.json
 *   - the CRDs of ServiceMonitor, PodMonitor, PrometheusRule:
 *     github.com/prometheus-operator/prometheus-operator@PROMETHEUS_OPERATOR_VERSION,
 *     example/prometheus-operator-crd/monitoring.coreos.com_*.yaml
 *
 * What openapi2jsonschema (the generator of yannh/kubernetes-json-schema, which kubeconform reads
 * by default) does, for the kinds this repository uses only: one standalone schema per kind with
 * every $ref inlined, strict (additionalProperties: false on every object with properties, unless
 * the API says it keeps unknown fields), int-or-string as string or integer, quantities as string
 * or number, optional fields nullable, and kind/apiVersion fixed to the kind's own. File names are
 * kubeconform's `{{ .ResourceKind }}{{ .KindSuffix }}.json` (deployment-apps-v1.json, service-v1.json).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const KUBERNETES_VERSION = 'v1.33.13';
export const PROMETHEUS_OPERATOR_VERSION = 'v0.85.0';

/** [group, version, kind] of every kind the overlays and components render (core group: ''). */
const KUBERNETES_KINDS = [
  ['', 'v1', 'ConfigMap'],
  ['', 'v1', 'Namespace'],
  ['', 'v1', 'PersistentVolumeClaim'],
  ['', 'v1', 'Secret'],
  ['', 'v1', 'Service'],
  ['', 'v1', 'ServiceAccount'],
  ['apps', 'v1', 'Deployment'],
  ['apps', 'v1', 'StatefulSet'],
  ['autoscaling', 'v2', 'HorizontalPodAutoscaler'],
  ['batch', 'v1', 'Job'],
  ['networking.k8s.io', 'v1', 'Ingress'],
  ['networking.k8s.io', 'v1', 'NetworkPolicy'],
  ['policy', 'v1', 'PodDisruptionBudget'],
];
const CRD_FILES = [
  'monitoring.coreos.com_servicemonitors.yaml',
  'monitoring.coreos.com_podmonitors.yaml',
  'monitoring.coreos.com_prometheusrules.yaml',
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'deploy', 'k8s', 'schemas');

function moduleDir(module, version) {
  const work = mkdtempSync(join(tmpdir(), 'baas-schemas-'));
  try {
    const out = execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(out).Dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** kubeconform's file name: kind, then the first label of the group (none for core), then the version. */
export function schemaFileName(group, version, kind) {
  const g = group ? `-${group.split('.')[0].toLowerCase()}` : '';
  return `${kind.toLowerCase()}${g}-${version.toLowerCase()}.json`;
}

const INT_OR_STRING = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
const QUANTITY = { oneOf: [{ type: 'string' }, { type: 'number' }] };

function nullable(schema) {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (schema.oneOf) return { ...schema, oneOf: [...schema.oneOf, { type: 'null' }] };
  return schema;
}

/** Inlines $refs, makes objects strict and optional fields nullable (openapi2jsonschema --strict). */
function transform(schema, definitions, seen = []) {
  if (Array.isArray(schema)) return schema.map((s) => transform(s, definitions, seen));
  if (schema === null || typeof schema !== 'object') return schema;
  if (schema.$ref) {
    const name = schema.$ref.replace('#/definitions/', '');
    if (name === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') return INT_OR_STRING;
    if (name === 'io.k8s.apimachinery.pkg.api.resource.Quantity') return QUANTITY;
    if (seen.includes(name)) throw new Error(`recursive definition ${[...seen, name].join(' -> ')}`);
    const { $ref: _ignored, ...rest } = schema;
    return transform({ ...definitions[name], ...rest }, definitions, [...seen, name]);
  }
  if (schema.format === 'int-or-string' || schema['x-kubernetes-int-or-string']) {
    const { type: _t, format: _f, 'x-kubernetes-int-or-string': _i, ...rest } = schema;
    return { ...transform(rest, definitions, seen), ...INT_OR_STRING };
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties') {
      const required = new Set(schema.required ?? []);
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, prop]) => {
          const t = transform(prop, definitions, seen);
          return [name, required.has(name) ? t : nullable(t)];
        }),
      );
    } else if (k === 'description') {
      // kept short: the schemas validate, the API reference documents
      continue;
    } else {
      out[k] = transform(v, definitions, seen);
    }
  }
  if (
    out.properties &&
    out.additionalProperties === undefined &&
    !out['x-kubernetes-preserve-unknown-fields']
  ) {
    out.additionalProperties = false;
  }
  return out;
}

function fixKind(schema, group, version, kind) {
  const apiVersion = group ? `${group}/${version}` : version;
  return {
    $schema: 'http://json-schema.org/schema#',
    ...schema,
    properties: {
      ...schema.properties,
      apiVersion: { type: 'string', enum: [apiVersion] },
      kind: { type: 'string', enum: [kind] },
    },
  };
}

export function generate() {
  const files = {};
  const k8s = moduleDir('k8s.io/kubernetes', KUBERNETES_VERSION);
  const swagger = JSON.parse(readFileSync(join(k8s, 'api', 'openapi-spec', 'swagger.json'), 'utf8'));
  const definitions = swagger.definitions;
  for (const [group, version, kind] of KUBERNETES_KINDS) {
    const name = Object.keys(definitions).find((n) =>
      (definitions[n]['x-kubernetes-group-version-kind'] ?? []).some(
        (g) => g.group === group && g.version === version && g.kind === kind,
      ),
    );
    if (!name)
      throw new Error(`${group}/${version} ${kind}: not in the Kubernetes ${KUBERNETES_VERSION} spec`);
    const schema = transform(definitions[name], definitions, [name]);
    delete schema['x-kubernetes-group-version-kind'];
    files[schemaFileName(group, version, kind)] = fixKind(schema, group, version, kind);
  }
  const operator = moduleDir(
    'github.com/prometheus-operator/prometheus-operator',
    PROMETHEUS_OPERATOR_VERSION,
  );
  const crdDir = join(operator, 'example', 'prometheus-operator-crd');
  const available = readdirSync(crdDir);
  for (const file of CRD_FILES) {
    if (!available.includes(file)) throw new Error(`${file}: not in ${crdDir}`);
    const crd = parse(readFileSync(join(crdDir, file), 'utf8'));
    const { group, names } = crd.spec;
    for (const v of crd.spec.versions.filter((x) => x.served)) {
      const schema = transform(v.schema.openAPIV3Schema, {}, []);
      files[schemaFileName(group, v.name, names.kind)] = fixKind(schema, group, v.name, names.kind);
    }
  }
  files['VERSIONS.json'] = {
    $comment: 'Generated by scripts/check-k8s-schemas.mjs; kubeconform reads the other files of this folder.',
    kubernetes: `k8s.io/kubernetes@${KUBERNETES_VERSION} api/openapi-spec/swagger.json`,
    'prometheus-operator': `github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION} example/prometheus-operator-crd`,
  };
  return Object.fromEntries(Object.entries(files).map(([f, s]) => [f, `${JSON.stringify(s)}\n`]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const files = generate();
  mkdirSync(OUT, { recursive: true });
  const existing = new Set(readdirSync(OUT).filter((f) => f.endsWith('.json')));
  let stale = 0;
  for (const [f, text] of Object.entries(files)) {
    existing.delete(f);
    let old = '';
    try {
      old = readFileSync(join(OUT, f), 'utf8');
    } catch {
      /* new file */
    }
    if (old === text) continue;
    stale++;
    if (check) console.error(`deploy/k8s/schemas/${f}: differs from what the generator writes`);
    else writeFileSync(join(OUT, f), text);
  }
  for (const f of existing) {
    stale++;
    if (check) console.error(`deploy/k8s/schemas/${f}: not generated (remove it)`);
    else rmSync(join(OUT, f));
  }
  if (check && stale > 0) process.exit(1);
  console.log(`${check ? 'checked' : 'wrote'} ${Object.keys(files).length} files in deploy/k8s/schemas`);
}
