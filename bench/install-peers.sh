#!/usr/bin/env bash
# Installs the systems the bench compares us with, outside the repository (never committed):
#
#   pocketbase    github.com/pocketbase/pocketbase/examples/base  v0.36.8  (Go; its own SQLite)
#   parse-server  npm parse-server 9.9.0 (engines: node >=20.19 <21 || >=22.12 <23 || >=24.11 <25)
#   vegeta        github.com/tsenart/vegeta/v12                  v12.13.0 (Go; the open-loop load
#                 generator of the fixed-rate runs, bench/lib/paced.mjs)
#
# into ${BAAS_BENCH_DIR:-$HOME/.cache/baas-bench}: bin/pocketbase, bin/vegeta and parse/node_modules. A marker
# next to each records what was installed; a matching marker means nothing to do (the bench's
# report takes vegeta's version from its marker). PocketBase is built with `go install
# mod@version`; when the module proxy refuses that (it refuses the @v/list lookup for some
# modules), from `go mod download -json mod@version` as scripts/install-infra.sh does.
# Idempotent; concurrent runs wait for each other (flock).
set -euo pipefail

PB_MODULE=github.com/pocketbase/pocketbase
PB_VERSION=v0.36.8
PB_PACKAGE=$PB_MODULE/examples/base
PARSE_VERSION=9.9.0
VEGETA_MODULE=github.com/tsenart/vegeta/v12
VEGETA_VERSION=v12.13.0

DIR="${BAAS_BENCH_DIR:-${HOME:-/tmp}/.cache/baas-bench}"
BIN="$DIR/bin"
log() { printf '[install-peers] %s\n' "$*"; }
die() {
  printf '[install-peers] ERROR: %s\n' "$*" >&2
  exit 1
}

mkdir -p "$BIN" "$DIR/parse" || die "cannot create $DIR (set BAAS_BENCH_DIR to a writable directory)"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$DIR/.install.lock"
  flock 9
fi

find_go() {
  if command -v go >/dev/null 2>&1; then command -v go; elif [ -x /usr/local/go/bin/go ]; then
    echo /usr/local/go/bin/go
  else return 1; fi
}

# present NAME WANT: true (and says so) when $BIN/NAME exists and its marker records WANT
present() {
  if [ -x "$BIN/$1" ] && [ "$(cat "$BIN/.$1.version" 2>/dev/null)" = "$2" ]; then
    log "$1: present ($BIN/$1, $2)"
    return 0
  fi
  return 1
}

# go_for NAME: the go command, or a clear error naming what needs it
go_for() { find_go || die "Go is needed to build $1 (put go on PATH, or /usr/local/go/bin/go)"; }

install_pocketbase() {
  local want="$PB_PACKAGE@$PB_VERSION" marker="$BIN/.pocketbase.version"
  present pocketbase "$want" && return 0
  local go
  go="$(go_for PocketBase)"
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/baas-bench-pb.XXXXXX")"
  # shellcheck disable=SC2064 # expand now: the trap must remove this very directory
  trap "chmod -R u+w '$work' 2>/dev/null; rm -rf '$work'" RETURN
  log "pocketbase $PB_VERSION: go install $want (first run only; several minutes on 2 cores)"
  if ! (cd "$work" && GOBIN="$work/bin" CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false" "$go" install "$want"); then
    log "go install refused; building from the module cache instead"
    local json src
    json="$(cd "$work" && GOFLAGS=-mod=mod "$go" mod download -json "$PB_MODULE@$PB_VERSION")" ||
      die "go mod download $PB_MODULE@$PB_VERSION failed: $json"
    src="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' | head -n1)"
    [ -d "$src" ] || die "go mod download gave no source directory: $json"
    cp -R "$src" "$work/src" && chmod -R u+w "$work/src"
    mkdir -p "$work/bin"
    (cd "$work/src" && CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false" "$go" build -o "$work/bin/base" ./examples/base) ||
      die "building PocketBase failed (see the Go output above)"
  fi
  mv -f "$work/bin/base" "$BIN/pocketbase"
  printf '%s\n' "$want" >"$marker"
  log "pocketbase $PB_VERSION: built $BIN/pocketbase"
}

install_parse() {
  local marker="$DIR/parse/.parse-server.version"
  if [ -f "$DIR/parse/node_modules/parse-server/package.json" ] && [ "$(cat "$marker" 2>/dev/null)" = "$PARSE_VERSION" ]; then
    log "parse-server $PARSE_VERSION: present ($DIR/parse)"
    return 0
  fi
  log "parse-server $PARSE_VERSION: npm install into $DIR/parse"
  printf '{ "name": "baas-bench-parse", "private": true }\n' >"$DIR/parse/package.json"
  (cd "$DIR/parse" && npm install --no-audit --no-fund --save-exact "parse-server@$PARSE_VERSION") ||
    die "npm install parse-server@$PARSE_VERSION failed"
  printf '%s\n' "$PARSE_VERSION" >"$marker"
}

install_vegeta() {
  local want="$VEGETA_MODULE@$VEGETA_VERSION" marker="$BIN/.vegeta.version"
  present vegeta "$want" && return 0
  local go
  go="$(go_for vegeta)"
  log "vegeta $VEGETA_VERSION: go install $want"
  (cd "${TMPDIR:-/tmp}" && GOBIN="$BIN" CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false" "$go" install "$want") ||
    die "go install $want failed (see the Go output above)"
  printf '%s\n' "$want" >"$marker"
  log "vegeta $VEGETA_VERSION: built $BIN/vegeta"
}

install_pocketbase
install_parse
install_vegeta
log "peers ready in $DIR"
