# Sourced by scripts/dev.sh: what Taskfence needs on this machine. A JDK >= 21, Redis and PostgreSQL (installed
# from Debian's packages, as root or through sudo, and started if they do not answer), and the tools tests use.
# Expects from the caller: log(), and `set -e`; a failed install or a server that does not answer exits the script.
# shellcheck shell=bash

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=""
apt_install() {
  if ! command -v apt-get >/dev/null; then
    log "cannot install $*: no apt-get here; install it yourself and run again"
    exit 1
  fi
  if [ -z "$apt_updated" ]; then
    as_root apt-get update -qq
    apt_updated=yes
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

java_major() { # prints the feature version of the JDK whose home is $1, or nothing
  [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

ensure_jdk() {
  local candidate major best="" best_major=0
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -d "$candidate" ] || continue
    major=$(java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate" best_major="$major"
    fi
  done
  if [ -z "$best" ]; then
    log "no JDK >= 21 found; installing one from Debian's packages"
    apt_install openjdk-21-jdk-headless || apt_install openjdk-25-jdk-headless
    best=$(ls -d /usr/lib/jvm/java-2[1-9]-openjdk-* | tail -n 1)
    best_major=$(java_major "$best")
  fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
  log "JDK $best_major at $JAVA_HOME"
}

wait_for() { # wait_for NAME COMMAND...: up to 30 s
  local name=$1; shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  log "$name does not answer"
  exit 1
}

ensure_redis() {
  # Also what the Sentinel failover test needs: it starts its sentinels as `redis-server <file> --sentinel`
  # (the same binary; Debian's redis-sentinel package only adds a service for it).
  command -v redis-server >/dev/null || { log "installing Redis"; apt_install redis-server; }
  if redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
    log "Redis answers on 127.0.0.1:6379"
    return
  fi
  log "starting Redis"
  local dir=/var/lib/redis
  [ -w "$dir" ] || dir=$(mktemp -d)
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir "$dir" --logfile "$dir/taskfence-redis.log"
  wait_for Redis sh -c 'redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG'
}

ensure_postgres() {
  local installed_now=""
  if ! command -v pg_ctlcluster >/dev/null; then
    log "installing PostgreSQL"
    apt_install postgresql
    installed_now=yes
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if [ -n "$installed_now" ]; then
    # A fresh install asks for passwords on TCP; this throw-away local server trusts loopback instead.
    local hba="/etc/postgresql/$version/main/pg_hba.conf"
    as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main restart || true
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    log "starting PostgreSQL $version"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  wait_for PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432
  if [ "$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname = 'test'")" != 1 ]; then
    log "creating database test"
    psql -h 127.0.0.1 -U postgres -d postgres -qc 'create database test'
  fi
  log "PostgreSQL answers on 127.0.0.1:5432"
}

ensure_kubectl() { # the tests of k8s/ render it with kubectl's kustomize, as `kubectl apply -k` would
  command -v kubectl >/dev/null && return
  log "installing kubectl"
  apt_install kubectl || { log "the tests of k8s/ need kubectl (with kustomize): install it and run again"; exit 1; }
}

ensure_wrk() { # the load generator of the REST benchmarks
  command -v wrk >/dev/null && return
  log "installing wrk"
  apt_install wrk
}

REDOCLY_VERSION=2.77.0
REDOCLY="$HOME/.cache/taskfence/redocly-$REDOCLY_VERSION/node_modules/.bin/redocly"

ensure_python() { # the Python client and its tests run on Debian's own python3, standard library only
  # PythonClientIT pip-installs the client into a venv offline: setuptools and wheel from Debian's own wheels
  /usr/bin/python3 -c 'import ensurepip' 2>/dev/null && compgen -G '/usr/share/python-wheels/wheel-*.whl' >/dev/null \
    && return
  log "installing python3, python3-venv and python3-wheel-whl"
  apt_install python3 python3-venv python3-wheel-whl
}

ensure_redocly() { # Redocly CLI lints the OpenAPI document; from the npm registry, into a cache of its own
  [ -x "$REDOCLY" ] && return
  command -v npm >/dev/null || { log "installing npm"; apt_install npm; }
  log "installing @redocly/cli $REDOCLY_VERSION"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/taskfence/redocly-$REDOCLY_VERSION" \
    "@redocly/cli@$REDOCLY_VERSION" >/dev/null
}

TYPESCRIPT_VERSION=7.0.2
TSC="$HOME/.cache/taskfence/typescript-$TYPESCRIPT_VERSION/node_modules/.bin/tsc"

ensure_typescript() { # tsc type-checks the generated TypeScript client; from the npm registry, into a cache of its own
  [ -x "$TSC" ] && return
  command -v npm >/dev/null || { log "installing npm"; apt_install npm; }
  log "installing typescript $TYPESCRIPT_VERSION"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/taskfence/typescript-$TYPESCRIPT_VERSION" \
    "typescript@$TYPESCRIPT_VERSION" >/dev/null
}

ensure_chromium() { # the dashboard's browser tests drive Debian's headless chromium through its chromedriver
  command -v chromium >/dev/null && command -v chromedriver >/dev/null && return
  log "installing chromium and chromium-driver"
  apt_install chromium chromium-driver
}
