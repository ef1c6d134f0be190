#!/usr/bin/env bash
# Validates the deployment offline (CI runs it after lint; see .ci/run):
#
#   1. the monitoring component's copies equal their sources (scripts/check-k8s-sync.mjs): the
#      PrometheusRule = deploy/prometheus/rules.yaml, dashboards = deploy/grafana/*.json
#   2. `kustomize build` of the base, of every overlay in deploy/k8s/overlays, and of every
#      component in deploy/k8s/components on top of the production overlay
#   3. each rendering validated by kubeconform against the JSON schemas kept in deploy/k8s/schemas
#      (Kubernetes 1.33 and the Prometheus Operator CRDs; no network; strict: an unknown field
#      fails; every kind needs a schema)
#   4. each rendering's pod templates checked against Pod Security "restricted"
#      (scripts/check-k8s-pod-security.mjs)
#   5. `promtool check rules` and `promtool test rules` (deploy/prometheus/rules.test.yaml)
#
# The tools (kustomize, kubeconform, promtool) are built once by scripts/install-infra.sh into
# ${BAAS_TOOLS_DIR:-$HOME/.cache/baas-tools}/bin; this script builds them when they are missing
# (`install-infra.sh --k8s-tools-only`; needs Go and the Go module proxy the first time only).
# Regenerate the schemas after changing a pinned version or using a new kind:
# `node scripts/check-k8s-schemas.mjs` (needs the Go module proxy).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

TOOLS_DIR="${BAAS_TOOLS_DIR:-${HOME:-/tmp}/.cache/baas-tools}"
BIN_DIR="$TOOLS_DIR/bin"

log() { printf '[check-k8s] %s\n' "$*"; }
fail() {
  printf '[check-k8s] FAILED: %s\n' "$*" >&2
  FAILED=1
}
FAILED=""

for tool in kustomize kubeconform promtool; do
  if [ ! -x "$BIN_DIR/$tool" ]; then
    log "$tool missing in $BIN_DIR: bash scripts/install-infra.sh --k8s-tools-only"
    bash scripts/install-infra.sh --k8s-tools-only
    break
  fi
done
KUSTOMIZE="$BIN_DIR/kustomize"
KUBECONFORM="$BIN_DIR/kubeconform"
PROMTOOL="$BIN_DIR/promtool"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/baas-check-k8s.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

log "monitoring component copies"
node scripts/check-k8s-sync.mjs --check || fail "monitoring component copies (run: node scripts/check-k8s-sync.mjs)"

# name -> kustomization directory
declare -a NAMES=() DIRS=()
add_target() {
  NAMES+=("$1")
  DIRS+=("$2")
}
add_target base deploy/k8s/base
for d in deploy/k8s/overlays/*/; do
  d="${d%/}"
  [ -f "$d/kustomization.yaml" ] && add_target "overlays/$(basename "$d")" "$d"
done
# a component cannot be built alone: render each on top of the production overlay
for d in deploy/k8s/components/*/; do
  d="${d%/}"
  [ -f "$d/kustomization.yaml" ] || continue
  name="components/$(basename "$d")"
  dir="$WORK/$(basename "$d")"
  mkdir -p "$dir"
  rel="$(realpath --relative-to="$dir" "$ROOT/deploy/k8s")"
  printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s\ncomponents:\n  - %s\n' \
    "$rel/overlays/production" "$rel/components/$(basename "$d")" >"$dir/kustomization.yaml"
  add_target "$name (on overlays/production)" "$dir"
done

SCHEMAS="$ROOT/deploy/k8s/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json"
for i in "${!NAMES[@]}"; do
  name="${NAMES[$i]}" dir="${DIRS[$i]}"
  out="$WORK/rendered-$i.yaml"
  log "$name: kustomize build"
  if ! "$KUSTOMIZE" build "$dir" >"$out"; then
    fail "$name: kustomize build"
    continue
  fi
  log "$name: kubeconform (schemas in deploy/k8s/schemas)"
  "$KUBECONFORM" -strict -summary -schema-location "$SCHEMAS" "$out" || fail "$name: kubeconform"
  log "$name: Pod Security restricted"
  node scripts/check-k8s-pod-security.mjs "$out" || fail "$name: Pod Security restricted"
done

log "promtool check rules deploy/prometheus/rules.yaml"
"$PROMTOOL" check rules deploy/prometheus/rules.yaml || fail "promtool check rules"
log "promtool test rules deploy/prometheus/rules.test.yaml"
"$PROMTOOL" test rules deploy/prometheus/rules.test.yaml || fail "promtool test rules"

if [ -n "$FAILED" ]; then
  log "some checks failed (see above)"
  exit 1
fi
log "all checks passed"
