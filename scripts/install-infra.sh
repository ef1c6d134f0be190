#!/usr/bin/env bash
# Installs the native infrastructure used by `npm run up` when no Docker engine answers.
#
#   ferretdb  (MongoDB-compatible, SQLite backend)  github.com/FerretDB/FerretDB  v1.24.2
#   mailpit   (SMTP capture + HTTP API)             github.com/axllent/mailpit    v1.30.5
#   versitygw (S3-compatible gateway, posix)        github.com/versity/versitygw  v1.7.0
#   nats-server (the stack's own NATS, JetStream)   github.com/nats-io/nats-server v2.11.10
#
# and the tools scripts/check-k8s.sh validates the deployment with (CI, offline):
#
#   kustomize   (renders deploy/k8s)                 sigs.k8s.io/kustomize/kustomize/v5  v5.8.2
#   kubeconform (schema validation, local schemas)   github.com/yannh/kubeconform        v0.8.0
#   promtool    (alert rules: check and unit tests)  github.com/prometheus/prometheus    v0.316.0 (3.16.0)
#
# are built from source with Go into ${BAAS_TOOLS_DIR:-$HOME/.cache/baas-tools}/bin (outside the
# repository, so later runs and other clones reuse them). `go install mod@version` is not used:
# the module proxy refuses the @v/list lookup for some of these modules, while
# `go mod download -json mod@version` (exact version) works. A marker file next to each binary
# records module@version; a binary with a matching marker is kept.
#
# redis-server, nats-server and openssl (the TLS test's certificates) come from apt when missing (and when nothing already answers on
# 127.0.0.1:6379 / 127.0.0.1:4222); so do psql (postgresql-client) and, when no PostgreSQL
# answers at POSTGRES_ADMIN_URL's port, Debian's postgresql package (the stack then runs a cluster
# of its own in .stack/data/postgres).
#
# `install-infra.sh --k8s-tools-only` builds just those three (what scripts/check-k8s.sh needs).
#
# Idempotent; safe to run concurrently (flock). Environment:
#   BAAS_STORE       postgres or mongodb: install only what that store needs (FerretDB is built
#                    for mongodb only; PostgreSQL for postgres only); unset: everything
#   POSTGRES_ADMIN_URL  where the PostgreSQL store's server answers (default port 5432)
#   BAAS_TOOLS_DIR   cache dir (default $HOME/.cache/baas-tools)
#   BAAS_SKIP_APT=1  never call apt-get (fail instead when redis-server/nats-server are missing)
#   BAAS_FORCE_REBUILD=1  rebuild the Go tools even when the marker matches
set -euo pipefail

FERRETDB_MODULE=github.com/FerretDB/FerretDB
FERRETDB_VERSION=v1.24.2
MAILPIT_MODULE=github.com/axllent/mailpit
MAILPIT_VERSION=v1.30.5
VERSITYGW_MODULE=github.com/versity/versitygw
VERSITYGW_VERSION=v1.7.0
# The stack's NATS: 2.10+ for consumers with several filter subjects (Debian 12 ships 2.9, where a
# consumer of several event types had to take every event); the same minor as docker-compose.
NATS_MODULE=github.com/nats-io/nats-server/v2
NATS_VERSION=v2.11.10
# The deployment checks (scripts/check-k8s.sh). kustomize 5.8.3 wants Go 1.27; 5.8.2 builds with 1.26.
# prometheus' go.mod has exclude directives, so `go install` refuses it: built from the module dir.
KUSTOMIZE_MODULE=sigs.k8s.io/kustomize/kustomize/v5
KUSTOMIZE_VERSION=v5.8.2
KUBECONFORM_MODULE=github.com/yannh/kubeconform
KUBECONFORM_VERSION=v0.8.0
PROMETHEUS_MODULE=github.com/prometheus/prometheus
PROMETHEUS_VERSION=v0.316.0
PROMETHEUS_RELEASE=3.16.0

K8S_TOOLS_ONLY=""
for arg in "$@"; do
  case "$arg" in
    --k8s-tools-only) K8S_TOOLS_ONLY=1 ;;
    *)
      printf '[install-infra] ERROR: unknown argument %s (only --k8s-tools-only)\n' "$arg" >&2
      exit 2
      ;;
  esac
done

TOOLS_DIR="${BAAS_TOOLS_DIR:-${HOME:-/tmp}/.cache/baas-tools}"
BIN_DIR="$TOOLS_DIR/bin"

log() { printf '[install-infra] %s\n' "$*"; }
die() {
  printf '[install-infra] ERROR: %s\n' "$*" >&2
  exit 1
}

mkdir -p "$BIN_DIR" || die "cannot create $BIN_DIR (set BAAS_TOOLS_DIR to a writable directory)"

# One installer at a time per cache dir (two CI jobs / two `npm run up` sharing the cache).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$TOOLS_DIR/.install.lock"
  if ! flock -n 9; then
    log "another install is running on $TOOLS_DIR; waiting for it"
    flock 9
  fi
fi

port_answers() { # port -> 0 when something accepts TCP connections on 127.0.0.1:port
  (exec 3<>"/dev/tcp/127.0.0.1/$1") >/dev/null 2>&1
}

find_go() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [ -x /usr/local/go/bin/go ]; then
    echo /usr/local/go/bin/go
  elif [ -x "${HOME:-/root}/go/bin/go" ]; then
    echo "${HOME:-/root}/go/bin/go"
  else
    return 1
  fi
}

CLEANUP_DIRS=()
cleanup() {
  local d
  for d in "${CLEANUP_DIRS[@]}"; do
    chmod -R u+w "$d" 2>/dev/null || true
    rm -rf "$d"
  done
}
trap cleanup EXIT

GO=""
need_go() {
  [ -n "$GO" ] && return 0
  GO="$(find_go)" || die "Go (>= 1.25) is needed to build $1 but 'go' is not on PATH (also looked in /usr/local/go/bin).
  Install it from https://go.dev/dl/ (e.g. tar -C /usr/local -xzf go1.26.*.linux-amd64.tar.gz), or put a
  prebuilt '$1' binary into $BIN_DIR and write its module@version (see the top of this script) into
  the marker file $BIN_DIR/.$1.version."
  log "using $("$GO" version)"
}

# build_tool NAME MODULE VERSION PACKAGE [LDFLAGS]
build_tool() {
  local name=$1 module=$2 version=$3 pkg=$4 ldflags=${5:-}
  local out="$BIN_DIR/$name" marker="$BIN_DIR/.$name.version" want="$module@$version"

  if [ -z "${BAAS_FORCE_REBUILD:-}" ] && [ -x "$out" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ]; then
    log "$name $version: present ($out)"
    return 0
  fi

  need_go "$name"
  log "$name $version: building from $want (first run only; takes a few minutes on a small machine)"
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/baas-build-$name.XXXXXX")"
  CLEANUP_DIRS+=("$work")

  local json dir
  # Run outside any module so a go.mod/go.work around the caller cannot interfere.
  if ! json="$(cd "$work" && GOFLAGS=-mod=mod "$GO" mod download -json "$want" 2>&1)"; then
    die "go mod download $want failed:
$json
  (check network access to \$GOPROXY=$("$GO" env GOPROXY))"
  fi
  dir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' | head -n1)"
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    die "go mod download $want gave no source directory:
$json"
  fi

  cp -R "$dir" "$work/src"
  chmod -R u+w "$work/src"

  if [ "$name" = ferretdb ]; then
    # build/version/version.go panics at start-up ("Invalid build/version/version.txt") unless
    # version.txt holds a v-prefixed version; the module zip does not contain it.
    printf '%s\n' "$version" >"$work/src/build/version/version.txt"
    printf 'baas-tools\n' >"$work/src/build/version/package.txt"
  fi

  local -a args=(build -o "$out.tmp")
  [ -n "$ldflags" ] && args+=(-ldflags "$ldflags")
  args+=("$pkg")
  # GOWORK=off: a module zip may carry a go.work naming folders the zip leaves out (prometheus)
  if ! (cd "$work/src" && CGO_ENABLED=0 GOWORK=off GOFLAGS="-trimpath -buildvcs=false" "$GO" "${args[@]}"); then
    rm -f "$out.tmp"
    die "building $name from $want failed (see the Go output above)"
  fi
  mv -f "$out.tmp" "$out"
  printf '%s\n' "$want" >"$marker"
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
  log "$name $version: built $out"
}

build_k8s_tools() {
  build_tool kustomize "$KUSTOMIZE_MODULE" "$KUSTOMIZE_VERSION" . \
    "-s -w -X sigs.k8s.io/kustomize/api/provenance.version=$KUSTOMIZE_VERSION"
  build_tool kubeconform "$KUBECONFORM_MODULE" "$KUBECONFORM_VERSION" ./cmd/kubeconform \
    "-s -w -X main.version=$KUBECONFORM_VERSION"
  build_tool promtool "$PROMETHEUS_MODULE" "$PROMETHEUS_VERSION" ./cmd/promtool \
    "-s -w -X github.com/prometheus/common/version.Version=$PROMETHEUS_RELEASE"
  # a binary that cannot even print its version is rebuilt next time
  local t args
  for t in kustomize:version kubeconform:-v promtool:--version; do
    args=${t#*:}
    t=${t%%:*}
    if ! "$BIN_DIR/$t" "$args" >/dev/null 2>&1; then
      rm -f "$BIN_DIR/.$t.version"
      die "$BIN_DIR/$t does not run ('$t $args' failed); it will be rebuilt on the next run"
    fi
  done
}

if [ -n "$K8S_TOOLS_ONLY" ]; then
  build_k8s_tools
  log "tools ready in $BIN_DIR"
  exit 0
fi

STORE="${BAAS_STORE:-}"
case "$STORE" in '' | postgres | mongodb) ;; *) die "BAAS_STORE must be postgres or mongodb (got $STORE)" ;; esac

if [ "$STORE" != postgres ]; then
  build_tool ferretdb "$FERRETDB_MODULE" "$FERRETDB_VERSION" ./cmd/ferretdb
fi
build_tool mailpit "$MAILPIT_MODULE" "$MAILPIT_VERSION" . \
  "-s -w -X github.com/axllent/mailpit/config.Version=$MAILPIT_VERSION"
build_tool versitygw "$VERSITYGW_MODULE" "$VERSITYGW_VERSION" ./cmd/versitygw \
  "-s -w -X main.Version=$VERSITYGW_VERSION -X main.Build=baas-tools"
build_tool nats-server "$NATS_MODULE" "$NATS_VERSION" . "-s -w"
build_k8s_tools

# Quick sanity check: a binary that cannot even print its version is rebuilt next time.
if [ "$STORE" != postgres ] && ! "$BIN_DIR/ferretdb" --version >/dev/null 2>&1; then
  rm -f "$BIN_DIR/.ferretdb.version"
  die "$BIN_DIR/ferretdb does not run ('ferretdb --version' failed); it will be rebuilt on the next run"
fi
if ! "$BIN_DIR/nats-server" --version >/dev/null 2>&1; then
  rm -f "$BIN_DIR/.nats-server.version"
  die "$BIN_DIR/nats-server does not run ('nats-server --version' failed); it will be rebuilt on the next run"
fi
if ! "$BIN_DIR/versitygw" --version >/dev/null 2>&1; then
  rm -f "$BIN_DIR/.versitygw.version"
  die "$BIN_DIR/versitygw does not run ('versitygw --version' failed); it will be rebuilt on the next run"
fi

# --- redis-server / nats-server from the distribution -------------------------------------
find_sys_bin() { # name -> path
  local p
  if p="$(command -v "$1" 2>/dev/null)"; then
    echo "$p"
    return 0
  fi
  for d in /usr/sbin /usr/bin /usr/local/bin /usr/local/sbin /sbin /bin; do
    if [ -x "$d/$1" ]; then
      echo "$d/$1"
      return 0
    fi
  done
  return 1
}

APT_UPDATED=""
apt_install() { # package
  [ -n "${BAAS_SKIP_APT:-}" ] && return 1
  command -v apt-get >/dev/null 2>&1 || return 1
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo -n"
    else
      return 1
    fi
  fi
  if [ -z "$APT_UPDATED" ]; then
    log "apt-get update"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
    APT_UPDATED=1
  fi
  log "apt-get install -y $1"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1"
}

ensure_sys_tool() { # binary package port
  local bin=$1 pkg=$2 port=$3 path
  if path="$(find_sys_bin "$bin")"; then
    log "$bin: present ($path)"
    return 0
  fi
  if [ -n "$port" ] && port_answers "$port"; then
    log "$bin: not installed, but 127.0.0.1:$port already answers; npm run up will use that server"
    return 0
  fi
  if apt_install "$pkg" && path="$(find_sys_bin "$bin")"; then
    log "$bin: installed ($path)"
    return 0
  fi
  die "$bin is missing and could not be installed automatically.
  Install it yourself: apt-get update && apt-get install -y $pkg   (needs root or passwordless sudo)
  or start a server on 127.0.0.1:$port before 'npm run up'."
}

ensure_sys_tool redis-server redis-server 6379
# the binary itself, whatever answers on 4222: the stack runs its own NATS (with users) on 4223
ensure_sys_tool nats-server nats-server ''
# the NATS-over-TLS integration test makes its certificates with it
ensure_sys_tool openssl openssl ''
# the console's browser tests (test/e2e/console.test.ts) drive Debian's chromium headless;
# test tools cannot download a browser of their own here
ensure_sys_tool chromium chromium ''

# --- PostgreSQL (Debian's packages) ----------------------------------------------------------
pg_server_installed() { # initdb and postgres of some major version
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && return 0
  done
  find_sys_bin initdb >/dev/null
}

if [ "$STORE" != mongodb ]; then
  pg_url="${POSTGRES_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  # host:port of the URL (no credentials in the log)
  pg_hostport="$(printf '%s' "$pg_url" | sed -E 's#^[a-z]+://([^@/]*@)?([^/?]*).*#\2#')"
  pg_port="${pg_hostport##*:}"
  case "$pg_port" in '' | *[!0-9]*) pg_port=5432 ;; esac
  if pg_server_installed; then
    log "postgresql: present"
  elif port_answers "$pg_port"; then
    log "postgresql: not installed, but 127.0.0.1:$pg_port already answers; npm run up will use that server"
  elif apt_install postgresql && pg_server_installed; then
    log "postgresql: installed (npm run up starts a cluster of its own in .stack/data/postgres)"
  else
    die "PostgreSQL is missing and could not be installed automatically.
  Install it yourself: apt-get update && apt-get install -y postgresql   (needs root or passwordless sudo)
  or start a server and set POSTGRES_ADMIN_URL before 'npm run up'."
  fi
  # psql creates the services' roles and databases (deploy/postgres/init-service-databases.sh)
  if psql_path="$(find_sys_bin psql)"; then
    log "psql: present ($psql_path)"
  elif apt_install postgresql-client && psql_path="$(find_sys_bin psql)"; then
    log "psql: installed ($psql_path)"
  else
    die "psql is missing and could not be installed automatically.
  Install it yourself: apt-get update && apt-get install -y postgresql-client"
  fi
fi

log "tools ready in $BIN_DIR"
